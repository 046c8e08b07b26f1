"""Upstream's ``ValidateResourceSlice`` and ``ValidateResourceSliceUpdate``
(``pkg/apis/resource/validation``) with the v1.36 default gates: partitionable devices
(shared counters), device taints, consumable capacity and binding conditions on, list-type
attributes off. Maps (attributes, capacity, counters) are walked in key order."""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from framework.api.field_errors import (
    NOT_FOUND,
    FieldError,
    forbidden,
    invalid,
    required,
)
from framework.api.quantity import Quantity, QuantityError
from framework.api.resource_names import is_native_resource
from framework.api.validation.affinity import validate_node_selector
from framework.api.validation.content import is_dns1123_subdomain
from framework.api.validation.dra_common import (
    ATTRIBUTE_AND_CAPACITY_MAX_KEY_LENGTH,
    too_long,
    too_many,
    validate_binding_conditions,
    validate_device_taint,
    validate_dns_label,
    validate_dns_subdomain,
    validate_driver_name,
    validate_map,
    validate_pool_name,
    validate_qualified_name,
    validate_set,
    validate_slice,
)
from framework.api.validation.meta import validate_object_meta
from framework.api.validation.resources import QuantityDecodeError

Manifest = Mapping[str, Any]

RESOURCE_SLICE_MAX_DEVICES = 128
RESOURCE_SLICE_MAX_DEVICES_WITH_ADVANCED_FEATURES = 64
RESOURCE_SLICE_MAX_COUNTER_SETS = 8
RESOURCE_SLICE_MAX_COUNTERS_PER_COUNTER_SET = 32
RESOURCE_SLICE_MAX_DEVICE_COUNTER_CONSUMPTIONS_PER_DEVICE = 2
RESOURCE_SLICE_MAX_COUNTERS_PER_DEVICE_COUNTER_CONSUMPTION = 32
RESOURCE_SLICE_MAX_ATTRIBUTES_AND_CAPACITIES_PER_DEVICE = 32
RESOURCE_SLICE_MAX_ATTRIBUTE_VALUES_PER_DEVICE = 48
DEVICE_TAINTS_MAX_LENGTH = 16
DEVICE_ATTRIBUTE_MAX_VALUE_LENGTH = 64
CAPACITY_REQUEST_POLICY_DISCRETE_MAX_OPTIONS = 10
_DNS1123_LABEL_MAX_LENGTH = 63
_ONE_PLACEMENT = (
    "exactly one of `nodeName`, `nodeSelector`, `allNodes`, `perDeviceNodeSelection` is required"
)
_ONE_DEVICE_PLACEMENT = (
    "exactly one of `nodeName`, `nodeSelector`, or `allNodes` is required when "
    "`perDeviceNodeSelection` is set to true in the ResourceSlice spec"
)
_NO_DEVICE_PLACEMENT = (
    "`nodeName`, `nodeSelector` and `allNodes` can only be set if `perDeviceNodeSelection` "
    "is set to true in the ResourceSlice spec"
)
_SEMVER_NUMBER = r"(0|[1-9]\d*)"
_SEMVER_PRERELEASE = r"(0|[1-9]\d*|\d*[a-zA-Z-][0-9a-zA-Z-]*)"
_SEMVER_BUILD = r"[0-9a-zA-Z-]+"
_SEMVER = re.compile(
    rf"{_SEMVER_NUMBER}\.{_SEMVER_NUMBER}\.{_SEMVER_NUMBER}"
    rf"(-{_SEMVER_PRERELEASE}(\.{_SEMVER_PRERELEASE})*)?"
    rf"(\+{_SEMVER_BUILD}(\.{_SEMVER_BUILD})*)?"
)
# The scalar kinds of attribute value; list kinds are behind DRAListTypeAttributes (off).
_ATTRIBUTE_KINDS = ("bool", "int", "string", "version")
_LIST_ATTRIBUTE_KINDS = ("bools", "ints", "strings", "versions")


def validate_resource_slice(manifest: Manifest, old: Manifest | None = None) -> list[FieldError]:
    """On create (``old`` None) or, with the old slice, the spec part of an update."""
    errors: list[FieldError] = []
    if old is None:
        metadata = manifest.get("metadata") or {}
        errors += validate_object_meta(metadata, False, is_dns1123_subdomain)
    old_spec = None if old is None else old.get("spec") or {}
    return errors + _slice_spec(manifest.get("spec") or {}, old_spec, "spec")


