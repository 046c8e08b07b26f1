"""storage.k8s.io kinds: StorageClass, CSINode, CSIDriver, CSIStorageCapacity and
VolumeAttachment."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Self

from framework.api.fields import Fields
from framework.api.meta import KubeObject, ObjectMeta

VOLUME_BINDING_IMMEDIATE = "Immediate"
VOLUME_BINDING_WAIT_FOR_FIRST_CONSUMER = "WaitForFirstConsumer"


@dataclass(frozen=True, slots=True)
class TopologySelectorLabelRequirement:
    key: str
    values: tuple[str, ...] = ()

    @classmethod
    def parse(cls, f: Fields) -> TopologySelectorLabelRequirement:
        return cls(f.string("key"), tuple(f.string_list("values")))


@dataclass(slots=True)
class TopologySelectorTerm:
    match_label_expressions: list[TopologySelectorLabelRequirement] = field(default_factory=list)

    @classmethod
    def parse(cls, f: Fields) -> TopologySelectorTerm:
        return cls(f.parse_list("matchLabelExpressions", TopologySelectorLabelRequirement.parse))


class StorageClass(KubeObject):
    __slots__ = (
        "allow_volume_expansion",
        "allowed_topologies",
        "parameters",
        "provisioner",
        "reclaim_policy",
        "volume_binding_mode",
    )

    KIND = "StorageClass"
    API_VERSION = "storage.k8s.io/v1"
    NAMESPACED = False

    def __init__(
        self,
        metadata: ObjectMeta,
        provisioner: str = "",
        volume_binding_mode: str = VOLUME_BINDING_IMMEDIATE,
        allowed_topologies: list[TopologySelectorTerm] | None = None,
        parameters: dict[str, str] | None = None,
        reclaim_policy: str = "Delete",
        allow_volume_expansion: bool = False,
        manifest: dict[str, Any] | None = None,
    ) -> None:
        super().__init__(metadata, manifest)
        self.provisioner = provisioner
        self.volume_binding_mode = volume_binding_mode
        self.allowed_topologies = allowed_topologies or []
        self.parameters = parameters or {}
        self.reclaim_policy = reclaim_policy
        self.allow_volume_expansion = allow_volume_expansion

    @classmethod
    def parse(cls, metadata: ObjectMeta, f: Fields) -> Self:
        return cls(
            metadata,
            provisioner=f.string("provisioner"),
            volume_binding_mode=f.string("volumeBindingMode") or VOLUME_BINDING_IMMEDIATE,
            allowed_topologies=f.parse_list("allowedTopologies", TopologySelectorTerm.parse),
            parameters=f.string_map("parameters"),
            reclaim_policy=f.string("reclaimPolicy") or "Delete",
            allow_volume_expansion=f.boolean("allowVolumeExpansion"),
            manifest=f.data,
        )


@dataclass(slots=True)
class CSINodeDriver:
    name: str
    node_id: str = ""
    topology_keys: list[str] = field(default_factory=list)
    allocatable_count: int | None = None

    @classmethod
    def parse(cls, f: Fields) -> CSINodeDriver:
        return cls(
            name=f.string("name"),
            node_id=f.string("nodeID"),
            topology_keys=f.string_list("topologyKeys"),
            allocatable_count=f.mapping("allocatable").optional_integer("count"),
        )


class CSINode(KubeObject):
    __slots__ = ("drivers",)

    KIND = "CSINode"
    API_VERSION = "storage.k8s.io/v1"
    NAMESPACED = False

    def __init__(
        self,
        metadata: ObjectMeta,
        drivers: list[CSINodeDriver] | None = None,
        manifest: dict[str, Any] | None = None,
    ) -> None:
        super().__init__(metadata, manifest)
        self.drivers = drivers or []

    @classmethod
    def parse(cls, metadata: ObjectMeta, f: Fields) -> Self:
        drivers = f.mapping("spec").parse_list("drivers", CSINodeDriver.parse)
        return cls(metadata, drivers, manifest=f.data)


class CSIDriver(KubeObject):
    """How a CSI driver is to be treated (``spec.attachRequired``, ``storageCapacity``,
    ``preventPodSchedulingIfMissing`` ...); the volume plugins read its manifest."""

    __slots__ = ()

    KIND = "CSIDriver"
    API_VERSION = "storage.k8s.io/v1"
    NAMESPACED = False


class CSIStorageCapacity(KubeObject):
    """The capacity a CSI driver reports for a storage class in a topology segment; the volume
    binder reads its manifest (``storageClassName``, ``nodeTopology``, ``capacity``,
    ``maximumVolumeSize``)."""

    __slots__ = ()

    KIND = "CSIStorageCapacity"
    API_VERSION = "storage.k8s.io/v1"


class VolumeAttachment(KubeObject):
    """A volume attached to a node; NodeVolumeLimits counts them against the node's CSI
    limits (it reads ``spec.attacher``, ``nodeName`` and ``source`` from the manifest)."""

    __slots__ = ()

    KIND = "VolumeAttachment"
    API_VERSION = "storage.k8s.io/v1"
    NAMESPACED = False
