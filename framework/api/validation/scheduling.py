"""Upstream's ``ValidatePriorityClass`` (``pkg/apis/scheduling/validation``)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from framework.api.field_errors import FieldError, forbidden
from framework.api.validation.content import is_dns1123_subdomain
from framework.api.validation.meta import validate_object_meta
from framework.api.validation.pod import validate_preemption_policy

SYSTEM_PRIORITY_CLASS_PREFIX = "system-"
HIGHEST_USER_DEFINABLE_PRIORITY = 1_000_000_000
SYSTEM_PRIORITY_CLASSES = {
    "system-node-critical": 2_000_001_000,
    "system-cluster-critical": 2_000_000_000,
}
"""The classes every cluster has (created by the API server at start-up), with their values;
neither is a global default."""


def validate_priority_class(manifest: Mapping[str, Any]) -> list[FieldError]:
    """Names with the ``system-`` prefix are reserved for the system's own classes; other
    classes may not reach their values."""
    metadata = manifest.get("metadata") or {}
    name = metadata.get("name") or ""
    value = manifest.get("value") or 0
    errors = validate_object_meta(metadata, False, is_dns1123_subdomain)
    if name.startswith(SYSTEM_PRIORITY_CLASS_PREFIX):
        problem = _system_class_problem(name, value, bool(manifest.get("globalDefault")))
        if problem:
            detail = (
                f"priority class names with '{SYSTEM_PRIORITY_CLASS_PREFIX}' prefix are reserved "
                f"for system use only. error: {problem}"
            )
            errors.append(forbidden("metadata.name", detail))
    elif value > HIGHEST_USER_DEFINABLE_PRIORITY:
        detail = (
            f"maximum allowed value of a user defined priority is {HIGHEST_USER_DEFINABLE_PRIORITY}"
        )
        errors.append(forbidden("value", detail))
    if manifest.get("preemptionPolicy") is not None:
        errors += validate_preemption_policy(manifest["preemptionPolicy"], "preemptionPolicy")
    return errors


def _system_class_problem(name: str, value: int, global_default: bool) -> str:
    """``IsKnownSystemPriorityClass``'s error, or "" for a system class as the system has it."""
    if name not in SYSTEM_PRIORITY_CLASSES:
        return f"{name} is not a known system priority class"
    if SYSTEM_PRIORITY_CLASSES[name] != value:
        return f"value of {name} PriorityClass must be {SYSTEM_PRIORITY_CLASSES[name]}"
    if global_default:
        return f"globalDefault of {name} PriorityClass must be false"
    return ""