def _slice_spec(spec: Manifest, old_spec: Manifest | None, path: str) -> list[FieldError]:
    errors = validate_driver_name(spec.get("driver") or "", f"{path}.driver")
    errors += _pool(spec.get("pool") or {}, f"{path}.pool")
    if old_spec is not None:
        errors += _immutable(spec, old_spec, ("pool", "name"), f"{path}.pool.name")
        errors += _immutable(spec, old_spec, ("driver",), f"{path}.driver")
        errors += _immutable(spec, old_spec, ("nodeName",), f"{path}.nodeName")
    errors += _placement(spec, path)
    if spec.get("sharedCounters") is not None and spec.get("devices") is not None:
        detail = "only one of `sharedCounters` or `devices` is allowed"
        errors.append(invalid(path, "", detail))
    devices = spec.get("devices") or []
    limit = RESOURCE_SLICE_MAX_DEVICES
    if _uses_advanced_features(devices):
        limit = RESOURCE_SLICE_MAX_DEVICES_WITH_ADVANCED_FEATURES
    old_devices = {d.get("name"): d for d in (old_spec or {}).get("devices") or []}
    per_device = bool(spec.get("perDeviceNodeSelection"))
    errors += validate_set(
        devices,
        limit,
        lambda device, p: _device(device, old_devices.get(device.get("name")), p, per_device),
        lambda device: device.get("name") or "",
        f"{path}.devices",
    )
    errors += validate_set(
        spec.get("sharedCounters") or [],
        RESOURCE_SLICE_MAX_COUNTER_SETS,
        _counter_set,
        lambda counter_set: counter_set.get("name") or "",
        f"{path}.sharedCounters",
    )
    return errors


def _immutable(
    spec: Manifest, old_spec: Manifest, keys: tuple[str, ...], path: str
) -> list[FieldError]:
    new_value, old_value = _dig(spec, keys), _dig(old_spec, keys)
    if new_value != old_value:
        return [invalid(path, new_value, "field is immutable")]
    return []


def _dig(manifest: Manifest, keys: tuple[str, ...]) -> Any:
    value: Any = manifest
    for key in keys:
        value = (value or {}).get(key)
    return value


def _pool(pool: Manifest, path: str) -> list[FieldError]:
    errors = validate_pool_name(pool.get("name") or "", f"{path}.name")
    count = pool.get("resourceSliceCount") or 0
    if count <= 0:
        errors.append(invalid(f"{path}.resourceSliceCount", count, "must be greater than zero"))
    generation = pool.get("generation") or 0
    if generation < 0:
        detail = "must be greater than or equal to zero"
        errors.append(invalid(f"{path}.generation", generation, detail))
    return errors


def _placement(spec: Manifest, path: str) -> list[FieldError]:
    """Exactly one of the ways a slice says which nodes reach its devices."""
    errors: list[FieldError] = []
    chosen: list[str] = []
    node_name = spec.get("nodeName")
    if node_name is not None:
        if node_name:
            chosen.append("`nodeName`")
            errors += validate_dns_subdomain(node_name, f"{path}.nodeName")
        else:
            detail = "must be either unset or set to a non-empty string"
            errors.append(invalid(f"{path}.nodeName", node_name, detail))
    selector = spec.get("nodeSelector")
    if selector is not None:
        chosen.append("`nodeSelector`")
        errors += validate_node_selector(selector, f"{path}.nodeSelector")
        terms = selector.get("nodeSelectorTerms") or []
        if len(terms) != 1:
            where = f"{path}.nodeSelector.nodeSelectorTerms"
            errors.append(invalid(where, terms, "must have exactly one node selector term"))
    for key in ("allNodes", "perDeviceNodeSelection"):
        value = spec.get(key)
        if value is None:
            continue
        if value:
            chosen.append(f"`{key}`")
        else:
            detail = "must be either unset or set to true"
            errors.append(invalid(f"{path}.{key}", value, detail))
    if not chosen:
        errors.append(required(path, _ONE_PLACEMENT))
    elif len(chosen) > 1:
        shown = "{" + ", ".join(chosen) + "}"
        errors.append(invalid(path, shown, _ONE_PLACEMENT + ", but multiple fields are set"))
    return errors


def _uses_advanced_features(devices: list[Manifest]) -> bool:
    return any(d.get("taints") or d.get("consumesCounters") for d in devices)


# -- devices ---------------------------------------------------------------------------------


