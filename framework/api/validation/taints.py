"""Upstream's checks of tolerations (``ValidateTolerations``) and node taints
(``validateNodeTaints``), with their paths and messages."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from framework.api.field_errors import DUPLICATE, FieldError, invalid, not_supported, required
from framework.api.validation.content import is_label_value
from framework.api.validation.meta import validate_label_name

TAINT_EFFECTS = ("NoSchedule", "PreferNoSchedule", "NoExecute")
Manifest = Mapping[str, Any]


def validate_tolerations(tolerations: list[Manifest], path: str) -> list[FieldError]:
    """``ValidateTolerations`` with the alpha comparison operators (Lt, Gt) off, as in v1.36."""
    errors: list[FieldError] = []
    for index, toleration in enumerate(tolerations):
        where = f"{path}[{index}]"
        key = toleration.get("key") or ""
        operator = toleration.get("operator") or ""
        value = toleration.get("value") or ""
        effect = toleration.get("effect") or ""
        if key:
            errors += validate_label_name(key, f"{where}.key")
        if not key and operator != "Exists":
            errors.append(invalid(f"{where}.operator", operator, _EMPTY_KEY))
        if toleration.get("tolerationSeconds") is not None and effect != "NoExecute":
            errors.append(invalid(f"{where}.effect", effect, _SECONDS_NEED_NO_EXECUTE))
        if operator in ("Equal", ""):
            problems = is_label_value(value)
            if problems:
                errors.append(invalid(f"{where}.operator", value, ";".join(problems)))
        elif operator == "Exists":
            if value:
                errors.append(invalid(f"{where}.operator", value, _EXISTS_WITH_VALUE))
        elif operator in ("Lt", "Gt"):
            supported = ("Equal", "Exists", "Lt", "Gt")
            errors.append(not_supported(f"{where}.operator", operator, supported))
        else:
            errors.append(not_supported(f"{where}.operator", operator, ("Equal", "Exists")))
        if effect and effect not in TAINT_EFFECTS:
            errors.append(not_supported(f"{where}.effect", effect, TAINT_EFFECTS))
    return errors


_EMPTY_KEY = (
    'operator must be Exists when `key` is empty, which means "match all values and all keys"'
)
_SECONDS_NEED_NO_EXECUTE = "effect must be 'NoExecute' when `tolerationSeconds` is set"
_EXISTS_WITH_VALUE = "value must be empty when `operator` is 'Exists'"


def validate_node_taints(taints: list[Manifest], path: str) -> list[FieldError]:
    """``validateNodeTaints``: key, value and effect, unique by key and effect."""
    errors: list[FieldError] = []
    keys_by_effect: dict[str, set[str]] = {}
    for index, taint in enumerate(taints):
        where = f"{path}[{index}]"
        key = taint.get("key") or ""
        value = taint.get("value") or ""
        effect = taint.get("effect") or ""
        errors += validate_label_name(key, f"{where}.key")
        problems = is_label_value(value)
        if problems:
            errors.append(invalid(f"{where}.value", value, ";".join(problems)))
        if not effect:
            errors.append(required(f"{where}.effect"))
        elif effect not in TAINT_EFFECTS:
            errors.append(not_supported(f"{where}.effect", effect, TAINT_EFFECTS))
        if key in keys_by_effect.get(effect, ()):
            errors.append(FieldError(DUPLICATE, where, _internal_taint(taint), _UNIQUE_TAINTS))
            continue
        keys_by_effect.setdefault(effect, set()).add(key)
    return errors


_UNIQUE_TAINTS = "taints must be unique by key and effect pair"


def _internal_taint(taint: Manifest) -> dict[str, Any]:
    """The taint as upstream shows it in the error: its internal type, JSON-encoded without
    field tags (``{"Key":"a","Value":"","Effect":"NoSchedule","TimeAdded":null}``)."""
    return {
        "Key": taint.get("key") or "",
        "Value": taint.get("value") or "",
        "Effect": taint.get("effect") or "",
        "TimeAdded": taint.get("timeAdded"),
    }
