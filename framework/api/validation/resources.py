"""Upstream's checks of resource lists (``validateResourceRequirements``,
``ValidateResourceQuantityValue``), shared by containers, pod-level resources, overhead and
node capacity. Resource maps are walked in key order, where upstream's Go maps have none."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from framework.api.field_errors import FieldError, forbidden, invalid, not_supported, required
from framework.api.quantity import Quantity, QuantityError
from framework.api.resource_names import (
    RESOURCE_CPU,
    RESOURCE_MEMORY,
    SUPPORTED_POD_LEVEL_RESOURCES,
    is_hugepage_resource_name,
    is_native_resource,
    is_overcommit_allowed,
    is_supported_pod_level_resource,
)
from framework.api.resources import is_extended_resource_name
from framework.api.validation.content import is_qualified_name

IS_NEGATIVE = "must be greater than or equal to 0"
IS_NOT_INTEGER = "must be an integer"
_STANDARD_CONTAINER_RESOURCES = {RESOURCE_CPU, RESOURCE_MEMORY, "ephemeral-storage"}
_STANDARD_RESOURCES = _STANDARD_CONTAINER_RESOURCES | {
    "requests.cpu",
    "requests.memory",
    "requests.ephemeral-storage",
    "limits.cpu",
    "limits.memory",
    "limits.ephemeral-storage",
    "pods",
    "resourcequotas",
    "services",
    "replicationcontrollers",
    "secrets",
    "configmaps",
    "persistentvolumeclaims",
    "storage",
    "requests.storage",
    "services.nodeports",
    "services.loadbalancers",
}
# Counted in whole units (upstream's ``IsIntegerResourceName``).
_INTEGER_RESOURCES = {
    "pods",
    "resourcequotas",
    "services",
    "replicationcontrollers",
    "secrets",
    "configmaps",
    "persistentvolumeclaims",
    "services.nodeports",
    "services.loadbalancers",
}


def validate_resource_requirements(
    requirements: Mapping[str, Any], path: str, *, pod_level: bool = False
) -> list[FieldError]:
    """``validateResourceRequirements``: names, quantities, and requests within limits."""
    errors: list[FieldError] = []
    limits = quantities_in_key_order(requirements.get("limits"), f"{path}.limits")
    requests = quantities_in_key_order(requirements.get("requests"), f"{path}.requests")
    check_name = _pod_resource_name if pod_level else _container_resource_name
    for name, quantity in limits.items():
        where = f"{path}.limits[{name}]"
        errors += check_name(name, where)
        errors += validate_resource_quantity_value(name, quantity, where)
    for name, quantity in requests.items():
        where = f"{path}.requests[{name}]"
        errors += check_name(name, where)
        errors += validate_resource_quantity_value(name, quantity, where)
        limit = limits.get(name)
        if limit is not None:
            if quantity.cmp(limit) != 0 and not is_overcommit_allowed(name):
                detail = f"must be equal to {name} limit of {limit}"
                errors.append(invalid(f"{path}.requests", str(quantity), detail))
            elif quantity.cmp(limit) > 0:
                detail = f"must be less than or equal to {name} limit of {limit}"
                errors.append(invalid(f"{path}.requests", str(quantity), detail))
        elif not is_overcommit_allowed(name):
            detail = "Limit must be set for non overcommitable resources"
            errors.append(required(f"{path}.limits", detail))
    names = set(limits) | set(requests)
    if any(is_hugepage_resource_name(n) for n in names) and not names & {
        RESOURCE_CPU,
        RESOURCE_MEMORY,
    }:
        errors.append(forbidden(path, "HugePages require cpu or memory"))
    return errors


class QuantityDecodeError(ValueError):
    """A quantity the parser did not read (in a claim template) that does not parse: JSON
    decoding would refuse the object with this problem at this path."""

    def __init__(self, path: str, problem: str) -> None:
        super().__init__(f"{path}: {problem}")
        self.path = path
        self.problem = problem


def quantities_in_key_order(values: Any, path: str) -> dict[str, Quantity]:
    """A resource list in key order; QuantityDecodeError for a quantity that does not parse."""
    if not isinstance(values, Mapping):
        return {}
    quantities: dict[str, Quantity] = {}
    for name, value in sorted(values.items(), key=lambda item: str(item[0])):
        try:
            quantities[str(name)] = Quantity() if value is None else Quantity.parse(_trimmed(value))
        except QuantityError as err:
            raise QuantityDecodeError(f"{path}.{name}", str(err)) from None
    return quantities


def parse_quantity(value: Any, path: str) -> Quantity:
    """One quantity; QuantityDecodeError when it does not parse."""
    try:
        return Quantity.parse(_trimmed(value))
    except QuantityError as err:
        raise QuantityDecodeError(path, str(err)) from None


def _trimmed(value: Any) -> Any:
    return value.strip() if isinstance(value, str) else value


def validate_resource_quantity_value(name: str, quantity: Quantity, path: str) -> list[FieldError]:
    """``ValidateResourceQuantityValue``."""
    errors: list[FieldError] = []
    if quantity.sign() < 0:
        errors.append(invalid(path, str(quantity), IS_NEGATIVE))
    if _is_integer_resource(name) and quantity.milli_value() % 1000 != 0:
        errors.append(invalid(path, str(quantity), IS_NOT_INTEGER))
    return errors


def _is_integer_resource(name: str) -> bool:
    return name in _INTEGER_RESOURCES or is_extended_resource_name(name)


def _resource_name(name: str, path: str) -> list[FieldError]:
    errors = [invalid(path, name, msg) for msg in is_qualified_name(name)]
    if errors:
        return errors
    if "/" not in name and name not in _STANDARD_RESOURCES and not _is_quota_hugepages(name):
        errors.append(invalid(path, name, "must be a standard resource type or fully qualified"))
    return errors


def _is_quota_hugepages(name: str) -> bool:
    prefixes = ("hugepages-", "requests.hugepages-", "limits.hugepages-")
    return name.startswith(prefixes)


def _container_resource_name(name: str, path: str) -> list[FieldError]:
    errors = _resource_name(name, path)
    if "/" not in name:
        if name not in _STANDARD_CONTAINER_RESOURCES and not is_hugepage_resource_name(name):
            errors.append(invalid(path, name, "must be a standard resource for containers"))
    elif not is_native_resource(name) and not is_extended_resource_name(name):
        errors.append(invalid(path, name, "doesn't follow extended resource name standard"))
    return errors


def _pod_resource_name(name: str, path: str) -> list[FieldError]:
    errors = _resource_name(name, path)
    if errors:
        return errors
    if not is_supported_pod_level_resource(name):
        supported = sorted(SUPPORTED_POD_LEVEL_RESOURCES)
        return [not_supported(path, name, supported)]
    return []
