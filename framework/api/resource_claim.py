"""resource.k8s.io/v1 ResourceClaim and ResourceClaimTemplate.

A claim asks for devices (requests, each exactly one kind of device or a list of alternatives
taken in order), may constrain them together, and, once allocated, records in its status which
devices it got and which pods use it. Reading applies the API server's defaults
(``allocationMode: ExactCount`` with ``count: 1``); the allocation the scheduler writes is
written back by ``to_dict``.
"""

from __future__ import annotations

import datetime as _dt
from dataclasses import dataclass, field
from typing import Any, Self

from framework.api.device_class import DeviceSelector
from framework.api.fields import Fields, format_time
from framework.api.meta import KubeObject, ObjectMeta
from framework.api.node_affinity import NodeSelector
from framework.api.quantity import Quantity
from framework.api.resource_slice import RESOURCE_API_VERSION
from framework.api.taints import Toleration

DEVICE_ALLOCATION_MODE_EXACT_COUNT = "ExactCount"
DEVICE_ALLOCATION_MODE_ALL = "All"

RESOURCE_CLAIM_FINALIZER = "resource.kubernetes.io/delete-protection"
"""resourceapi.Finalizer: set by the scheduler when it allocates a claim; the ResourceClaim
controller removes it when it deallocates the claim."""

ALLOCATION_CONFIG_SOURCE_CLASS = "FromClass"
ALLOCATION_CONFIG_SOURCE_CLAIM = "FromClaim"


@dataclass(slots=True)
class ExactDeviceRequest:
    """What one request (or one subrequest) asks for: a class, selectors, a count."""

    device_class_name: str = ""
    selectors: list[DeviceSelector] = field(default_factory=list)
    allocation_mode: str = DEVICE_ALLOCATION_MODE_EXACT_COUNT
    count: int = 1
    admin_access: bool | None = None
    tolerations: list[Toleration] = field(default_factory=list)
    capacity_requests: dict[str, Quantity] = field(default_factory=dict)

    @classmethod
    def parse(cls, f: Fields) -> ExactDeviceRequest:
        mode = f.string("allocationMode") or DEVICE_ALLOCATION_MODE_EXACT_COUNT
        count = f.integer("count")
        if mode == DEVICE_ALLOCATION_MODE_EXACT_COUNT and count == 0:
            count = 1
        return cls(
            device_class_name=f.string("deviceClassName"),
            selectors=f.parse_list("selectors", DeviceSelector.parse),
            allocation_mode=mode,
            count=count,
            admin_access=f.boolean("adminAccess") if f.has("adminAccess") else None,
            tolerations=f.parse_list("tolerations", Toleration.parse),
            capacity_requests=f.mapping("capacity").quantities("requests"),
        )


@dataclass(slots=True)
class DeviceSubRequest:
    """One alternative of a ``firstAvailable`` list (the same fields, under its own name)."""

    name: str
    exactly: ExactDeviceRequest

    @classmethod
    def parse(cls, f: Fields) -> DeviceSubRequest:
        return cls(f.string("name"), ExactDeviceRequest.parse(f))


@dataclass(slots=True)
class DeviceRequest:
    """Exactly one of ``exactly`` and ``first_available`` is set in a valid claim."""

    name: str
    exactly: ExactDeviceRequest | None = None
    first_available: list[DeviceSubRequest] = field(default_factory=list)

    @classmethod
    def parse(cls, f: Fields) -> DeviceRequest:
        return cls(
            name=f.string("name"),
            exactly=f.parse_optional("exactly", ExactDeviceRequest.parse),
            first_available=f.parse_list("firstAvailable", DeviceSubRequest.parse),
        )


@dataclass(slots=True)
class DeviceConstraint:
    """Devices of the named requests (all when empty) share, or differ in, an attribute."""

    requests: list[str] = field(default_factory=list)
    match_attribute: str | None = None
    distinct_attribute: str | None = None

    @classmethod
    def parse(cls, f: Fields) -> DeviceConstraint:
        return cls(
            requests=f.string_list("requests"),
            match_attribute=f.optional_string("matchAttribute"),
            distinct_attribute=f.optional_string("distinctAttribute"),
        )


