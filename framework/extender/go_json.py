"""JSON as kube-scheduler's ``encoding/json`` writes and reads it, for the extender protocol.

An extender answers whatever its author's library produced, and upstream decodes it with Go's
rules: object keys match struct fields exactly or else case-insensitively, unknown keys are
ignored, ``null`` leaves a field at its zero value, only the first JSON value of the body is
read, and a value of the wrong type is an error worded ``json: cannot unmarshal <what> into Go
struct field <Struct>.<Field> of type <type>``. The decoder here follows those rules over small
descriptions of the Go types (``GoString``, ``GoStruct`` …) so errors read as upstream's.
"""

from __future__ import annotations

import datetime as _dt
import json
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from framework.api.fields import format_time

MIN_INT64 = -(1 << 63)
MAX_INT64 = (1 << 63) - 1

# encoding/json escapes these even inside strings, so HTML-embedded JSON stays inert.
_GO_HTML_ESCAPES = {
    "<": "\\u003c",
    ">": "\\u003e",
    "&": "\\u0026",
    "\u2028": "\\u2028",
    "\u2029": "\\u2029",
}
_JSON_WHITESPACE = " \t\n\r"


class GoJSONError(ValueError):
    """The body is not JSON, or not of the expected shape; the message is Go's wording."""


def marshal(value: Any) -> bytes:
    """Compact JSON with Go's HTML escaping (``json.Marshal``)."""
    text = json.dumps(value, ensure_ascii=False, separators=(",", ":"), default=_timestamp)
    for char, escaped in _GO_HTML_ESCAPES.items():
        text = text.replace(char, escaped)
    return text.encode("utf-8")


def _timestamp(value: Any) -> str:
    """Timestamps YAML manifests were read with, written as the API server writes them."""
    if isinstance(value, _dt.datetime):
        if value.tzinfo is None:  # the manifests' convention: no zone means UTC
            value = value.replace(tzinfo=_dt.UTC)
        return format_time(value)
    if isinstance(value, _dt.date):
        return value.isoformat()
    raise TypeError(f"{type(value).__name__} cannot be written as JSON")


# --------------------------------------------------------------------------------------------
# Go types


class GoType:
    """A Go type the decoder can fill: its name as Go prints it, and how to read a value."""

    go_name: str = ""

    def zero(self) -> Any:
        return None

    def decode(self, value: Any, ctx: _Context) -> Any:
        raise NotImplementedError


class GoString(GoType):
    go_name = "string"

    def zero(self) -> str:
        return ""

    def decode(self, value: Any, ctx: _Context) -> str:
        if not isinstance(value, str):
            raise ctx.mismatch(value, self)
        return value


class GoInt64(GoType):
    go_name = "int64"

    def zero(self) -> int:
        return 0

    def decode(self, value: Any, ctx: _Context) -> int:
        if not isinstance(value, _Number):
            raise ctx.mismatch(value, self)
        number = _parse_int64(value.literal)
        if number is None:  # Go reports the literal it could not store
            raise ctx.mismatch(value, self, what=f"number {value.literal}")
        return number


@dataclass(frozen=True)
class GoSlice(GoType):
    elem: GoType

    @property
    def go_name(self) -> str:  # type: ignore[override]
        return "[]" + self.elem.go_name

    def decode(self, value: Any, ctx: _Context) -> list[Any]:
        if not isinstance(value, list):
            raise ctx.mismatch(value, self)
        return [ctx.decode(item, self.elem) for item in value]


@dataclass(frozen=True)
class GoMap(GoType):
    """``map[string]<elem>``, or a named map type when ``name`` is given."""

    elem: GoType
    name: str = ""

    @property
    def go_name(self) -> str:  # type: ignore[override]
        return self.name or "map[string]" + self.elem.go_name

    def decode(self, value: Any, ctx: _Context) -> dict[str, Any]:
        if not isinstance(value, dict):
            raise ctx.mismatch(value, self)
        return {key: ctx.decode(item, self.elem) for key, item in value.items()}


@dataclass(frozen=True)
class GoPointer(GoType):
    """``*<elem>``: ``null`` is None; a value of the wrong type names the element type."""

    elem: GoType

    @property
    def go_name(self) -> str:  # type: ignore[override]
        return "*" + self.elem.go_name

    def decode(self, value: Any, ctx: _Context) -> Any:
        return self.elem.decode(value, ctx)


@dataclass(frozen=True)
class GoStruct(GoType):
    """A struct: ``fields`` are (JSON key, Python keyword, type) in declaration order; without
    JSON tags the key is the Go field name. ``build`` gets the values as keyword arguments."""

    package: str
    name: str
    fields: tuple[tuple[str, str, GoType], ...]
    build: Callable[..., Any]

    @property
    def go_name(self) -> str:  # type: ignore[override]
        return f"{self.package}.{self.name}"

    def zero(self) -> Any:
        return self.build(**self._zero_values())

    def decode(self, value: Any, ctx: _Context) -> Any:
        if not isinstance(value, dict):
            raise ctx.mismatch(value, self)
        values = self._zero_values()
        for key, item in value.items():
            found = self._field(key)
            if found is None or item is None:
                continue
            key, python, go_type = found
            values[python] = ctx.enter(self.name, key).decode(item, go_type)
        return self.build(**values)

    def _zero_values(self) -> dict[str, Any]:
        return {python: go_type.zero() for _, python, go_type in self.fields}

    def _field(self, key: str) -> tuple[str, str, GoType] | None:
        """The field named exactly ``key``, else the first one equal to it ignoring case."""
        for field in self.fields:
            if field[0] == key:
                return field
        folded = key.casefold()
        for field in self.fields:
            if field[0].casefold() == folded:
                return field
        return None


