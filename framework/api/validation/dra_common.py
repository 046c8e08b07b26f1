"""Checks shared by the resource.k8s.io kinds (``pkg/apis/resource/validation``): the list,
set and map helpers with their size limits, and the names devices, attributes, pools and
drivers must have."""

from __future__ import annotations

from collections.abc import Callable, Hashable, Mapping, Sequence
from typing import Any, TypeVar

from framework.api.field_errors import (
    TOO_LONG,
    TOO_MANY,
    FieldError,
    duplicate,
    invalid,
    not_supported,
    required,
)
from framework.api.validation.content import (
    is_dns1123_label,
    is_dns1123_subdomain,
    is_label_value,
    regex_error,
)
from framework.api.validation.meta import validate_label_name

Manifest = Mapping[str, Any]
T = TypeVar("T")
ItemCheck = Callable[[T, str], list[FieldError]]

DRIVER_NAME_MAX_LENGTH = 63
POOL_NAME_MAX_LENGTH = 253
DEVICE_MAX_DOMAIN_LENGTH = 63
DEVICE_MAX_ID_LENGTH = 32
ATTRIBUTE_AND_CAPACITY_MAX_KEY_LENGTH = DEVICE_MAX_DOMAIN_LENGTH + 1 + DEVICE_MAX_ID_LENGTH
BINDING_CONDITIONS_MAX_SIZE = 4
DEVICE_TAINT_EFFECTS = ("NoExecute", "NoSchedule", "None")  # sorted, as upstream lists them
_C_IDENTIFIER_FMT = "[A-Za-z_][A-Za-z0-9_]*"
_C_IDENTIFIER_MSG = (
    "a valid C identifier must start with alphabetic character or '_', followed by a string "
    "of alphanumeric characters or '_'"
)


def too_long(path: str, limit: int) -> FieldError:
    """``field.TooLong``: the value itself is left out."""
    unit = "byte" if limit == 1 else "bytes"
    return FieldError(TOO_LONG, path, detail=f"may not be more than {limit} {unit}")


def too_many(path: str, count: int, limit: int) -> FieldError:
    unit = "item" if limit == 1 else "items"
    return FieldError(TOO_MANY, path, count, f"must have at most {limit} {unit}")


def validate_slice(
    items: Sequence[T], max_size: int, check: ItemCheck, path: str
) -> list[FieldError]:
    """Each item checked; too many items is the only error (upstream guards against huge
    lists that way). A negative ``max_size`` means no limit."""
    if 0 <= max_size < len(items):
        return [too_many(path, len(items), max_size)]
    errors: list[FieldError] = []
    for index, item in enumerate(items):
        errors += check(item, f"{path}[{index}]")
    return errors


def validate_set(
    items: Sequence[T],
    max_size: int,
    check: ItemCheck,
    key: Callable[[T], Hashable],
    path: str,
) -> list[FieldError]:
    """``validate_slice``, then every item whose key an earlier item has is a duplicate."""
    if 0 <= max_size < len(items):
        return [too_many(path, len(items), max_size)]
    errors = validate_slice(items, -1, check, path)
    seen: set[Hashable] = set()
    for index, item in enumerate(items):
        item_key = key(item)
        if item_key in seen:
            errors.append(duplicate(f"{path}[{index}]", item_key))
        seen.add(item_key)
    return errors


def validate_map(
    values: Mapping[str, T],
    max_size: int,
    truncate_key_length: int,
    check_key: Callable[[str, str], list[FieldError]],
    check_item: ItemCheck,
    path: str,
) -> list[FieldError]:
    """Keys and values of a map, walked in key order (Go's maps have none); keys too long
    to show are cut in the middle in the paths of their values' errors."""
    if 0 <= max_size < len(values):
        return [too_many(path, len(values), max_size)]
    errors: list[FieldError] = []
    for key in sorted(values):
        errors += check_key(key, path)
        errors += check_item(values[key], f"{path}[{_truncated(key, truncate_key_length)}]")
    return errors