@dataclass(slots=True)
class DeviceClaimConfiguration:
    """Opaque driver configuration, kept as written, for the requests named (all when empty)."""

    requests: list[str] = field(default_factory=list)
    opaque: dict[str, Any] | None = None

    @classmethod
    def parse(cls, f: Fields) -> DeviceClaimConfiguration:
        opaque = f.raw("opaque")
        return cls(f.string_list("requests"), dict(opaque) if opaque is not None else None)


@dataclass(slots=True)
class ResourceClaimSpec:
    requests: list[DeviceRequest] = field(default_factory=list)
    constraints: list[DeviceConstraint] = field(default_factory=list)
    config: list[DeviceClaimConfiguration] = field(default_factory=list)

    @classmethod
    def parse(cls, f: Fields) -> ResourceClaimSpec:
        devices = f.mapping("devices")
        return cls(
            requests=devices.parse_list("requests", DeviceRequest.parse),
            constraints=devices.parse_list("constraints", DeviceConstraint.parse),
            config=devices.parse_list("config", DeviceClaimConfiguration.parse),
        )


@dataclass(slots=True)
class DeviceRequestAllocationResult:
    """One allocated device; ``request`` is ``<request>/<subrequest>`` for a subrequest."""

    request: str
    driver: str
    pool: str
    device: str
    admin_access: bool | None = None
    tolerations: list[Toleration] = field(default_factory=list)
    binding_conditions: list[str] = field(default_factory=list)
    binding_failure_conditions: list[str] = field(default_factory=list)
    share_id: str | None = None
    consumed_capacity: dict[str, Quantity] = field(default_factory=dict)

    @classmethod
    def parse(cls, f: Fields) -> DeviceRequestAllocationResult:
        return cls(
            request=f.string("request"),
            driver=f.string("driver"),
            pool=f.string("pool"),
            device=f.string("device"),
            admin_access=f.boolean("adminAccess") if f.has("adminAccess") else None,
            tolerations=f.parse_list("tolerations", Toleration.parse),
            binding_conditions=f.string_list("bindingConditions"),
            binding_failure_conditions=f.string_list("bindingFailureConditions"),
            share_id=f.optional_string("shareID"),
            consumed_capacity=f.quantities("consumedCapacity"),
        )

    def to_dict(self) -> dict[str, Any]:
        data: dict[str, Any] = {
            "request": self.request,
            "driver": self.driver,
            "pool": self.pool,
            "device": self.device,
        }
        if self.admin_access is not None:
            data["adminAccess"] = self.admin_access
        if self.tolerations:
            data["tolerations"] = [_toleration_dict(t) for t in self.tolerations]
        if self.binding_conditions:
            data["bindingConditions"] = list(self.binding_conditions)
        if self.binding_failure_conditions:
            data["bindingFailureConditions"] = list(self.binding_failure_conditions)
        if self.share_id is not None:
            data["shareID"] = self.share_id
        if self.consumed_capacity:
            data["consumedCapacity"] = {k: str(v) for k, v in self.consumed_capacity.items()}
        return data


@dataclass(slots=True)
class DeviceAllocationConfiguration:
    source: str
    requests: list[str] = field(default_factory=list)
    opaque: dict[str, Any] | None = None

    @classmethod
    def parse(cls, f: Fields) -> DeviceAllocationConfiguration:
        opaque = f.raw("opaque")
        return cls(
            f.string("source"),
            f.string_list("requests"),
            dict(opaque) if opaque is not None else None,
        )

    def to_dict(self) -> dict[str, Any]:
        data: dict[str, Any] = {"source": self.source}
        if self.requests:
            data["requests"] = list(self.requests)
        if self.opaque is not None:
            data["opaque"] = self.opaque
        return data


