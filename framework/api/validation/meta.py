"""Upstream's checks of object metadata and of the label and selector types every kind uses
(``ValidateObjectMeta``, ``ValidateLabels``, ``ValidateLabelSelector``), with their paths and
messages."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from framework.api.field_errors import FieldError, forbidden, invalid, required
from framework.api.validation.content import (
    is_dns1123_label,
    is_label_value,
    is_qualified_name,
)

NameCheck = Callable[[str], list[str]]
_SELECTOR_VALUES_REQUIRED = "must be specified when `operator` is 'In' or 'NotIn'"
_SELECTOR_VALUES_FORBIDDEN = "may not be specified when `operator` is 'Exists' or 'DoesNotExist'"


def validate_object_meta(
    metadata: Mapping[str, Any], namespaced: bool, name_check: NameCheck
) -> list[FieldError]:
    """Name, namespace, labels and annotation keys, as ``ValidateObjectMeta`` checks them."""
    errors: list[FieldError] = []
    name = metadata.get("name") or ""
    if not name:
        errors.append(required("metadata.name", "name or generateName is required"))
    else:
        errors += [invalid("metadata.name", name, msg) for msg in name_check(name)]
    namespace = metadata.get("namespace") or ""
    if namespaced and namespace:
        errors += [invalid("metadata.namespace", namespace, m) for m in is_dns1123_label(namespace)]
    elif not namespaced and namespace:
        errors.append(forbidden("metadata.namespace", "not allowed on this type"))
    errors += validate_labels(metadata.get("labels") or {}, "metadata.labels")
    for key in metadata.get("annotations") or {}:
        errors += [invalid("metadata.annotations", key, m) for m in is_qualified_name(key.lower())]
    return errors


def validate_labels(labels: Mapping[str, Any], path: str) -> list[FieldError]:
    """Every key a qualified name and every value a label value; errors name the map's path."""
    errors: list[FieldError] = []
    for key, value in labels.items():
        errors += validate_label_name(str(key), path)
        errors += [invalid(path, value, msg) for msg in is_label_value(str(value))]
    return errors


def validate_label_name(name: str, path: str) -> list[FieldError]:
    return [invalid(path, name, msg) for msg in is_qualified_name(name)]


def validate_label_selector(selector: Mapping[str, Any] | None, path: str) -> list[FieldError]:
    """``metav1validation.ValidateLabelSelector`` with invalid label values refused."""
    if selector is None:
        return []
    errors = validate_labels(selector.get("matchLabels") or {}, f"{path}.matchLabels")
    for index, requirement in enumerate(selector.get("matchExpressions") or []):
        where = f"{path}.matchExpressions[{index}]"
        errors += _selector_requirement(requirement, where)
    return errors


def _selector_requirement(requirement: Mapping[str, Any], path: str) -> list[FieldError]:
    errors: list[FieldError] = []
    operator = requirement.get("operator") or ""
    values = requirement.get("values") or []
    if operator in ("In", "NotIn"):
        if not values:
            errors.append(required(f"{path}.values", _SELECTOR_VALUES_REQUIRED))
    elif operator in ("Exists", "DoesNotExist"):
        if values:
            errors.append(forbidden(f"{path}.values", _SELECTOR_VALUES_FORBIDDEN))
    else:
        errors.append(invalid(f"{path}.operator", operator, "not a valid selector operator"))
    errors += validate_label_name(requirement.get("key") or "", f"{path}.key")
    for index, value in enumerate(values):
        errors += [invalid(f"{path}.values[{index}]", value, m) for m in is_label_value(str(value))]
    return errors