def _device(
    device: Manifest, old_device: Manifest | None, path: str, per_device: bool
) -> list[FieldError]:
    errors = validate_dns_label(device.get("name") or "", f"{path}.name")
    attributes = device.get("attributes") or {}
    capacity = device.get("capacity") or {}
    entries = len(attributes) + len(capacity)
    if entries > RESOURCE_SLICE_MAX_ATTRIBUTES_AND_CAPACITIES_PER_DEVICE:
        limit = RESOURCE_SLICE_MAX_ATTRIBUTES_AND_CAPACITIES_PER_DEVICE
        detail = f"the total number of attributes and capacities must not exceed {limit}"
        errors.append(invalid(path, entries, detail))
    values = sum(_attribute_value_count(a) for a in attributes.values())
    if values > RESOURCE_SLICE_MAX_ATTRIBUTE_VALUES_PER_DEVICE:
        limit = RESOURCE_SLICE_MAX_ATTRIBUTE_VALUES_PER_DEVICE
        detail = f"the total number of attribute values must not exceed {limit}"
        errors.append(invalid(path, values, detail))
    errors += validate_map(
        attributes,
        -1,
        ATTRIBUTE_AND_CAPACITY_MAX_KEY_LENGTH,
        validate_qualified_name,
        _attribute,
        f"{path}.attributes",
    )
    shared = bool(device.get("allowMultipleAllocations"))
    errors += validate_map(
        capacity,
        -1,
        ATTRIBUTE_AND_CAPACITY_MAX_KEY_LENGTH,
        validate_qualified_name,
        lambda value, p: _capacity(value, p, shared),
        f"{path}.capacity",
    )
    taints = device.get("taints") or []
    if old_device is None or (old_device.get("taints") or []) != taints:
        errors += validate_slice(
            taints,
            DEVICE_TAINTS_MAX_LENGTH,
            lambda taint, p: validate_device_taint(taint, None, p),
            f"{path}.taints",
        )
    errors += validate_set(
        device.get("consumesCounters") or [],
        RESOURCE_SLICE_MAX_DEVICE_COUNTER_CONSUMPTIONS_PER_DEVICE,
        _counter_consumption,
        lambda consumption: consumption.get("counterSet") or "",
        f"{path}.consumesCounters",
    )
    errors += _device_placement(device, path, per_device)
    errors += validate_binding_conditions(
        device.get("bindingConditions") or [], device.get("bindingFailureConditions") or [], path
    )
    errors += _allocatable_mappings(
        device.get("nodeAllocatableResourceMappings") or {},
        capacity,
        f"{path}.nodeAllocatableResourceMappings",
    )
    return errors


def _device_placement(device: Manifest, path: str, per_device: bool) -> list[FieldError]:
    node_name = device.get("nodeName")
    selector = device.get("nodeSelector")
    all_nodes = device.get("allNodes")
    if not per_device:
        if node_name is not None or selector is not None or all_nodes is not None:
            return [invalid(path, None, _NO_DEVICE_PLACEMENT)]
        return []
    errors: list[FieldError] = []
    chosen: list[str] = []
    if node_name is not None:
        if node_name:
            chosen.append("`nodeName`")
            errors += validate_dns_subdomain(node_name, f"{path}.nodeName")
        else:
            errors.append(invalid(f"{path}.nodeName", node_name, "must not be empty"))
    if selector is not None:
        chosen.append("`nodeSelector`")
        errors += validate_node_selector(selector, f"{path}.nodeSelector")
    if all_nodes is not None:
        if all_nodes:
            chosen.append("`allNodes`")
        else:
            detail = "must be either unset or set to true"
            errors.append(invalid(f"{path}.allNodes", all_nodes, detail))
    if not chosen:
        errors.append(required(path, _ONE_DEVICE_PLACEMENT))
    elif len(chosen) > 1:
        errors.append(invalid(path, "{" + ", ".join(chosen) + "}", _ONE_DEVICE_PLACEMENT))
    return errors


def _attribute_value_count(attribute: Any) -> int:
    if not isinstance(attribute, Mapping):
        return 1
    listed = sum(len(attribute.get(kind) or []) for kind in _LIST_ATTRIBUTE_KINDS)
    return listed or 1


def _attribute(attribute: Manifest, path: str) -> list[FieldError]:
    """Exactly one value: ``bool``, ``int``, ``string`` or ``version`` (the list kinds are
    unknown fields while DRAListTypeAttributes is off)."""
    errors: list[FieldError] = []
    given = [kind for kind in _ATTRIBUTE_KINDS if attribute.get(kind) is not None]
    if "string" in given:
        errors += _string_value(attribute["string"], f"{path}.string")
    if "version" in given:
        errors += _version_value(attribute["version"], f"{path}.version")
    if not given:
        errors.append(invalid(path, "", "exactly one value must be specified"))
    elif len(given) > 1:
        errors.append(
            invalid(path, _go_attribute(attribute), "exactly one value must be specified")
        )
    return errors


