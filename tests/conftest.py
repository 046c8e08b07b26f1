"""Suite-wide setup: fast password hashing, and under CI=true PostgreSQL and Redis are required.

The ``kube_api`` fixture (tests/kube/fixtures.py) is declared here once for the whole suite, so
its session-wide control plane (``kube_control_plane``, started when KUBEBUILDER_ASSETS is set)
is one for every folder (one per pytest-xdist worker: each worker is a session).

``scripts/test`` points DATABASE_URL and REDIS_URL at 127.0.0.1 when those servers answer (and
always under CI); this check turns a missing server into one clear failure at start-up instead
of a thousand confusing ones, or worse, a green run on SQLite that proves nothing about
production.
"""

from __future__ import annotations

import os

import pytest

from tests.kube.fixtures import kube_api, kube_control_plane  # noqa: F401  (fixtures, by name)

CONNECT_TIMEOUT_SECONDS = 3


def pytest_sessionstart(session: pytest.Session) -> None:
    from django.conf import settings

    # The production hasher spends about a second per password on purpose; tests create many.
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]
    if os.getenv("CI", "").lower() != "true":
        return
    problems = production_backend_problems(settings.DATABASES["default"], settings.REDIS_URL)
    if problems:
        pytest.exit(
            "CI=true requires PostgreSQL and Redis (run the suite with scripts/test):\n  "
            + "\n  ".join(problems),
            returncode=3,
        )


def production_backend_problems(database: dict, redis_url: str) -> list[str]:
    """Why this database and Redis are not the production ones, or unreachable."""
    problems = []
    if database["ENGINE"] != "django.db.backends.postgresql":
        problems.append(f"the database is {database['ENGINE']}, not PostgreSQL (DATABASE_URL)")
    else:
        problems.extend(_postgres_problems(database))
    if not redis_url:
        problems.append("REDIS_URL is not set")
    else:
        problems.extend(_redis_problems(redis_url))
    return problems


def _postgres_problems(database: dict) -> list[str]:
    import psycopg

    try:
        # The maintenance database: the test database does not exist yet.
        psycopg.connect(
            dbname="postgres",
            host=database["HOST"],
            port=database["PORT"] or None,
            user=database["USER"],
            password=database["PASSWORD"],
            connect_timeout=CONNECT_TIMEOUT_SECONDS,
        ).close()
    except psycopg.Error as err:
        return [f"PostgreSQL at {database['HOST']}:{database['PORT']} is unreachable: {err}"]
    return []


def _redis_problems(url: str) -> list[str]:
    import redis

    try:
        redis.Redis.from_url(url, socket_connect_timeout=CONNECT_TIMEOUT_SECONDS).ping()
    except redis.RedisError as err:
        return [f"Redis at {url} is unreachable: {err}"]
    return []
