"""Model fields of the playground's own."""

from __future__ import annotations

from typing import Any

from django.db import models


class JSONField(models.JSONField):
    """Django's JSONField, inserted in plain ``VALUES`` rows by ``bulk_create``.

    On PostgreSQL, ``bulk_create`` sends each column of the rows as one array (``UNNEST``), and
    psycopg escapes every ``"`` of every JSON document in that array with a Python regex
    callback: inserting 50 scheduling attempts (a final score per node) took ~50 ms instead of
    ~10 ms, on the scheduler service's path. A field that declares its placeholder keeps
    Django from choosing ``UNNEST`` for the rows it is part of.
    """

    def get_placeholder(self, value: Any, compiler: Any, connection: Any) -> str:
        return "%s"
