"""Strict decoding of a parsed JSON value into the configuration dataclasses.

This mirrors what kube-scheduler's strict JSON decoder does with a configuration:

* an unknown field, a differently-cased field (``Name`` for ``name``) or, in JSON input, a
  repeated field is a *strict* error, collected and reported together as
  ``unknown field "profiles[0].foo"`` / ``duplicate field "x"``;
* a value of the wrong type is a *fatal* error, reported alone in Go's words
  (``json: cannot unmarshal string into Go struct field KubeSchedulerProfile.profiles.
  schedulerName of type string``); the first one wins;
* ``null`` clears pointers, lists and maps and leaves everything else untouched.

Mappings parsed from YAML are visited in sorted key order, because upstream converts YAML to
JSON through a Go map before decoding; mappings from JSON input keep their order.
"""

from __future__ import annotations

import base64
import binascii
import decimal
from typing import Any

from framework.config.schema import TypeInfo, json_names
from framework.util.duration import parse_duration

_INT_RANGES = {32: (-(2**31), 2**31 - 1), 64: (-(2**63), 2**63 - 1)}
_FLOAT32_MAX = 3.4028234663852886e38


class DecodeError(ValueError):
    """A fatal decoding error; the message is upstream's."""


class JsonObject(dict):
    """A JSON object that remembers its key/value pairs in order, repeated keys included."""

    __slots__ = ("pairs",)

    def __init__(self, pairs: list[tuple[str, Any]]) -> None:
        super().__init__(pairs)
        self.pairs = pairs


def decode_strict(data: Any, cls: type) -> tuple[Any, list[str]]:
    """Decodes a mapping into a new ``cls``; returns it and the strict errors (may be empty).

    Raises :class:`DecodeError` for a fatal error.
    """
    decoder = _Decoder()
    obj = cls()
    decoder.fill_struct(obj, data, "", ())
    if decoder.saved_error is not None:
        raise DecodeError(decoder.saved_error)
    return obj, decoder.strict_errors


def describe_json_value(value: Any) -> str:
    """How Go's decoder names a JSON value in type errors."""
    if isinstance(value, bool):
        return "bool"
    if isinstance(value, int | float):
        return "number"
    if isinstance(value, str):
        return "string"
    if isinstance(value, list):
        return "array"
    if isinstance(value, dict):
        return "object"
    return "null"


def go_float_literal(value: float) -> str:
    """A float as Go's JSON encoder writes it (plain digits between 1e-6 and 1e21)."""
    if value == 0 or 1e-6 <= abs(value) < 1e21:
        text = format(decimal.Decimal(repr(value)), "f")
        return text[:-2] if text.endswith(".0") else text
    mantissa, _, exponent = repr(value).partition("e")
    sign = exponent[0] if exponent[:1] in "+-" else "+"
    return f"{mantissa}e{sign}{exponent.lstrip('+-').lstrip('0') or '0'}"


