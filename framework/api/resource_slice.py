"""resource.k8s.io/v1 ResourceSlice: the devices a DRA driver publishes for a pool.

Only what the structured allocator reads is typed; the manifest keeps the rest. Device taints
and the tolerations of requests are the core taint types (same fields and matching rules).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Self

from framework.api.fields import Fields
from framework.api.meta import KubeObject, ObjectMeta
from framework.api.node_affinity import NodeSelector
from framework.api.quantity import Quantity
from framework.api.taints import Taint

RESOURCE_API_VERSION = "resource.k8s.io/v1"

DEVICE_TAINT_EFFECT_NONE = "None"
DEVICE_TAINT_EFFECT_NO_SCHEDULE = "NoSchedule"
DEVICE_TAINT_EFFECT_NO_EXECUTE = "NoExecute"


@dataclass(frozen=True, slots=True)
class DeviceAttribute:
    """One typed value: exactly one of the four fields is set in a valid slice."""

    int_value: int | None = None
    bool_value: bool | None = None
    string_value: str | None = None
    version_value: str | None = None

    @classmethod
    def parse(cls, f: Fields) -> DeviceAttribute:
        return cls(
            int_value=f.optional_integer("int"),
            bool_value=f.boolean("bool") if f.has("bool") else None,
            string_value=f.optional_string("string"),
            version_value=f.optional_string("version"),
        )


@dataclass(frozen=True, slots=True)
class CapacityRequestPolicyRange:
    min: Quantity | None = None
    max: Quantity | None = None
    step: Quantity | None = None

    @classmethod
    def parse(cls, f: Fields) -> CapacityRequestPolicyRange:
        return cls(f.quantity("min"), f.quantity("max"), f.quantity("step"))


@dataclass(frozen=True, slots=True)
class CapacityRequestPolicy:
    """How much of a shareable device's capacity one allocation may consume."""

    default: Quantity | None = None
    valid_values: tuple[Quantity, ...] = ()
    valid_range: CapacityRequestPolicyRange | None = None

    @classmethod
    def parse(cls, f: Fields) -> CapacityRequestPolicy:
        return cls(
            default=f.quantity("default"),
            valid_values=tuple(f.quantity_list("validValues")),
            valid_range=f.parse_optional("validRange", CapacityRequestPolicyRange.parse),
        )


@dataclass(frozen=True, slots=True)
class DeviceCapacity:
    value: Quantity
    request_policy: CapacityRequestPolicy | None = None

    @classmethod
    def parse(cls, f: Fields) -> DeviceCapacity:
        return cls(
            f.quantity("value") or Quantity(),
            f.parse_optional("requestPolicy", CapacityRequestPolicy.parse),
        )


@dataclass(frozen=True, slots=True)
class DeviceCounterConsumption:
    """Counters a device takes from one of the slice's shared counter sets while allocated."""

    counter_set: str
    counters: dict[str, Quantity] = field(default_factory=dict)

    @classmethod
    def parse(cls, f: Fields) -> DeviceCounterConsumption:
        return cls(f.string("counterSet"), _counters(f))


@dataclass(slots=True)
class Device:
    name: str
    attributes: dict[str, DeviceAttribute] = field(default_factory=dict)
    capacity: dict[str, DeviceCapacity] = field(default_factory=dict)
    consumes_counters: list[DeviceCounterConsumption] = field(default_factory=list)
    node_name: str | None = None
    node_selector: NodeSelector | None = None
    all_nodes: bool | None = None
    taints: list[Taint] = field(default_factory=list)
    binds_to_node: bool | None = None
    binding_conditions: list[str] = field(default_factory=list)
    binding_failure_conditions: list[str] = field(default_factory=list)
    allow_multiple_allocations: bool | None = None

    @classmethod
    def parse(cls, f: Fields) -> Device:
        attributes = f.mapping("attributes")
        capacity = f.mapping("capacity")
        return cls(
            name=f.string("name"),
            attributes={
                str(name): DeviceAttribute.parse(attributes.mapping(str(name)))
                for name in attributes.data
            },
            capacity={
                str(name): DeviceCapacity.parse(capacity.mapping(str(name)))
                for name in capacity.data
            },
            consumes_counters=f.parse_list("consumesCounters", DeviceCounterConsumption.parse),
            node_name=f.optional_string("nodeName"),
            node_selector=f.parse_optional("nodeSelector", NodeSelector.parse),
            all_nodes=_optional_bool(f, "allNodes"),
            taints=f.parse_list("taints", Taint.parse),
            binds_to_node=_optional_bool(f, "bindsToNode"),
            binding_conditions=f.string_list("bindingConditions"),
            binding_failure_conditions=f.string_list("bindingFailureConditions"),
            allow_multiple_allocations=_optional_bool(f, "allowMultipleAllocations"),
        )


@dataclass(frozen=True, slots=True)
class CounterSet:
    name: str
    counters: dict[str, Quantity] = field(default_factory=dict)

    @classmethod
    def parse(cls, f: Fields) -> CounterSet:
        return cls(f.string("name"), _counters(f))


@dataclass(frozen=True, slots=True)
class ResourcePool:
    name: str
    generation: int = 0
    resource_slice_count: int = 0

    @classmethod
    def parse(cls, f: Fields) -> ResourcePool:
        return cls(f.string("name"), f.integer("generation"), f.integer("resourceSliceCount"))


@dataclass(slots=True)
class ResourceSliceSpec:
    driver: str
    pool: ResourcePool
    node_name: str | None = None
    node_selector: NodeSelector | None = None
    all_nodes: bool | None = None
    devices: list[Device] = field(default_factory=list)
    per_device_node_selection: bool | None = None
    shared_counters: list[CounterSet] = field(default_factory=list)

    @classmethod
    def parse(cls, f: Fields) -> ResourceSliceSpec:
        return cls(
            driver=f.string("driver"),
            pool=ResourcePool.parse(f.mapping("pool")),
            node_name=f.optional_string("nodeName"),
            node_selector=f.parse_optional("nodeSelector", NodeSelector.parse),
            all_nodes=_optional_bool(f, "allNodes"),
            devices=f.parse_list("devices", Device.parse),
            per_device_node_selection=_optional_bool(f, "perDeviceNodeSelection"),
            shared_counters=f.parse_list("sharedCounters", CounterSet.parse),
        )


class ResourceSlice(KubeObject):
    """One slice of a pool's devices; a pool may span several slices of one generation."""

    __slots__ = ("spec",)

    KIND = "ResourceSlice"
    API_VERSION = RESOURCE_API_VERSION
    NAMESPACED = False

    def __init__(
        self,
        metadata: ObjectMeta,
        spec: ResourceSliceSpec,
        manifest: dict[str, Any] | None = None,
    ) -> None:
        super().__init__(metadata, manifest)
        self.spec = spec

    @classmethod
    def parse(cls, metadata: ObjectMeta, f: Fields) -> Self:
        return cls(metadata, ResourceSliceSpec.parse(f.mapping("spec")), manifest=f.data)


def _counters(f: Fields) -> dict[str, Quantity]:
    """``counters: {name: {value: quantity}}``."""
    counters = f.mapping("counters")
    return {
        str(name): counters.mapping(str(name)).quantity("value") or Quantity()
        for name in counters.data
    }


def _optional_bool(f: Fields, key: str) -> bool | None:
    return f.boolean(key) if f.has(key) else None