@dataclass(frozen=True)
class GoObject(GoType):
    """A Kubernetes object decoded by our own parser (``Node.from_dict``)."""

    package: str
    name: str
    parse: Callable[[Mapping[str, Any]], Any]

    @property
    def go_name(self) -> str:  # type: ignore[override]
        return f"{self.package}.{self.name}"

    def decode(self, value: Any, ctx: _Context) -> Any:
        if not isinstance(value, dict):
            raise ctx.mismatch(value, self)
        try:
            return self.parse(_plain(value))
        except ValueError as err:
            raise GoJSONError(f"json: cannot unmarshal {self.go_name}: {err}") from None


# --------------------------------------------------------------------------------------------
# Decoding


def unmarshal(body: bytes, go_type: GoType) -> Any:
    """The first JSON value of ``body`` as ``go_type`` (``json.NewDecoder(body).Decode``)."""
    value = _parse_first_value(body.decode("utf-8", errors="replace"))
    if value is None:
        return go_type.zero()
    return _Context().decode(value, go_type)


class _Number:
    """A JSON number as written, so integer fields can refuse ``5.0`` as Go does."""

    __slots__ = ("literal",)

    def __init__(self, literal: str) -> None:
        self.literal = literal


@dataclass(frozen=True)
class _Context:
    """Where the decoder is: the innermost struct and the path of field names to it."""

    struct: str = ""
    path: tuple[str, ...] = ()

    def enter(self, struct: str, field: str) -> _Context:
        return _Context(struct, (*self.path, field))

    def decode(self, value: Any, go_type: GoType) -> Any:
        if value is None:
            return go_type.zero()
        return go_type.decode(value, self)

    def mismatch(self, value: Any, go_type: GoType, what: str = "") -> GoJSONError:
        what = what or _json_kind(value)
        where = "Go value"
        if self.path:
            where = f"Go struct field {self.struct}.{'.'.join(self.path)}"
        return GoJSONError(f"json: cannot unmarshal {what} into {where} of type {go_type.go_name}")


def _parse_first_value(text: str) -> Any:
    start = len(text) - len(text.lstrip(_JSON_WHITESPACE))
    if start == len(text):
        raise GoJSONError("EOF")
    decoder = json.JSONDecoder(
        parse_int=_Number, parse_float=_Number, parse_constant=_refuse_constant
    )
    try:
        value, _ = decoder.raw_decode(text, start)
    except json.JSONDecodeError as err:
        raise GoJSONError(_syntax_error(err)) from None
    except _ConstantError as err:
        char = _quote_char(str(err)[0])
        raise GoJSONError(f"invalid character {char} looking for beginning of value") from None
    return value


class _ConstantError(ValueError):
    pass


def _refuse_constant(name: str) -> Any:
    raise _ConstantError(name)  # NaN and Infinity are not JSON to Go


def _syntax_error(err: json.JSONDecodeError) -> str:
    """Go's text for the common syntax errors; Python's own for the rest."""
    if err.pos >= len(err.doc) or err.msg.startswith("Unterminated string"):
        return "unexpected EOF"
    char = _quote_char(err.doc[err.pos])
    if err.msg == "Expecting value":
        return f"invalid character {char} looking for beginning of value"
    if err.msg.startswith("Expecting property name"):
        return f"invalid character {char} looking for beginning of object key string"
    if err.msg == "Expecting ':' delimiter":
        return f"invalid character {char} after object key"
    if err.msg == "Invalid control character at":
        return f"invalid character {char} in string literal"
    return f"invalid character {char}: {err.msg[0].lower()}{err.msg[1:]}"


def _quote_char(char: str) -> str:
    """Go's ``quoteChar``: the character between single quotes, escaped as ``%q`` would."""
    if char == "'":
        return "'\\''"
    if char == '"':
        return "'\"'"
    return "'" + json.dumps(char)[1:-1] + "'"


def _json_kind(value: Any) -> str:
    if isinstance(value, bool):
        return "bool"
    if isinstance(value, _Number):
        return "number"
    if isinstance(value, str):
        return "string"
    if isinstance(value, list):
        return "array"
    return "object"


def _parse_int64(literal: str) -> int | None:
    """``strconv.ParseInt(literal, 10, 64)``: plain integers in range only."""
    digits = literal[1:] if literal.startswith("-") else literal
    if not digits.isdigit():
        return None
    number = int(literal)
    return number if MIN_INT64 <= number <= MAX_INT64 else None


def _plain(value: Any) -> Any:
    """The decoded tree with numbers as Python ints and floats, for our object parsers."""
    if isinstance(value, _Number):
        number = _parse_int64(value.literal)
        return number if number is not None else float(value.literal)
    if isinstance(value, list):
        return [_plain(item) for item in value]
    if isinstance(value, dict):
        return {key: _plain(item) for key, item in value.items()}
    return value
