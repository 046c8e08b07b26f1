"""Upstream's ``ValidateNode``: metadata, taints, capacity and allocatable quantities, and
declared features, with upstream's field paths (taints are reported under
``metadata.taints``, as upstream does, and resources as ``status.capacity.cpu``)."""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from framework.api.field_errors import FieldError, duplicate, invalid
from framework.api.validation.content import is_dns1123_subdomain
from framework.api.validation.meta import validate_object_meta
from framework.api.validation.resources import (
    quantities_in_key_order,
    validate_resource_quantity_value,
)
from framework.api.validation.taints import validate_node_taints

_FEATURE_NAME = re.compile(r"[A-Z][a-zA-Z0-9]*(/[a-zA-Z][a-zA-Z0-9]*)*")
_FEATURE_NAME_MAX_LENGTH = 253


def validate_node(manifest: Mapping[str, Any]) -> list[FieldError]:
    """Every problem kube-apiserver would report creating this node, in upstream's order."""
    spec = manifest.get("spec") or {}
    status = manifest.get("status") or {}
    errors = validate_object_meta(manifest.get("metadata") or {}, False, is_dns1123_subdomain)
    errors += validate_node_taints(spec.get("taints") or [], "metadata.taints")
    # Defaulting comes before validation: a node without allocatable gets its capacity's
    # (SetDefaults_NodeStatus), so a bad capacity is reported under both.
    allocatable = status.get("allocatable")
    if allocatable is None:
        allocatable = status.get("capacity")
    for section, resources in (("capacity", status.get("capacity")), ("allocatable", allocatable)):
        where = f"status.{section}"
        for name, quantity in quantities_in_key_order(resources, where).items():
            errors += validate_resource_quantity_value(name, quantity, f"{where}.{name}")
    errors += _declared_features(status.get("declaredFeatures") or [], "status.declaredFeatures")
    return errors


def _declared_features(features: list[str], path: str) -> list[FieldError]:
    """``validateNodeDeclaredFeatures``: well-formed names, sorted, without repeats."""
    errors: list[FieldError] = []
    for index, feature in enumerate(features):
        problem = _feature_name_problem(feature)
        if problem:
            errors.append(invalid(f"{path}[{index}]", feature, problem))
        if index + 1 < len(features):
            following = features[index + 1]
            if feature == following:
                errors.append(duplicate(f"{path}[{index + 1}]", following))
            elif feature > following:
                detail = "list must be sorted alphabetically"
                errors.append(invalid(f"{path}[{index + 1}]", following, detail))
    return errors


def _feature_name_problem(name: str) -> str:
    if len(name) > _FEATURE_NAME_MAX_LENGTH:
        return (
            f'invalid feature name "{name}": must be no more than '
            f"{_FEATURE_NAME_MAX_LENGTH} characters"
        )
    if not _FEATURE_NAME.fullmatch(name):
        return (
            f'invalid feature name "{name}": must start with an UpperCamelCase segment, with '
            "subsequent segments separated by '/' (e.g., MyFeature or MyFeature/mySubFeature), "
            "and contain only alphanumeric characters and slashes"
        )
    return ""
