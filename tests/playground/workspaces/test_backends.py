"""Which database and Redis the tests (and the product) run on, chosen by environment variables."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest
from django.conf import settings
from django.db import connection

from playground.settings import database_from_url
from tests.conftest import production_backend_problems

UNDER_CI = os.getenv("CI", "").lower() == "true"
SETTINGS = "playground.settings"


@pytest.mark.parametrize(
    ("url", "expected"),
    [
        (
            "postgres://postgres@127.0.0.1:5432/playground",
            {"NAME": "playground", "USER": "postgres", "HOST": "127.0.0.1", "PORT": "5432"},
        ),
        (
            "postgresql://ada:secret@db.example:6543/lab",
            {"NAME": "lab", "USER": "ada", "PASSWORD": "secret", "HOST": "db.example"},
        ),
        ("sqlite:///var/x.sqlite3", {"ENGINE": "django.db.backends.sqlite3"}),
    ],
    ids=[
        "a postgres url names database user host and port",
        "a postgresql url carries its password",
        "a sqlite url selects sqlite",
    ],
)
def test_a_database_url_becomes_a_django_database(url, expected):
    database = database_from_url(url)
    assert {key: database[key] for key in expected} == expected


def test_an_unknown_database_scheme_is_refused_by_name():
    with pytest.raises(ValueError, match="unsupported scheme 'mysql'"):
        database_from_url("mysql://localhost/x")


@pytest.mark.skipif(not UNDER_CI, reason="only CI=true promises PostgreSQL and Redis")
@pytest.mark.django_db
def test_under_ci_the_tests_run_on_postgresql():
    assert connection.vendor == "postgresql"


@pytest.mark.skipif(not UNDER_CI, reason="only CI=true promises PostgreSQL and Redis")
def test_under_ci_the_channel_layer_is_redis():
    assert settings.CHANNEL_LAYERS["default"]["BACKEND"] == "channels_redis.core.RedisChannelLayer"
    assert production_backend_problems(settings.DATABASES["default"], settings.REDIS_URL) == []


def test_the_ci_check_refuses_sqlite_and_a_missing_redis():
    sqlite = {"ENGINE": "django.db.backends.sqlite3"}
    assert production_backend_problems(sqlite, "") == [
        "the database is django.db.backends.sqlite3, not PostgreSQL (DATABASE_URL)",
        "REDIS_URL is not set",
    ]


def test_the_ci_check_names_servers_that_do_not_answer():
    database = database_from_url("postgres://postgres@127.0.0.1:9/x")
    problems = production_backend_problems(database, "redis://127.0.0.1:9/0")
    assert [problem.split(":")[0] for problem in problems] == [
        "PostgreSQL at 127.0.0.1",
        "Redis at redis",
    ]


def test_the_embedded_database_writes_ahead_and_commits_without_syncing(tmp_path):
    """The embedded mode's SQLite file is in WAL mode, synchronous NORMAL: its worker threads,
    mirror and pages read while one writes, and a commit does not wait for the disk (with the
    rollback journal, every commit synced twice under the one write lock)."""
    env = {key: value for key, value in os.environ.items() if key != "DATABASE_URL"}
    env.update(SQLITE_PATH=str(tmp_path / "embedded.sqlite3"), DJANGO_SETTINGS_MODULE=SETTINGS)
    script = (
        "import django; django.setup()\n"
        "from django.db import connection\n"
        "with connection.cursor() as cursor:\n"
        "    for pragma in ('journal_mode', 'synchronous'):\n"
        "        print(cursor.execute(f'PRAGMA {pragma}').fetchone()[0])\n"
    )
    answer = subprocess.run(
        [sys.executable, "-c", script], env=env, cwd=settings.BASE_DIR, capture_output=True
    )
    assert answer.returncode == 0, answer.stderr.decode()
    assert answer.stdout.decode().split() == ["wal", "1"]  # 1: NORMAL
