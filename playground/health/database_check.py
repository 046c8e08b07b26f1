"""The ``database`` check, shared by the web process's /readyz and the workers' probe."""

from __future__ import annotations

from django.db import connection


def database() -> None:
    """A query on this thread's connection; a broken one is dropped, so the next check
    connects again and turns healthy as soon as the database is back."""
    try:
        with connection.cursor() as cursor:
            cursor.execute("SELECT 1")
            cursor.fetchone()
    except Exception:
        connection.close_if_unusable_or_obsolete()
        raise
