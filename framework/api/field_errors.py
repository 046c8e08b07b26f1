"""Upstream's field error texts (``k8s.io/apimachinery/pkg/util/validation/field``).

Selector parsing and configuration validation report problems in exactly these words,
``<field>: <Type>: <value>: <detail>``, and join several of them the way upstream's error
aggregates do; keeping one implementation keeps every message identical.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

INVALID = "Invalid value"
NOT_SUPPORTED = "Unsupported value"
REQUIRED = "Required value"
FORBIDDEN = "Forbidden"
DUPLICATE = "Duplicate value"
NOT_FOUND = "Not found"
TOO_LONG = "Too long"
TOO_MANY = "Too many"

# Error types whose message shows the offending value.
_SHOWS_VALUE = {INVALID, NOT_SUPPORTED, DUPLICATE, NOT_FOUND, TOO_MANY}
_OMIT = object()


@dataclass(frozen=True, slots=True)
class FieldError:
    """One problem with one field, printed as upstream's ``field.Error`` prints."""

    type: str
    field: str
    bad_value: Any = _OMIT
    detail: str = ""

    def body(self) -> str:
        text = self.type
        if self.type in _SHOWS_VALUE and self.bad_value is not _OMIT:
            text += f": {render_value(self.bad_value)}"
        if self.detail:
            text += f": {self.detail}"
        return text

    def __str__(self) -> str:
        return f"{self.field}: {self.body()}"


def invalid(field: str, value: Any, detail: str) -> FieldError:
    return FieldError(INVALID, field, value, detail)


def not_supported(field: str, value: Any, supported: Sequence[str]) -> FieldError:
    detail = "supported values: " + ", ".join(go_quote(v) for v in supported) if supported else ""
    return FieldError(NOT_SUPPORTED, field, value, detail)


def required(field: str, detail: str = "") -> FieldError:
    return FieldError(REQUIRED, field, detail=detail)


def forbidden(field: str, detail: str) -> FieldError:
    return FieldError(FORBIDDEN, field, detail=detail)


def duplicate(field: str, value: Any) -> FieldError:
    return FieldError(DUPLICATE, field, value)


def not_found(field: str, value: Any) -> FieldError:
    return FieldError(NOT_FOUND, field, value)


def render_value(value: Any) -> str:
    """Show a bad value as upstream does: strings quoted, numbers bare, the rest as JSON."""
    if isinstance(value, str):
        return go_quote(value)
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int | float):
        return str(value)
    if isinstance(value, list | tuple) and not value:
        return "null"  # a Go nil slice; we do not track nil versus empty
    return json.dumps(value, separators=(",", ":"), ensure_ascii=False, default=str)


def aggregate_message(errors: Iterable[object]) -> str:
    """Join messages like upstream's error aggregate: duplicates dropped, several in brackets."""
    seen: list[str] = []
    for error in errors:
        text = str(error)
        if text not in seen:
            seen.append(text)
    if len(seen) == 1:
        return seen[0]
    return "[" + ", ".join(seen) + "]"


def go_quote(text: str) -> str:
    """A double-quoted string with Go's ``%q`` escapes for the characters that need them."""
    out = ['"']
    for char in text:
        if char in _GO_ESCAPES:
            out.append(_GO_ESCAPES[char])
        elif char.isprintable():
            out.append(char)
        elif ord(char) < 0x80:
            out.append(f"\\x{ord(char):02x}")
        elif ord(char) <= 0xFFFF:
            out.append(f"\\u{ord(char):04x}")
        else:
            out.append(f"\\U{ord(char):08x}")
    out.append('"')
    return "".join(out)


_GO_ESCAPES = {
    '"': '\\"',
    "\\": "\\\\",
    "\a": "\\a",
    "\b": "\\b",
    "\f": "\\f",
    "\n": "\\n",
    "\r": "\\r",
    "\t": "\\t",
    "\v": "\\v",
}
