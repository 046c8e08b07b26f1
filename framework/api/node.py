"""The Node: labels, taints, allocatable resources, images and conditions."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Self

from framework.api.fields import Fields
from framework.api.meta import KubeObject, ObjectMeta
from framework.api.quantity import Quantity
from framework.api.taints import Taint

NODE_READY = "Ready"


@dataclass(slots=True)
class NodeSpec:
    unschedulable: bool = False
    taints: list[Taint] = field(default_factory=list)
    provider_id: str = ""
    pod_cidr: str = ""

    @classmethod
    def parse(cls, f: Fields) -> NodeSpec:
        return cls(
            unschedulable=f.boolean("unschedulable"),
            taints=f.parse_list("taints", Taint.parse),
            provider_id=f.string("providerID"),
            pod_cidr=f.string("podCIDR"),
        )


@dataclass(frozen=True, slots=True)
class ContainerImage:
    names: tuple[str, ...]
    size_bytes: int = 0

    @classmethod
    def parse(cls, f: Fields) -> ContainerImage:
        return cls(tuple(f.string_list("names")), f.integer("sizeBytes"))


@dataclass(frozen=True, slots=True)
class NodeCondition:
    type: str
    status: str
    reason: str = ""
    message: str = ""

    @classmethod
    def parse(cls, f: Fields) -> NodeCondition:
        return cls(f.string("type"), f.string("status"), f.string("reason"), f.string("message"))


@dataclass(slots=True)
class NodeStatus:
    capacity: dict[str, Quantity] = field(default_factory=dict)
    allocatable: dict[str, Quantity] = field(default_factory=dict)
    images: list[ContainerImage] = field(default_factory=list)
    conditions: list[NodeCondition] = field(default_factory=list)
    declared_features: list[str] = field(default_factory=list)

    @classmethod
    def parse(cls, f: Fields) -> NodeStatus:
        capacity = f.quantities("capacity")
        # A kubelet reports allocatable; hand-written manifests often give capacity only.
        allocatable = f.quantities("allocatable") if f.has("allocatable") else dict(capacity)
        return cls(
            capacity=capacity,
            allocatable=allocatable,
            images=f.parse_list("images", ContainerImage.parse),
            conditions=f.parse_list("conditions", NodeCondition.parse),
            declared_features=f.string_list("declaredFeatures"),
        )

    def condition(self, condition_type: str) -> NodeCondition | None:
        for condition in self.conditions:
            if condition.type == condition_type:
                return condition
        return None


class Node(KubeObject):
    __slots__ = ("spec", "status")

    KIND = "Node"
    NAMESPACED = False

    def __init__(
        self,
        metadata: ObjectMeta,
        spec: NodeSpec | None = None,
        status: NodeStatus | None = None,
        manifest: dict[str, Any] | None = None,
    ) -> None:
        super().__init__(metadata, manifest)
        self.spec = spec if spec is not None else NodeSpec()
        self.status = status if status is not None else NodeStatus()

    @classmethod
    def parse(cls, metadata: ObjectMeta, f: Fields) -> Self:
        spec = NodeSpec.parse(f.mapping("spec"))
        return cls(metadata, spec, NodeStatus.parse(f.mapping("status")), manifest=f.data)
