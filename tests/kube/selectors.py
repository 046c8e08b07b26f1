"""Label and field selectors as the API server parses them (the subset clients send)."""

from __future__ import annotations

import re
from collections.abc import Callable

from tests.kube.resources import bad_request

Predicate = Callable[[dict], bool]

_SET = re.compile(
    r"^\s*(!?)([^\s!=,()]+)\s*(?:(in|notin)\s*\(([^)]*)\)|(==|=|!=)\s*([^\s,]*))?\s*$"
)


def split_terms(text: str) -> list[str]:
    """Split at commas that are not inside a set's parentheses."""
    terms, depth, start = [], 0, 0
    for i, char in enumerate(text):
        depth += {"(": 1, ")": -1}.get(char, 0)
        if char == "," and depth == 0:
            terms.append(text[start:i])
            start = i + 1
    terms.append(text[start:])
    return [term for term in terms if term.strip()]


def label_selector(text: str | None) -> Predicate:
    """A predicate on an object's labels: =, ==, !=, in, notin, exists and !exists."""
    checks = [_label_term(term) for term in split_terms(text or "")]
    return lambda obj: all(check(obj.get("metadata", {}).get("labels") or {}) for check in checks)


def _label_term(term: str) -> Callable[[dict], bool]:
    match = _SET.match(term)
    if not match:
        raise bad_request(f"unable to parse requirement: <nil>: Invalid value: {term.strip()!r}")
    negated, key, set_op, values, op, value = match.groups()
    if set_op:
        members = {v.strip() for v in values.split(",") if v.strip()}
        if set_op == "in":
            return lambda labels: labels.get(key) in members
        return lambda labels: labels.get(key) not in members
    if op in ("=", "=="):
        return lambda labels: labels.get(key) == value
    if op == "!=":
        return lambda labels: labels.get(key) != value
    if negated:
        return lambda labels: key not in labels
    return lambda labels: key in labels


def field_selector(text: str | None, supported: tuple[str, ...]) -> Predicate:
    """A predicate on an object's selectable fields (metadata.name, .namespace, the kind's)."""
    checks = [_field_term(term.strip(), supported) for term in split_terms(text or "")]
    return lambda obj: all(check(obj) for check in checks)


def _field_term(term: str, supported: tuple[str, ...]) -> Predicate:
    for op in ("!=", "==", "="):
        if op in term:
            path, value = term.split(op, 1)
            break
    else:
        raise bad_request(f"invalid selector: '{term}'; can't understand '{term}'")
    path = path.strip()
    if path not in ("metadata.name", "metadata.namespace", *supported):
        raise bad_request(f"field label not supported: {path}")
    if op == "!=":
        return lambda obj: field_value(obj, path) != value
    return lambda obj: field_value(obj, path) == value


def field_value(obj: dict, path: str) -> str:
    """A field as the server's field set renders it: missing is the empty string."""
    current: object = obj
    for part in path.split("."):
        current = current.get(part) if isinstance(current, dict) else None
    if isinstance(current, bool):
        return str(current).lower()
    return "" if current is None else str(current)