class _Decoder:
    def __init__(self) -> None:
        self.strict_errors: list[str] = []
        self.saved_error: str | None = None

    # -- structs -------------------------------------------------------------------------------

    def fill_struct(self, obj: Any, data: Any, path: str, stack: tuple[str, ...]) -> None:
        cls = type(obj)
        fields = json_names(cls)
        embeds_type_meta = hasattr(cls, "KIND")
        seen: set[str] = set()
        for key, value in _items(data):
            field_path = f"{path}.{key}" if path else key
            if key in seen:
                self.strict_errors.append(f"duplicate field {_quote(field_path)}")
            seen.add(key)
            field = fields.get(key)
            if field is None:
                if embeds_type_meta and key in ("apiVersion", "kind"):
                    self._check_type_meta(value, cls, (*stack, key))
                else:
                    self.strict_errors.append(f"unknown field {_quote(field_path)}")
                continue
            context = (cls.__name__, (*stack, key))
            current = getattr(obj, field.attr)
            setattr(obj, field.attr, self.value(value, field.type, current, field_path, context))

    def _check_type_meta(self, value: Any, cls: type, stack: tuple[str, ...]) -> None:
        if value is not None and not isinstance(value, str):
            self._save(describe_json_value(value), "string", (cls.__name__, stack))

    # -- values --------------------------------------------------------------------------------

    def value(
        self, data: Any, info: TypeInfo, current: Any, path: str, context: tuple[str, tuple]
    ) -> Any:
        if data is None:
            return self._null(info, current, context)
        kind = info.kind
        if kind == "any":
            return data
        if kind == "struct":
            return self._struct(data, info, current, path, context)
        if kind == "list":
            return self._list(data, info, current, path, context)
        if kind == "map":
            return self._map(data, info, current, context)
        if kind == "duration":
            return self._duration(data, context)
        return self._scalar(data, info, current, context)

    def _null(self, info: TypeInfo, current: Any, context: tuple[str, tuple]) -> Any:
        if info.nullable:
            return None
        if info.kind == "list":
            return []
        if info.kind == "map":
            return {}
        if info.kind == "duration":
            # metav1.Duration parses null as the empty string, which is no duration.
            return self._duration("", context)
        return current

    def _struct(
        self, data: Any, info: TypeInfo, current: Any, path: str, context: tuple[str, tuple]
    ) -> Any:
        if not isinstance(data, dict):
            self._save(describe_json_value(data), info.go_name, context)
            return current
        assert info.cls is not None
        obj = current if current is not None else info.cls()
        self.fill_struct(obj, data, path, context[1])
        return obj

    def _list(
        self, data: Any, info: TypeInfo, current: Any, path: str, context: tuple[str, tuple]
    ) -> Any:
        if not isinstance(data, list):
            self._save(describe_json_value(data), info.go_name, context)
            return current
        item = info.item
        assert item is not None
        return [
            self.value(value, item, _zero(item), f"{path}[{i}]", context)
            for i, value in enumerate(data)
        ]

    def _map(self, data: Any, info: TypeInfo, current: Any, context: tuple[str, tuple]) -> Any:
        if not isinstance(data, dict):
            self._save(describe_json_value(data), info.go_name, context)
            return current
        result = {}
        for key, value in _items(data):
            if value is not None and not isinstance(value, str):
                self._save(describe_json_value(value), "string", context)
                continue
            result[key] = value or ""
        return result

    def _duration(self, data: Any, context: tuple[str, tuple]) -> Any:
        # metav1.Duration reads a JSON string and parses it; both failures end decoding.
        if not isinstance(data, str):
            raise DecodeError(_type_error(describe_json_value(data), "string", context))
        if not data.strip("+-"):
            raise DecodeError(f'time: invalid duration "{data}"')
        try:
            return parse_duration(data)
        except ValueError as err:
            raise DecodeError(str(err)) from None

    def _scalar(self, data: Any, info: TypeInfo, current: Any, context: tuple[str, tuple]) -> Any:
        kind = info.kind
        if kind == "bool" and isinstance(data, bool):
            return data
        if kind == "str" and isinstance(data, str):
            return data
        if kind == "bytes" and isinstance(data, str):
            return self._base64(data, current)
        is_number = isinstance(data, int | float) and not isinstance(data, bool)
        if kind == "int" and is_number:
            return self._int(data, info, current, context)
        if kind == "float" and is_number:
            return self._float(data, info, current, context)
        self._save(describe_json_value(data), info.go_name, context)
        return current

    def _int(self, data: float, info: TypeInfo, current: Any, context: tuple[str, tuple]) -> Any:
        low, high = _INT_RANGES[info.bits or 64]
        if isinstance(data, float) and not data.is_integer():
            self._save(f"number {go_float_literal(data)}", info.go_name, context)
            return current
        if not low <= int(data) <= high:
            literal = str(data) if isinstance(data, int) else go_float_literal(data)
            self._save(f"number {literal}", info.go_name, context)
            return current
        return int(data)

    def _float(self, data: float, info: TypeInfo, current: Any, context: tuple[str, tuple]) -> Any:
        if info.bits == 32 and abs(data) > _FLOAT32_MAX:
            literal = str(data) if isinstance(data, int) else go_float_literal(data)
            self._save(f"number {literal}", info.go_name, context)
            return current
        return float(data)

    def _base64(self, data: str, current: Any) -> Any:
        try:
            return base64.b64decode(data, validate=True)
        except (binascii.Error, ValueError):
            self._save_raw(f"illegal base64 data at input byte {_base64_error_offset(data)}")
            return current

    # -- errors --------------------------------------------------------------------------------

    def _save(self, what: str, go_type: str, context: tuple[str, tuple]) -> None:
        self._save_raw(_type_error(what, go_type, context))

    def _save_raw(self, message: str) -> None:
        if self.saved_error is None:
            self.saved_error = message


def _type_error(what: str, go_type: str, context: tuple[str, tuple]) -> str:
    struct, stack = context
    if struct or stack:
        where = f"{struct}.{'.'.join(stack)}"
        return f"json: cannot unmarshal {what} into Go struct field {where} of type {go_type}"
    return f"json: cannot unmarshal {what} into Go value of type {go_type}"


def _items(data: Any) -> list[tuple[str, Any]]:
    if isinstance(data, JsonObject):
        return [(str(k), v) for k, v in data.pairs]
    return sorted(((_json_key(k), v) for k, v in data.items()), key=lambda item: item[0])


def _json_key(key: Any) -> str:
    if isinstance(key, bool):
        return "true" if key else "false"
    if isinstance(key, float):
        return go_float_literal(key)
    return "" if key is None else str(key)


def _zero(info: TypeInfo) -> Any:
    if info.kind == "struct" and not info.nullable:
        assert info.cls is not None
        return info.cls()
    return {"str": "", "int": 0, "float": 0.0, "bool": False, "bytes": b""}.get(info.kind)


def _quote(text: str) -> str:
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"') + '"'


def _base64_error_offset(data: str) -> int:
    alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/="
    for i, char in enumerate(data):
        if char not in alphabet:
            return i
    return len(data) - len(data) % 4
