"""Strict field decoding, as kube-apiserver decodes a request body with
``fieldValidation=Strict`` (what ``kubectl apply`` and ``kubectl create`` ask for by default).

A field the kind's schema does not have is an error, not silently dropped: a typo such as
``requets`` would otherwise make a pod with no requests. Names match case-sensitively, and the
path is written as upstream's decoder writes it (``spec.containers[0].resources.requets``: keys
joined with dots, list positions in brackets, map keys as keys). The schema is the complete
v1.36 one of each kind (``known_fields.json``, from the official client), so valid fields the
engine does not read, such as ``livenessProbe``, are accepted.

Decoding also checks every value's type against the schema, as JSON decoding into the Go
types does; like it, only the first wrong type is reported, and then no unknown field.
"""

from __future__ import annotations

import datetime as _dt
import json
from collections.abc import Mapping
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path
from typing import Any

from framework.api.field_errors import go_quote
from framework.api.fields import type_name

_SCHEMA = Path(__file__).with_name("known_fields.json")
# Upstream's decoder stops collecting strict errors at this many.
MAX_STRICT_ERRORS = 100


@dataclass(slots=True)
class Decoding:
    """What strictly decoding a manifest found: the first value of a wrong type (its path
    and problem), the unknown fields, and the manifest as decoded: a ``null`` item of a list
    is its type's zero value there (an empty object, an empty string), as in the Go types."""

    manifest: Any = None
    wrong_type: tuple[str, str] | None = None
    unknown: list[str] = field(default_factory=list)
    unknown_paths: list[str] = field(default_factory=list)
    """The path of each unknown field, in the order of ``unknown`` (to find it in the text)."""


def decode_strictly(kind: str, manifest: Mapping[str, Any]) -> Decoding:
    """Check the manifest against its kind's schema (nothing found for a kind without one)."""
    schema = _schema()
    found = Decoding(manifest=manifest)
    root = schema["kinds"].get(kind)
    if root is not None:
        found.manifest = _walk(schema["types"], root, manifest, "", found)
    return found


def unknown_fields(kind: str, manifest: Mapping[str, Any]) -> list[str]:
    """Every field of the manifest its kind does not define, as ``unknown field "path"``
    (at most 100, without repeats, in document order)."""
    return decode_strictly(kind, manifest).unknown


def _walk(types: dict[str, Any], expected: str, value: Any, path: str, found: Decoding) -> Any:
    """Check ``value`` against ``expected`` (a model name or a scalar kind, or ``[]``/``{}``
    and an inner type) and return it as decoded. A ``null`` field stays absent."""
    if value is None:
        return None
    if expected.startswith("[]"):
        if not isinstance(value, list):
            _wrong(found, path, "a list", value)
            return value
        inner = expected[2:]
        return _same_or_new(
            value,
            [
                _ZEROS.get(inner, {})
                if item is None and not inner.startswith(("[]", "{}"))
                else _walk(types, inner, item, f"{path}[{index}]", found)
                for index, item in enumerate(value)
            ],
        )
    if expected in _SCALARS:
        if not _SCALARS[expected](value):
            _wrong(found, path, _ARTICLES[expected], value)
        return value
    if not isinstance(value, Mapping):
        _wrong(found, path, "an object", value)
        return value
    if expected.startswith("{}"):
        return _same_or_new(
            value,
            {
                key: _walk(types, expected[2:], item, _join(path, str(key)), found)
                for key, item in value.items()
            },
        )
    fields = types[expected]
    decoded: dict[Any, Any] = {}
    for key, item in value.items():
        name = str(key)
        if name not in fields:
            _unknown(found, _join(path, name))
        elif fields[name] is not None:
            item = _walk(types, fields[name], item, _join(path, name), found)
        decoded[key] = item
    return _same_or_new(value, decoded)


def _same_or_new(given: Any, decoded: Any) -> Any:
    """``given`` itself when decoding changed none of its items (the usual case), else the
    decoded copy: the decoded manifest then shares the given one's unchanged parts, which
    halves what a cluster of tens of thousands of pods holds while it is created."""
    if type(given) is not type(decoded) or len(given) != len(decoded):
        return decoded
    if isinstance(decoded, list):
        same = all(a is b for a, b in zip(given, decoded, strict=True))
    else:
        same = all(key in given and given[key] is item for key, item in decoded.items())
    return given if same else decoded


def _is_number(value: Any) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool)


# The client types quantities as strings; JSON decoding also takes them as numbers.
_SCALARS = {
    "string": lambda v: isinstance(v, str) or _is_number(v),
    "integer": lambda v: isinstance(v, int) and not isinstance(v, bool),
    "boolean": lambda v: isinstance(v, bool),
    "number": _is_number,
    "time": lambda v: isinstance(v, str | _dt.date),
}
# What a ``null`` list item decodes to (objects: an empty one).
_ZEROS: dict[str, Any] = {"string": "", "integer": 0, "boolean": False, "number": 0, "time": None}
_ARTICLES = {
    "string": "a string",
    "integer": "an integer",
    "boolean": "a boolean",
    "number": "a number",
    "time": "a time string",
}


def _wrong(found: Decoding, path: str, expected: str, value: Any) -> None:
    if found.wrong_type is None:
        found.wrong_type = (path or "(root)", f"expected {expected}, got {type_name(value)}")


def _unknown(found: Decoding, path: str) -> None:
    error = f"unknown field {go_quote(path)}"
    if len(found.unknown) < MAX_STRICT_ERRORS and error not in found.unknown:
        found.unknown.append(error)
        found.unknown_paths.append(path)


def _join(path: str, key: str) -> str:
    return f"{path}.{key}" if path else key


@cache
def _schema() -> dict[str, Any]:
    return json.loads(_SCHEMA.read_text())