def _go_attribute(attribute: Manifest) -> dict[str, Any]:
    """The attribute as upstream prints it: its internal struct as JSON, every field named."""
    return {
        "IntValue": attribute.get("int"),
        "BoolValue": attribute.get("bool"),
        "StringValue": attribute.get("string"),
        "VersionValue": attribute.get("version"),
        "BoolValues": None,
        "IntValues": None,
        "StringValues": None,
        "VersionValues": None,
    }


def _string_value(value: str, path: str) -> list[FieldError]:
    if len(value.encode()) > DEVICE_ATTRIBUTE_MAX_VALUE_LENGTH:
        return [too_long(path, DEVICE_ATTRIBUTE_MAX_VALUE_LENGTH)]
    return []


def _version_value(value: str, path: str) -> list[FieldError]:
    errors: list[FieldError] = []
    if not _SEMVER.fullmatch(value):
        detail = "must be a string compatible with semver.org spec 2.0.0"
        errors.append(invalid(path, value, detail))
    if len(value.encode()) > DEVICE_ATTRIBUTE_MAX_VALUE_LENGTH:
        errors.append(too_long(path, DEVICE_ATTRIBUTE_MAX_VALUE_LENGTH))
    return errors


def _quantity(value: Any, path: str) -> Quantity:
    try:
        return Quantity.parse(value.strip() if isinstance(value, str) else value)
    except QuantityError as err:
        raise QuantityDecodeError(path, str(err)) from None


def _capacity(capacity: Manifest, path: str, shared: bool) -> list[FieldError]:
    """A request policy only on a device that may be allocated more than once."""
    policy = capacity.get("requestPolicy")
    if policy is None:
        return []
    where = f"{path}.requestPolicy"
    if not shared:
        return [forbidden(where, "allowMultipleAllocations must be true")]
    maximum = _quantity(capacity.get("value") or 0, f"{path}.value")
    if policy.get("validValues") and policy.get("validRange") is not None:
        detail = (
            'exactly one policy can be specified, cannot specify "validValues" and '
            '"validRange" at the same time'
        )
        return [forbidden(where, detail)]
    default = policy.get("default")
    if policy.get("validValues"):
        if default is None:
            return [required(f"{where}.default", "required when validValues is defined")]
        return _valid_values(policy, maximum, where)
    if policy.get("validRange") is not None:
        if default is None:
            return [required(f"{where}.default", "required when validRange is defined")]
        return _valid_range(policy, maximum, where)
    return []


def _valid_values(policy: Manifest, maximum: Quantity, path: str) -> list[FieldError]:
    where = f"{path}.validValues"
    default = _quantity(policy["default"], f"{path}.default")
    options = [_quantity(v, f"{where}[{i}]") for i, v in enumerate(policy.get("validValues") or [])]
    errors: list[FieldError] = []
    for index in range(len(options) - 1):
        if options[index].cmp(options[index + 1]) > 0:
            detail = "values must be sorted in ascending order"
            errors.append(invalid(f"{where}[{index + 1}]", str(options[index + 1]), detail))
    if len(options) > CAPACITY_REQUEST_POLICY_DISCRETE_MAX_OPTIONS:
        errors.append(too_many(where, len(options), CAPACITY_REQUEST_POLICY_DISCRETE_MAX_OPTIONS))
        found_default = False
    else:
        found_default = any(option.cmp(default) == 0 for option in options)
        errors += validate_set(
            options,
            -1,
            lambda option, p: _within_capacity(option, maximum, p),
            lambda option: str(option.value()),
            where,
        )
    if not found_default:
        detail = "default value is not valid according to the requestPolicy"
        errors.append(invalid(where, str(default), detail))
    return errors


def _within_capacity(option: Quantity, maximum: Quantity, path: str) -> list[FieldError]:
    if option.cmp(maximum) > 0:
        detail = f"option is larger than capacity value: {maximum}"
        return [invalid(path, str(option), detail)]
    return []