@dataclass(slots=True)
class AllocationResult:
    """The devices a claim got and the nodes that can reach them all."""

    results: list[DeviceRequestAllocationResult] = field(default_factory=list)
    config: list[DeviceAllocationConfiguration] = field(default_factory=list)
    node_selector: NodeSelector | None = None
    node_selector_dict: dict[str, Any] | None = None
    allocation_timestamp: _dt.datetime | None = None
    """When PreBind wrote the allocation: binding conditions time out counting from it."""

    @classmethod
    def parse(cls, f: Fields) -> AllocationResult:
        devices = f.mapping("devices")
        raw_selector = f.raw("nodeSelector")
        return cls(
            results=devices.parse_list("results", DeviceRequestAllocationResult.parse),
            config=devices.parse_list("config", DeviceAllocationConfiguration.parse),
            node_selector=f.parse_optional("nodeSelector", NodeSelector.parse),
            node_selector_dict=dict(raw_selector) if raw_selector is not None else None,
            allocation_timestamp=f.time("allocationTimestamp"),
        )

    def to_dict(self) -> dict[str, Any]:
        devices: dict[str, Any] = {}
        if self.results:
            devices["results"] = [result.to_dict() for result in self.results]
        if self.config:
            devices["config"] = [config.to_dict() for config in self.config]
        data: dict[str, Any] = {"devices": devices} if devices else {}
        if self.node_selector_dict is not None:
            data["nodeSelector"] = self.node_selector_dict
        if self.allocation_timestamp is not None:
            data["allocationTimestamp"] = format_time(self.allocation_timestamp)
        return data


@dataclass(frozen=True, slots=True)
class ResourceClaimConsumerReference:
    resource: str
    name: str
    uid: str
    api_group: str = ""

    @classmethod
    def parse(cls, f: Fields) -> ResourceClaimConsumerReference:
        return cls(f.string("resource"), f.string("name"), f.string("uid"), f.string("apiGroup"))

    def to_dict(self) -> dict[str, Any]:
        data = {"resource": self.resource, "name": self.name, "uid": self.uid}
        return {"apiGroup": self.api_group, **data} if self.api_group else data


@dataclass(frozen=True, slots=True)
class DeviceCondition:
    """One of a device's ``conditions`` (a metav1.Condition): what binding conditions name."""

    type: str
    status: str
    reason: str = ""
    message: str = ""

    @classmethod
    def parse(cls, f: Fields) -> DeviceCondition:
        return cls(f.string("type"), f.string("status"), f.string("reason"), f.string("message"))


@dataclass(slots=True)
class AllocatedDeviceStatus:
    """``status.devices[]``: what a driver reports about one allocated device.

    Only the conditions are read (binding conditions); ``raw`` is the entry as written.
    """

    driver: str
    pool: str
    device: str
    conditions: list[DeviceCondition] = field(default_factory=list)
    raw: dict[str, Any] = field(default_factory=dict)

    @classmethod
    def parse(cls, f: Fields) -> AllocatedDeviceStatus:
        return cls(
            f.string("driver"),
            f.string("pool"),
            f.string("device"),
            f.parse_list("conditions", DeviceCondition.parse),
            dict(f.data),
        )

    def condition(self, condition_type: str) -> DeviceCondition | None:
        for condition in self.conditions:
            if condition.type == condition_type:
                return condition
        return None


@dataclass(slots=True)
class ResourceClaimStatus:
    allocation: AllocationResult | None = None
    reserved_for: list[ResourceClaimConsumerReference] = field(default_factory=list)
    devices: list[AllocatedDeviceStatus] = field(default_factory=list)

    @classmethod
    def parse(cls, f: Fields) -> ResourceClaimStatus:
        return cls(
            allocation=f.parse_optional("allocation", AllocationResult.parse),
            reserved_for=f.parse_list("reservedFor", ResourceClaimConsumerReference.parse),
            devices=f.parse_list("devices", AllocatedDeviceStatus.parse),
        )


