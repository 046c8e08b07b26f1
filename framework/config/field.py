"""Field paths and bad values for configuration validation errors.

Errors themselves are ``framework.api.field_errors.FieldError`` (upstream's ``field.Error``
wording, shared with selector parsing). This module adds what configuration validation needs
on top: :class:`Path` (upstream's ``field.Path``) and :func:`go_value`, which shows a value
the way upstream's message shows it, i.e. as Go's JSON encoding of the *internal* config type.
"""

from __future__ import annotations

import dataclasses
from datetime import timedelta
from typing import Any

from framework.config.encode import to_json_value
from framework.config.schema import api_fields, uses_json_tags_for_go_values
from framework.util.duration import format_duration

_ZERO_BY_KIND = {"int": 0, "float": 0, "bool": False, "str": ""}


class Path:
    """A field path such as ``profiles[0].pluginConfig[1].args``; ``Path()`` is the root."""

    __slots__ = ("_text",)

    def __init__(self, *names: str) -> None:
        self._text = ".".join(names)

    def child(self, *names: str) -> Path:
        text = self._text
        for name in names:
            text = f"{text}.{name}" if text else name
        return _path(text)

    def index(self, index: int) -> Path:
        return _path(f"{self._text}[{index}]")

    def key(self, key: str) -> Path:
        return _path(f"{self._text}[{key}]")

    def __str__(self) -> str:
        return self._text

    def __repr__(self) -> str:
        return f"Path({self._text!r})"


def _path(text: str) -> Path:
    path = Path()
    path._text = text
    return path


def go_value(value: Any) -> Any:
    """``value`` as the JSON-compatible data Go would print for the internal config type.

    Internal types have no JSON tags, so fields print under their Go names (``Enabled``,
    ``Weight``); unset numbers print as 0; empty lists print as null (Go's nil slices);
    durations print as text; core types (NodeAffinity, ...) keep their JSON names.
    """
    if value is None:
        return None
    if isinstance(value, timedelta):
        return format_duration(value)
    if isinstance(value, list | tuple):
        return [go_value(item) for item in value] or None
    if isinstance(value, dict):
        return {str(key): go_value(value[key]) for key in sorted(value, key=str)}
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        if uses_json_tags_for_go_values(type(value)):
            return to_json_value(value)
        return {
            field.go: _internal(getattr(value, field.attr), field.type.kind)
            for field in api_fields(type(value))
        }
    return value


def _internal(value: Any, kind: str) -> Any:
    if value is None:
        return _ZERO_BY_KIND.get(kind)
    return go_value(value)
