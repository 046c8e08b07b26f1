"""The embedded worker starts only in the process that serves the playground."""

from __future__ import annotations

import pytest

from playground.scheduling.embedded_worker import serves_the_playground


@pytest.mark.parametrize(
    ("argv", "environ", "expected"),
    [
        (["manage.py", "runserver", "127.0.0.1:8000"], {"RUN_MAIN": "true"}, True),
        (["manage.py", "runserver", "127.0.0.1:8000"], {}, False),
        (["manage.py", "runserver", "--noreload"], {}, True),
        (["/srv/.venv/bin/daphne", "playground.asgi:application"], {}, True),
        (["manage.py", "migrate"], {"RUN_MAIN": "true"}, False),
        (["/srv/.venv/bin/celery", "-A", "playground", "worker"], {}, False),
        (["pytest"], {}, False),
    ],
    ids=[
        "the server process runserver's reloader starts",
        "not the reloader itself",
        "runserver without a reloader",
        "daphne",
        "not other management commands",
        "not a Celery worker, which has its own",
        "not the test runner",
    ],
)
def test_it_starts_only_where_the_pages_are_served(argv, environ, expected):
    assert serves_the_playground(argv, environ) is expected
