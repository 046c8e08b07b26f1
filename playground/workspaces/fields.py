"""Model fields of the playground's own."""

from __future__ import annotations

import json
from typing import Any

import orjson
from django.db import models
from django.db.models.fields.json import KeyTransform
from psycopg.types.json import Jsonb

_ORJSON_OPTIONS = orjson.OPT_NON_STR_KEYS


def dumps(value: Any) -> str:
    """``value`` as JSON text, written by orjson (5-10 times faster than ``json.dumps`` on
    manifests and traces, the same document without the spaces); what orjson cannot write (an
    integer beyond 64 bits, say) is written by ``json.dumps``."""
    try:
        return orjson.dumps(value, option=_ORJSON_OPTIONS).decode()
    except (TypeError, orjson.JSONEncodeError):
        return json.dumps(value)


def loads(text: str | bytes) -> Any:
    """``json.loads`` by orjson, falling back to it for what orjson refuses (NaN, an integer
    beyond 64 bits)."""
    try:
        return orjson.loads(text)
    except orjson.JSONDecodeError:
        return json.loads(text)


class JSONField(models.JSONField):
    """Django's JSONField, encoded and decoded by orjson, inserted in plain ``VALUES`` rows by
    ``bulk_create``.

    Every manifest, change, attempt and command passes through here on the live path: with the
    standard library's encoder and decoder, JSON was about a tenth of the scheduler process's
    time during a burst (README, "Where a burst's time goes"). A field with an ``encoder`` or
    ``decoder`` of its own keeps Django's.

    On PostgreSQL, ``bulk_create`` sends each column of the rows as one array (``UNNEST``), and
    psycopg escapes every ``"`` of every JSON document in that array with a Python regex
    callback: inserting 50 scheduling attempts (a final score per node) took ~50 ms instead of
    ~10 ms, on the scheduler service's path. A field that declares its placeholder keeps
    Django from choosing ``UNNEST`` for the rows it is part of.
    """

    def get_placeholder(self, value: Any, compiler: Any, connection: Any) -> str:
        return "%s"

    def get_db_prep_value(self, value: Any, connection: Any, prepared: bool = False) -> Any:
        if self.encoder is not None:
            return super().get_db_prep_value(value, connection, prepared)
        if not prepared:
            value = self.get_prep_value(value)
        if connection.vendor == "postgresql":
            return Jsonb(value, dumps=dumps)
        return dumps(value)

    def from_db_value(self, value: Any, expression: Any, connection: Any) -> Any:
        keeps_django = self.decoder is not None or isinstance(expression, KeyTransform)
        if keeps_django or not isinstance(value, str | bytes):
            return super().from_db_value(value, expression, connection)
        try:
            return loads(value)
        except json.JSONDecodeError:
            return value