class ResourceClaim(KubeObject):
    """A request for devices; allocated once, then shared by the pods reserved for it."""

    __slots__ = ("spec", "status")

    KIND = "ResourceClaim"
    API_VERSION = RESOURCE_API_VERSION

    def __init__(
        self,
        metadata: ObjectMeta,
        spec: ResourceClaimSpec | None = None,
        status: ResourceClaimStatus | None = None,
        manifest: dict[str, Any] | None = None,
    ) -> None:
        super().__init__(metadata, manifest)
        self.spec = spec if spec is not None else ResourceClaimSpec()
        self.status = status if status is not None else ResourceClaimStatus()

    @classmethod
    def parse(cls, metadata: ObjectMeta, f: Fields) -> Self:
        return cls(
            metadata,
            ResourceClaimSpec.parse(f.mapping("spec")),
            ResourceClaimStatus.parse(f.mapping("status")),
            manifest=f.data,
        )

    def to_dict(self) -> dict[str, Any]:
        """The manifest with the status the scheduler writes (allocation, reservedFor,
        devices cleared on deallocation)."""
        data = super().to_dict()
        status = dict(data.get("status") or {})
        if self.status.allocation is not None:
            status["allocation"] = self.status.allocation.to_dict()
        else:
            status.pop("allocation", None)
        if self.status.reserved_for:
            status["reservedFor"] = [ref.to_dict() for ref in self.status.reserved_for]
        else:
            status.pop("reservedFor", None)
        if self.status.devices:
            status["devices"] = [dict(device.raw) for device in self.status.devices]
        else:
            status.pop("devices", None)
        if status:
            data["status"] = status
        else:
            data.pop("status", None)
        return data


def has_finalizer(claim: ResourceClaim) -> bool:
    """Whether the claim carries RESOURCE_CLAIM_FINALIZER (kept in its manifest)."""
    finalizers = (claim.manifest.get("metadata") or {}).get("finalizers") or ()
    return RESOURCE_CLAIM_FINALIZER in finalizers


def with_finalizer(claim: ResourceClaim, present: bool) -> ResourceClaim:
    """A copy of the claim with RESOURCE_CLAIM_FINALIZER added (or removed)."""
    manifest = claim.to_dict()
    metadata = dict(manifest.get("metadata") or {})
    finalizers = [f for f in metadata.get("finalizers") or () if f != RESOURCE_CLAIM_FINALIZER]
    if present:
        finalizers.append(RESOURCE_CLAIM_FINALIZER)
    if finalizers:
        metadata["finalizers"] = finalizers
    else:
        metadata.pop("finalizers", None)
    manifest["metadata"] = metadata
    copy = ResourceClaim.from_dict(manifest)
    copy.metadata.uid = claim.uid
    copy.metadata.resource_version = claim.metadata.resource_version
    return copy


class ResourceClaimTemplate(KubeObject):
    """The claim the ResourceClaim controller creates for each pod that names the template."""

    __slots__ = ("claim_metadata", "spec")

    KIND = "ResourceClaimTemplate"
    API_VERSION = RESOURCE_API_VERSION

    def __init__(
        self,
        metadata: ObjectMeta,
        spec: ResourceClaimSpec | None = None,
        claim_metadata: dict[str, Any] | None = None,
        manifest: dict[str, Any] | None = None,
    ) -> None:
        super().__init__(metadata, manifest)
        self.spec = spec if spec is not None else ResourceClaimSpec()
        self.claim_metadata = claim_metadata or {}

    @classmethod
    def parse(cls, metadata: ObjectMeta, f: Fields) -> Self:
        template = f.mapping("spec")
        raw_metadata = template.raw("metadata")
        return cls(
            metadata,
            ResourceClaimSpec.parse(template.mapping("spec")),
            dict(raw_metadata) if raw_metadata is not None else None,
            manifest=f.data,
        )


def _toleration_dict(toleration: Toleration) -> dict[str, Any]:
    data: dict[str, Any] = {}
    for key, value in (
        ("key", toleration.key),
        ("operator", toleration.operator),
        ("value", toleration.value),
        ("effect", toleration.effect),
    ):
        if value:
            data[key] = value
    if toleration.toleration_seconds is not None:
        data["tolerationSeconds"] = toleration.toleration_seconds
    return data
