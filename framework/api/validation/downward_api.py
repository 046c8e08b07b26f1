"""Upstream's checks of what the downward API exposes (``validateObjectFieldSelector``,
``validateContainerResourceFieldSelector``), shared by environment variables and downward-API
volume files: which pod fields, which container resources and in which units."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from framework.api.field_errors import FieldError, invalid, not_supported, required
from framework.api.quantity import Quantity
from framework.api.validation.content import is_qualified_name
from framework.api.validation.resources import parse_quantity

Manifest = Mapping[str, Any]

_DOWNWARD_API_LABELS = {
    "metadata.annotations",
    "metadata.labels",
    "metadata.name",
    "metadata.namespace",
    "metadata.uid",
    "spec.nodeName",
    "spec.restartPolicy",
    "spec.serviceAccountName",
    "spec.schedulerName",
    "status.phase",
    "status.hostIP",
    "status.hostIPs",
    "status.podIP",
    "status.podIPs",
}
_RESOURCE_FIELD_PATHS = (
    "limits.cpu",
    "limits.ephemeral-storage",
    "limits.memory",
    "requests.cpu",
    "requests.ephemeral-storage",
    "requests.memory",
)
_HUGEPAGES_PREFIXES = ("limits.hugepages-", "requests.hugepages-")
_SIZE_DIVISORS = ("1", "1k", "1M", "1G", "1T", "1P", "1E", "1Ki", "1Mi", "1Gi", "1Ti", "1Pi", "1Ei")
_SIZE_DIVISORS_SHOWN = ", ".join(_SIZE_DIVISORS)


def validate_object_field_selector(
    selector: Manifest, allowed: tuple[str, ...], path: str
) -> list[FieldError]:
    """``validateObjectFieldSelector``: a field of the pod's, one of ``allowed`` or a label's
    or an annotation's value. ``apiVersion`` defaults to ``v1``."""
    version = selector.get("apiVersion") or "v1"
    field_path = selector.get("fieldPath") or ""
    if not field_path:
        return [required(f"{path}.fieldPath")]
    if version != "v1":
        detail = f"error converting fieldPath: unsupported pod version: {version}"
        return [invalid(f"{path}.fieldPath", field_path, detail)]
    subscripted = _split_subscripted(field_path)
    if subscripted is not None:
        base, key = subscripted
        if base == "metadata.annotations":
            return [invalid(path, key.lower(), msg) for msg in is_qualified_name(key.lower())]
        if base == "metadata.labels":
            return [invalid(path, key, msg) for msg in is_qualified_name(key)]
        detail = f"error converting fieldPath: field label does not support subscript: {field_path}"
        return [invalid(f"{path}.fieldPath", field_path, detail)]
    if field_path == "spec.host":
        field_path = "spec.nodeName"
    if field_path not in _DOWNWARD_API_LABELS:
        detail = f"error converting fieldPath: field label not supported: {field_path}"
        return [invalid(f"{path}.fieldPath", field_path, detail)]
    if field_path not in allowed:
        return [not_supported(f"{path}.fieldPath", field_path, allowed)]
    return []


def _split_subscripted(field_path: str) -> tuple[str, str] | None:
    """``fieldpath.SplitMaybeSubscriptedPath``: ``metadata.labels['app']``."""
    if not field_path.endswith("']"):
        return None
    base, found, key = field_path[: -len("']")].partition("['")
    if not found or not base:
        return None
    return base, key


def validate_resource_field_selector(
    selector: Manifest, path: str, *, in_volume: bool
) -> list[FieldError]:
    """``validateContainerResourceFieldSelector``: a container's request or limit; a volume
    names the container, an environment variable is its container's."""
    errors: list[FieldError] = []
    resource = selector.get("resource") or ""
    if in_volume and not selector.get("containerName"):
        errors.append(required(f"{path}.containerName"))
    elif not resource:
        errors.append(required(f"{path}.resource"))
    elif resource not in _RESOURCE_FIELD_PATHS and not resource.startswith(_HUGEPAGES_PREFIXES):
        errors.append(not_supported(f"{path}.resource", resource, _RESOURCE_FIELD_PATHS))
    divisor = selector.get("divisor")
    if divisor is not None:
        errors += _divisor(resource, parse_quantity(divisor, f"{path}.divisor"), f"{path}.divisor")
    return errors


def _divisor(resource: str, divisor: Quantity, path: str) -> list[FieldError]:
    """``validateContainerResourceDivisor``: units the downward API can divide by."""
    if divisor.is_zero():
        return []
    shown = str(divisor)
    errors: list[FieldError] = []
    if resource in ("limits.cpu", "requests.cpu") and shown not in ("1m", "1"):
        detail = "only divisor's values 1m and 1 are supported with the cpu resource"
        errors.append(invalid(path, resource, detail))
    kinds = {
        "limits.memory": "memory",
        "requests.memory": "memory",
        "limits.ephemeral-storage": "local ephemeral storage",
        "requests.ephemeral-storage": "local ephemeral storage",
    }
    kind = kinds.get(resource) or ("hugepages" if resource.startswith(_HUGEPAGES_PREFIXES) else "")
    if kind and shown not in _SIZE_DIVISORS:
        detail = (
            f"only divisor's values {_SIZE_DIVISORS_SHOWN} are supported with the {kind} resource"
        )
        errors.append(invalid(path, resource, detail))
    return errors
