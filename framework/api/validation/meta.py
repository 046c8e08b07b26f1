"""Upstream's checks of object metadata and of the label and selector types every kind uses
(``ValidateObjectMeta``, ``ValidateLabels``, ``ValidateLabelSelector``), with their paths and
messages."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from framework.api.field_errors import TOO_LONG, FieldError, forbidden, invalid, required
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
    """Name, namespace, generation, labels, annotations and owner references, as
    ``ValidateObjectMeta`` checks them (finalizers and managed fields are not checked)."""
    errors: list[FieldError] = []
    generate_name = metadata.get("generateName") or ""
    if generate_name:
        # Names are generated from it with a random suffix: a trailing dash is fine.
        masked = generate_name[:-1] + "a" if generate_name.endswith("-") else generate_name
        problems = name_check(masked)
        errors += [invalid("metadata.generateName", generate_name, m) for m in problems]
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
    generation = metadata.get("generation") or 0
    if generation < 0:
        errors.append(invalid("metadata.generation", generation, IS_NEGATIVE))
    errors += validate_labels(metadata.get("labels") or {}, "metadata.labels")
    errors += validate_annotations(metadata.get("annotations") or {}, "metadata.annotations")
    errors += _owner_references(metadata.get("ownerReferences") or [], "metadata.ownerReferences")
    return errors


IS_NEGATIVE = "must be greater than or equal to 0"
TOTAL_ANNOTATION_SIZE_LIMIT = 256 * 1024
# Kinds that may not own objects: upstream's BannedOwners, as its GroupVersionKind prints.
_BANNED_OWNERS = {("", "v1", "Event"): "/v1, Kind=Event"}


def validate_annotations(annotations: Mapping[str, Any], path: str) -> list[FieldError]:
    """``ValidateAnnotations``: keys are qualified names (in lower case), and all of them
    together fit in 256 KiB."""
    errors: list[FieldError] = []
    for key in annotations:
        errors += [invalid(path, key, m) for m in is_qualified_name(str(key).lower())]
    size = sum(len(str(k).encode()) + len(str(v).encode()) for k, v in annotations.items())
    if size > TOTAL_ANNOTATION_SIZE_LIMIT:
        detail = f"may not be more than {TOTAL_ANNOTATION_SIZE_LIMIT} bytes"
        errors.append(FieldError(TOO_LONG, path, detail=detail))
    return errors


def _owner_references(references: list[Mapping[str, Any]], path: str) -> list[FieldError]:
    """``ValidateOwnerReferences``: each reference complete, at most one controller."""
    errors: list[FieldError] = []
    first_controller = ""
    for reference in references:
        group, version = _group_version(reference.get("apiVersion") or "")
        kind = reference.get("kind") or ""
        if not version:
            detail = "version must not be empty"
            errors.append(invalid(f"{path}.apiVersion", reference.get("apiVersion") or "", detail))
        for key in ("kind", "name", "uid"):
            if not reference.get(key):
                errors.append(
                    invalid(f"{path}.{key}", reference.get(key) or "", "must not be empty")
                )
        banned = _BANNED_OWNERS.get((group, version, kind))
        if banned:
            errors.append(
                invalid(path, dict(reference), f"{banned} is disallowed from being an owner")
            )
        if reference.get("controller"):
            current = f"{kind}/{reference.get('name') or ''}"
            if first_controller:
                detail = (
                    'Only one reference can have Controller set to true. Found "true" in '
                    f"references for {first_controller} and {current}"
                )
                errors.append(invalid(path, [dict(r) for r in references], detail))
            else:
                first_controller = current
    return errors


def _group_version(api_version: str) -> tuple[str, str]:
    """``schema.ParseGroupVersion``: ``v1`` is the core group; more than one slash is no
    version at all."""
    if api_version.count("/") > 1:
        return "", ""
    group, _, version = api_version.rpartition("/")
    return group, version


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


def validate_nonnegative_field(value: int, path: str) -> list[FieldError]:
    """``ValidateNonnegativeField``: counts and durations may not be negative."""
    if value < 0:
        return [invalid(path, value, IS_NEGATIVE)]
    return []