def _valid_range(policy: Manifest, maximum: Quantity, path: str) -> list[FieldError]:
    where = f"{path}.validRange"
    bounds = policy.get("validRange") or {}
    default = _quantity(policy["default"], f"{path}.default")
    if bounds.get("min") is None:
        return [required(f"{where}.min", "required when validRange is defined")]
    low = _quantity(bounds["min"], f"{where}.min")
    errors: list[FieldError] = []
    if low.cmp(maximum) > 0:
        detail = f"min is larger than capacity value: {maximum}"
        errors.append(invalid(f"{where}.min", str(low), detail))
    if default.cmp(low) < 0:
        errors.append(invalid(f"{where}.min", str(default), f"default is less than min: {low}"))
    high = None
    if bounds.get("max") is not None:
        high = _quantity(bounds["max"], f"{where}.max")
        if low.cmp(high) > 0:
            errors.append(invalid(f"{where}.max", str(low), f"min is larger than max: {high}"))
        if high.cmp(maximum) > 0:
            detail = f"max is larger than capacity value: {maximum}"
            errors.append(invalid(f"{where}.max", str(high), detail))
        if default.cmp(high) > 0:
            errors.append(
                invalid(f"{where}.max", str(default), f"default is more than max: {high}")
            )
    if bounds.get("step") is not None:
        step = _quantity(bounds["step"], f"{where}.step")
        one_step = low + step
        if one_step.cmp(maximum) > 0:
            detail = f"one step {one_step} is larger than capacity value: {maximum}"
            errors.append(invalid(f"{where}.step", str(step), detail))
        errors += _on_step(default, low, step, f"{where}.step")
        if high is not None:
            errors += _on_step(high, low, step, f"{where}.step")
    return errors


def _on_step(value: Quantity, low: Quantity, step: Quantity, path: str) -> list[FieldError]:
    if step.value() and (value.value() - low.value()) % step.value() != 0:
        detail = f"value is not a multiple of a given step ({step}) from ({low})"
        return [invalid(path, str(value), detail)]
    return []


# -- counters --------------------------------------------------------------------------------


def _counter_set(counter_set: Manifest, path: str) -> list[FieldError]:
    name = counter_set.get("name") or ""
    errors = [required(f"{path}.name")] if not name else validate_dns_label(name, f"{path}.name")
    counters = counter_set.get("counters") or {}
    if not counters:
        errors.append(required(f"{path}.counters"))
    else:
        errors += _counters(counters, RESOURCE_SLICE_MAX_COUNTERS_PER_COUNTER_SET, path)
    return errors


def _counter_consumption(consumption: Manifest, path: str) -> list[FieldError]:
    name = consumption.get("counterSet") or ""
    where = f"{path}.counterSet"
    errors = [required(where)] if not name else validate_dns_label(name, where)
    counters = consumption.get("counters") or {}
    if not counters:
        errors.append(required(f"{path}.counters"))
    else:
        limit = RESOURCE_SLICE_MAX_COUNTERS_PER_DEVICE_COUNTER_CONSUMPTION
        errors += _counters(counters, limit, path)
    return errors


def _counters(counters: Manifest, limit: int, path: str) -> list[FieldError]:
    """Counter names are DNS labels; any quantity that parses is a valid value."""
    where = f"{path}.counters"
    for name, counter in sorted(counters.items()):
        _quantity((counter or {}).get("value") or 0, f"{where}[{name}].value")
    return validate_map(
        counters, limit, _DNS1123_LABEL_MAX_LENGTH, validate_dns_label, lambda *_: [], where
    )


def _allocatable_mappings(mappings: Manifest, capacity: Manifest, path: str) -> list[FieldError]:
    """How a device's capacity adds to the node's allocatable resources."""
    errors: list[FieldError] = []
    for name in sorted(mappings):
        mapping = mappings[name] or {}
        where = f"{path}[{name}]"
        if not is_native_resource(name):
            errors.append(invalid(where, name, "must be a node allocatable resource name"))
        multiplier = mapping.get("allocationMultiplier")
        key = mapping.get("capacityKey")
        if multiplier is None and key is None:
            detail = "at least one of allocationMultiplier or capacityKey must be set"
            errors.append(invalid(where, "", detail))
            continue
        if multiplier is not None:
            quantity = _quantity(multiplier, f"{where}.allocationMultiplier")
            if quantity.sign() <= 0:
                where_multiplier = f"{where}.allocationMultiplier"
                errors.append(invalid(where_multiplier, str(quantity), "must be positive"))
        if key is not None:
            if key == "":
                detail = "capacityKey must not be an empty string"
                errors.append(invalid(f"{where}.capacityKey", "", detail))
            elif key not in capacity:
                errors.append(FieldError(NOT_FOUND, f"{where}.capacityKey", key))
    return errors
