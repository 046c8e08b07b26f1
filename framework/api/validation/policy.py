"""Upstream's ``ValidatePodDisruptionBudget`` (``pkg/apis/policy/validation``)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from framework.api.field_errors import FieldError, invalid, not_supported
from framework.api.validation.content import is_valid_percent
from framework.api.validation.meta import validate_label_selector

_EVICTION_POLICIES = ("AlwaysAllow", "IfHealthyBudget")
IS_NEGATIVE = "must be greater than or equal to 0"


def validate_pod_disruption_budget(manifest: Mapping[str, Any]) -> list[FieldError]:
    """The spec only: a budget's metadata gets the checks every object gets."""
    spec = manifest.get("spec") or {}
    errors: list[FieldError] = []
    min_available = spec.get("minAvailable")
    max_unavailable = spec.get("maxUnavailable")
    if min_available is not None and max_unavailable is not None:
        detail = "minAvailable and maxUnavailable cannot be both set"
        errors.append(invalid("spec", _internal_spec(spec), detail))
    for key in ("minAvailable", "maxUnavailable"):
        if spec.get(key) is not None:
            errors += _positive_int_or_percent(spec[key], f"spec.{key}")
    errors += validate_label_selector(spec.get("selector"), "spec.selector")
    policy = spec.get("unhealthyPodEvictionPolicy")
    if policy is not None and policy not in _EVICTION_POLICIES:
        path = "spec.unhealthyPodEvictionPolicy"
        errors.append(not_supported(path, policy, _EVICTION_POLICIES))
    return errors


def _positive_int_or_percent(value: int | str, path: str) -> list[FieldError]:
    """``ValidatePositiveIntOrPercent`` and ``IsNotMoreThan100Percent``."""
    if isinstance(value, str):
        problems = is_valid_percent(value)
        if problems:
            return [invalid(path, value, msg) for msg in problems]
        if int(value[:-1]) > 100:
            return [invalid(path, value, "must not be greater than 100%")]
        return []
    if value < 0:
        return [invalid(path, value, IS_NEGATIVE)]
    return []


def _internal_spec(spec: Mapping[str, Any]) -> dict[str, Any]:
    """The spec as upstream shows it in the error: its internal type, JSON-encoded with the
    Go field names (the selector keeps its own JSON names)."""
    return {
        "MinAvailable": spec.get("minAvailable"),
        "Selector": spec.get("selector"),
        "MaxUnavailable": spec.get("maxUnavailable"),
        "UnhealthyPodEvictionPolicy": spec.get("unhealthyPodEvictionPolicy"),
    }
