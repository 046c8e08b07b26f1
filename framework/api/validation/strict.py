"""Strict field decoding, as kube-apiserver decodes a request body with
``fieldValidation=Strict`` (what ``kubectl apply`` and ``kubectl create`` ask for by default).

A field the kind's schema does not have is an error, not silently dropped: a typo such as
``requets`` would otherwise make a pod with no requests. Names match case-sensitively, and the
path is written as upstream's decoder writes it (``spec.containers[0].resources.requets``: keys
joined with dots, list positions in brackets, map keys as keys). The schema is the complete
v1.36 one of each kind (``known_fields.json``, from the official client), so valid fields the
engine does not read, such as ``livenessProbe``, are accepted.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from functools import cache
from pathlib import Path
from typing import Any

from framework.api.field_errors import go_quote

_SCHEMA = Path(__file__).with_name("known_fields.json")
# Upstream's decoder stops collecting strict errors at this many.
MAX_STRICT_ERRORS = 100


def unknown_fields(kind: str, manifest: Mapping[str, Any]) -> list[str]:
    """Every field of the manifest its kind does not define, as ``unknown field "path"``
    (at most 100, without repeats, in document order); empty for a kind without a schema."""
    schema = _schema()
    root = schema["kinds"].get(kind)
    if root is None:
        return []
    errors: list[str] = []
    _walk(schema["types"], root, manifest, "", errors)
    return errors


def strict_decoding_error(errors: list[str]) -> str:
    """The decoder's message for its strict errors, as the API server returns it."""
    return "strict decoding error: " + ", ".join(errors)


def _walk(types: dict[str, Any], type_name: str, value: Any, path: str, errors: list[str]) -> None:
    """Check ``value`` against ``type_name``: a model name, or ``[]``/``{}`` and an inner type."""
    if type_name.startswith("[]"):
        if isinstance(value, list):
            for index, item in enumerate(value):
                _walk(types, type_name[2:], item, f"{path}[{index}]", errors)
        return
    if not isinstance(value, Mapping):
        return  # a wrong type is the parser's to report
    if type_name.startswith("{}"):
        for key, item in value.items():
            _walk(types, type_name[2:], item, _join(path, str(key)), errors)
        return
    fields = types[type_name]
    for key, item in value.items():
        name = str(key)
        if name not in fields:
            _record(errors, f"unknown field {go_quote(_join(path, name))}")
        elif fields[name] is not None:
            _walk(types, fields[name], item, _join(path, name), errors)


def _record(errors: list[str], error: str) -> None:
    if len(errors) < MAX_STRICT_ERRORS and error not in errors:
        errors.append(error)


def _join(path: str, key: str) -> str:
    return f"{path}.{key}" if path else key


@cache
def _schema() -> dict[str, Any]:
    return json.loads(_SCHEMA.read_text())
