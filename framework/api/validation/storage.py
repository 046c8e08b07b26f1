"""Upstream's ``ValidateStorageClass`` and ``ValidateCSINode`` (``pkg/apis/storage/validation``)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from framework.api.field_errors import (
    TOO_LONG,
    FieldError,
    duplicate,
    invalid,
    not_supported,
    required,
)
from framework.api.validation.content import is_dns1123_subdomain, is_qualified_name
from framework.api.validation.meta import validate_label_name, validate_object_meta

Manifest = Mapping[str, Any]

_RECLAIM_POLICIES = ("Delete", "Retain")
_VOLUME_BINDING_MODES = ("Immediate", "WaitForFirstConsumer")
_MAX_PARAMETERS = 512
_MAX_PARAMETERS_SIZE = 256 * 1024
_CSI_NODE_ID_MAX_LENGTH = 256
_CSI_DRIVER_NAME_MAX_LENGTH = 63
IS_NEGATIVE = "must be greater than or equal to 0"


def validate_storage_class(manifest: Manifest) -> list[FieldError]:
    errors = validate_object_meta(manifest.get("metadata") or {}, False, is_dns1123_subdomain)
    provisioner = manifest.get("provisioner") or ""
    if not provisioner:
        errors.append(required("provisioner"))
    else:
        lowered = provisioner.lower()
        errors += [invalid("provisioner", lowered, m) for m in is_qualified_name(lowered)]
    errors += _parameters(manifest.get("parameters") or {}, "parameters")
    policy = manifest.get("reclaimPolicy")
    if policy and policy not in _RECLAIM_POLICIES:
        errors.append(not_supported("reclaimPolicy", policy, _RECLAIM_POLICIES))
    mode = manifest.get("volumeBindingMode")  # absent: defaulted to Immediate, as here
    if mode is not None and mode not in _VOLUME_BINDING_MODES:
        errors.append(not_supported("volumeBindingMode", mode, _VOLUME_BINDING_MODES))
    errors += _allowed_topologies(manifest.get("allowedTopologies") or [], "allowedTopologies")
    return errors


def _parameters(parameters: Mapping[str, Any], path: str) -> list[FieldError]:
    if len(parameters) > _MAX_PARAMETERS:
        return [_too_long(path, _MAX_PARAMETERS)]
    errors: list[FieldError] = []
    size = 0
    for key, value in parameters.items():
        if not key:
            errors.append(invalid(path, key, "field can not be empty."))
        size += len(str(key)) + len(str(value))
    if size > _MAX_PARAMETERS_SIZE:
        errors.append(_too_long(path, _MAX_PARAMETERS_SIZE))
    return errors


def _too_long(path: str, limit: int) -> FieldError:
    return FieldError(TOO_LONG, path, detail=f"may not be more than {limit} bytes")


def _allowed_topologies(terms: list[Manifest], path: str) -> list[FieldError]:
    """``ValidateTopologySelectorTerm`` for each term, and no term given twice."""
    errors: list[FieldError] = []
    seen: list[dict[str, frozenset[str]]] = []
    for index, term in enumerate(terms):
        where = f"{path}[{index}].matchLabelExpressions"
        expressions: dict[str, frozenset[str]] = {}
        for expr_index, requirement in enumerate(term.get("matchLabelExpressions") or []):
            expr_path = f"{where}[{expr_index}]"
            key = requirement.get("key") or ""
            values = requirement.get("values") or []
            if not values:
                errors.append(required(f"{expr_path}.values"))
            for value_index, value in enumerate(values):
                if value in values[:value_index]:
                    errors.append(duplicate(f"{expr_path}.values[{value_index}]", value))
            errors += validate_label_name(key, f"{expr_path}.key")
            if key in expressions:
                errors.append(duplicate(f"{expr_path}.key", key))
            expressions[key] = frozenset(values)
        if expressions in seen:
            errors.append(duplicate(where, ""))
        seen.append(expressions)
    return errors


def validate_csi_node(manifest: Manifest) -> list[FieldError]:
    errors = validate_object_meta(manifest.get("metadata") or {}, False, is_dns1123_subdomain)
    names: set[str] = set()
    drivers = (manifest.get("spec") or {}).get("drivers") or []
    for index, driver in enumerate(drivers):
        errors += _csi_node_driver(driver, names, f"spec.drivers[{index}]")
    return errors


def _csi_node_driver(driver: Manifest, names: set[str], path: str) -> list[FieldError]:
    name = driver.get("name") or ""
    errors = validate_csi_driver_name(name, f"{path}.name")
    node_id = driver.get("nodeID") or ""
    if not node_id:
        errors.append(required(f"{path}.nodeID"))
    if len(node_id) > _CSI_NODE_ID_MAX_LENGTH:
        detail = f"must be {_CSI_NODE_ID_MAX_LENGTH} characters or less"
        errors.append(invalid(f"{path}.nodeID", node_id, detail))
    count = (driver.get("allocatable") or {}).get("count")
    if count is not None and count < 0:
        errors.append(invalid(f"{path}.allocatable.count", count, IS_NEGATIVE))
    if name in names:
        errors.append(duplicate(f"{path}.name", name))
    names.add(name)
    keys: set[str] = set()
    for key in driver.get("topologyKeys") or []:
        if not key:
            errors.append(required(path))
        if key in keys:
            errors.append(duplicate(path, key))
        keys.add(key)
        errors += [invalid(path, key, msg) for msg in is_qualified_name(key)]
    return errors


def validate_csi_driver_name(name: str, path: str) -> list[FieldError]:
    """``ValidateCSIDriverName``: a DNS subdomain, any case, at most 63 characters."""
    if not name:
        return [required(path)]
    errors: list[FieldError] = []
    if len(name) > _CSI_DRIVER_NAME_MAX_LENGTH:
        errors.append(_too_long(path, _CSI_DRIVER_NAME_MAX_LENGTH))
    errors += [invalid(path, name, msg) for msg in is_dns1123_subdomain(name.lower())]
    return errors