def _truncated(text: str, limit: int) -> str:
    limit = max(limit, 16)
    if len(text) <= limit:
        return text
    remaining = limit - 3
    return text[: (remaining + 1) // 2] + "..." + text[len(text) - remaining // 2 :]


def validate_driver_name(name: str, path: str) -> list[FieldError]:
    """A driver name is checked as a CSI driver's: a DNS subdomain in any case, 63 at most."""
    if not name:
        return [required(path)]
    errors: list[FieldError] = []
    if len(name) > DRIVER_NAME_MAX_LENGTH:
        errors.append(too_long(path, DRIVER_NAME_MAX_LENGTH))
    errors += [invalid(path, name, msg) for msg in is_dns1123_subdomain(name.lower())]
    return errors


def validate_pool_name(name: str, path: str) -> list[FieldError]:
    """One or more DNS subdomains separated by slashes."""
    if not name:
        return [required(path)]
    errors: list[FieldError] = []
    if len(name) > POOL_NAME_MAX_LENGTH:
        errors.append(too_long(path, POOL_NAME_MAX_LENGTH))
    for part in name.split("/"):
        errors += [invalid(path, part, msg) for msg in is_dns1123_subdomain(part)]
    return errors


def validate_dns_label(name: str, path: str) -> list[FieldError]:
    """Device, request and counter names (``ValidateDNS1123Label``; empty is invalid too)."""
    return [invalid(path, name, msg) for msg in is_dns1123_label(name)]


def validate_dns_subdomain(name: str, path: str) -> list[FieldError]:
    """Device class and node names (``ValidateDNS1123Subdomain``)."""
    return [invalid(path, name, msg) for msg in is_dns1123_subdomain(name)]


def validate_c_identifier(name: str, path: str) -> list[FieldError]:
    errors: list[FieldError] = []
    if len(name) > DEVICE_MAX_ID_LENGTH:
        errors.append(too_long(path, DEVICE_MAX_ID_LENGTH))
    if not _is_c_identifier(name):
        detail = regex_error(_C_IDENTIFIER_MSG, _C_IDENTIFIER_FMT, "my_name", "MY_NAME", "MyName")
        errors.append(invalid(path, name, detail))
    return errors


def _is_c_identifier(name: str) -> bool:
    if not name or not (name[0].isascii() and (name[0].isalpha() or name[0] == "_")):
        return False
    return all(c.isascii() and (c.isalnum() or c == "_") for c in name)


def validate_qualified_name(name: str, path: str) -> list[FieldError]:
    """An attribute or capacity name: a C identifier, optionally after a driver-like domain
    and a slash (more than one slash goes unchecked, as upstream notes)."""
    parts = name.split("/")
    if len(parts) == 1:
        return validate_c_identifier(name, path)
    if len(parts) != 2:
        return []
    domain, identifier = parts
    errors: list[FieldError] = []
    if not domain:
        errors.append(invalid(path, "", "the domain must not be empty"))
    else:
        errors += validate_driver_name(domain, path)
    if not identifier:
        errors.append(invalid(path, "", "the name must not be empty"))
    else:
        errors += validate_c_identifier(identifier, path)
    return errors


def validate_fully_qualified_name(name: str, path: str) -> list[FieldError]:
    errors = validate_qualified_name(name, path)
    if "/" not in name:
        detail = "a fully qualified name must be a domain and a name separated by a slash"
        errors.append(invalid(path, name, detail))
    return errors


def validate_label_value(value: str, path: str) -> list[FieldError]:
    return [invalid(path, value, msg) for msg in is_label_value(value)]


def validate_device_toleration(toleration: Manifest, path: str) -> list[FieldError]:
    """A request's toleration of device taints (its operator defaults to ``Equal``)."""
    errors: list[FieldError] = []
    key = toleration.get("key") or ""
    if key:
        errors += validate_label_name(key, f"{path}.key")
    operator = toleration.get("operator") or "Equal"
    value = toleration.get("value") or ""
    if operator == "Exists":
        if value:
            errors.append(invalid(f"{path}.value", value, "must be empty for operator `Exists`"))
    elif operator == "Equal":
        errors += validate_label_value(value, f"{path}.value")
    else:
        errors.append(not_supported(f"{path}.operator", operator, ("Equal", "Exists")))
    effect = toleration.get("effect") or ""
    if effect and effect not in DEVICE_TAINT_EFFECTS:
        errors.append(not_supported(f"{path}.effect", effect, DEVICE_TAINT_EFFECTS))
    return errors


def validate_device_taint(
    taint: Manifest, old_taint: Manifest | None, path: str
) -> list[FieldError]:
    """A device's taint; an unchanged effect is not checked again on update."""
    errors = validate_label_name(taint.get("key") or "", f"{path}.key")
    value = taint.get("value") or ""
    if value:
        errors += validate_label_value(value, f"{path}.value")
    effect = taint.get("effect") or ""
    if old_taint is None or (old_taint.get("effect") or "") != effect:
        if not effect:
            errors.append(required(f"{path}.effect"))
        elif effect not in DEVICE_TAINT_EFFECTS:
            errors.append(not_supported(f"{path}.effect", effect, DEVICE_TAINT_EFFECTS))
    return errors


def validate_binding_conditions(
    conditions: list[str], failure_conditions: list[str], path: str
) -> list[FieldError]:
    """``validateDeviceBindingParameters``: at most four of each, condition names, no
    repeats, no overlap, and one kind only with the other."""
    where = f"{path}.bindingConditions"
    failure_where = f"{path}.bindingFailureConditions"
    limit = BINDING_CONDITIONS_MAX_SIZE
    errors = validate_slice(conditions, limit, validate_label_name, where)
    errors += validate_slice(failure_conditions, limit, validate_label_name, failure_where)
    seen: set[str] = set()
    for index, condition in enumerate(conditions):
        if condition in seen:
            errors.append(duplicate(f"{where}[{index}]", condition))
        seen.add(condition)
    failures_seen: set[str] = set()
    for index, condition in enumerate(failure_conditions):
        if condition in failures_seen:
            errors.append(duplicate(f"{failure_where}[{index}]", condition))
        failures_seen.add(condition)
        if condition in conditions:
            detail = "bindingFailureConditions must not overlap with bindingConditions"
            errors.append(invalid(f"{failure_where}[{index}]", condition, detail))
    if not conditions and failure_conditions:
        detail = "bindingConditions are required to use bindingFailureConditions"
        errors.append(invalid(where, conditions, detail))
    if not failure_conditions and conditions:
        detail = "bindingFailureConditions are required to use bindingConditions"
        errors.append(invalid(failure_where, failure_conditions, detail))
    return errors
