"""Core-group kinds besides Pod and Node: Namespace, volumes and claims, Service,
ReplicationController. Each keeps only the fields scheduling reads."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Self

from framework.api.fields import Fields
from framework.api.labels import LabelSelector
from framework.api.meta import KubeObject, ObjectMeta
from framework.api.node_affinity import NodeSelector
from framework.api.quantity import Quantity

VOLUME_MODE_FILESYSTEM = "Filesystem"
CLAIM_PENDING = "Pending"
CLAIM_BOUND = "Bound"
VOLUME_PENDING = "Pending"
VOLUME_AVAILABLE = "Available"
VOLUME_BOUND = "Bound"


class Namespace(KubeObject):
    """Only metadata matters: its labels feed pod affinity's namespace selectors."""

    __slots__ = ()

    KIND = "Namespace"
    NAMESPACED = False


@dataclass(frozen=True, slots=True)
class ObjectReference:
    namespace: str = ""
    name: str = ""
    uid: str = ""

    @classmethod
    def parse(cls, f: Fields) -> ObjectReference:
        return cls(f.string("namespace"), f.string("name"), f.string("uid"))


@dataclass(slots=True)
class PersistentVolumeSpec:
    capacity: dict[str, Quantity] = field(default_factory=dict)
    access_modes: list[str] = field(default_factory=list)
    storage_class_name: str = ""
    claim_ref: ObjectReference | None = None
    node_affinity: NodeSelector | None = None
    volume_mode: str = VOLUME_MODE_FILESYSTEM
    reclaim_policy: str = "Retain"
    csi_driver: str = ""
    source_kind: str = ""
    source: dict[str, Any] = field(default_factory=dict)

    @classmethod
    def parse(cls, f: Fields) -> PersistentVolumeSpec:
        spec = cls(
            capacity=f.quantities("capacity"),
            access_modes=f.string_list("accessModes"),
            storage_class_name=f.string("storageClassName"),
            claim_ref=f.parse_optional("claimRef", ObjectReference.parse),
            node_affinity=f.mapping("nodeAffinity").parse_optional("required", NodeSelector.parse),
            volume_mode=f.string("volumeMode") or VOLUME_MODE_FILESYSTEM,
            reclaim_policy=f.string("persistentVolumeReclaimPolicy") or "Retain",
            csi_driver=f.mapping("csi").string("driver"),
        )
        for key, value in f.data.items():
            if key not in _PV_SPEC_FIELDS and isinstance(value, dict):
                spec.source_kind, spec.source = key, dict(value)
                break
        return spec


_PV_SPEC_FIELDS = {
    "capacity",
    "claimRef",
    "nodeAffinity",
    "mountOptions",
    "volumeAttributesClassName",
}


class PersistentVolume(KubeObject):
    __slots__ = ("phase", "spec")

    KIND = "PersistentVolume"
    NAMESPACED = False

    def __init__(
        self,
        metadata: ObjectMeta,
        spec: PersistentVolumeSpec | None = None,
        phase: str = VOLUME_PENDING,
        manifest: dict[str, Any] | None = None,
    ) -> None:
        super().__init__(metadata, manifest)
        self.spec = spec if spec is not None else PersistentVolumeSpec()
        self.phase = phase

    @classmethod
    def parse(cls, metadata: ObjectMeta, f: Fields) -> Self:
        spec = PersistentVolumeSpec.parse(f.mapping("spec"))
        phase = f.mapping("status").string("phase") or VOLUME_PENDING
        return cls(metadata, spec, phase, manifest=f.data)


@dataclass(slots=True)
class PersistentVolumeClaimSpec:
    access_modes: list[str] = field(default_factory=list)
    storage_class_name: str | None = None
    volume_name: str = ""
    volume_mode: str = VOLUME_MODE_FILESYSTEM
    requests: dict[str, Quantity] = field(default_factory=dict)
    selector: LabelSelector | None = None

    @classmethod
    def parse(cls, f: Fields) -> PersistentVolumeClaimSpec:
        return cls(
            access_modes=f.string_list("accessModes"),
            storage_class_name=f.optional_string("storageClassName"),
            volume_name=f.string("volumeName"),
            volume_mode=f.string("volumeMode") or VOLUME_MODE_FILESYSTEM,
            requests=f.mapping("resources").quantities("requests"),
            selector=f.parse_optional("selector", LabelSelector.parse),
        )


class PersistentVolumeClaim(KubeObject):
    __slots__ = ("phase", "spec")

    KIND = "PersistentVolumeClaim"

    def __init__(
        self,
        metadata: ObjectMeta,
        spec: PersistentVolumeClaimSpec | None = None,
        phase: str = CLAIM_PENDING,
        manifest: dict[str, Any] | None = None,
    ) -> None:
        super().__init__(metadata, manifest)
        self.spec = spec if spec is not None else PersistentVolumeClaimSpec()
        self.phase = phase

    @classmethod
    def parse(cls, metadata: ObjectMeta, f: Fields) -> Self:
        spec = PersistentVolumeClaimSpec.parse(f.mapping("spec"))
        phase = f.mapping("status").string("phase") or CLAIM_PENDING
        return cls(metadata, spec, phase, manifest=f.data)


class Service(KubeObject):
    __slots__ = ("selector",)

    KIND = "Service"

    def __init__(
        self,
        metadata: ObjectMeta,
        selector: dict[str, str] | None = None,
        manifest: dict[str, Any] | None = None,
    ) -> None:
        super().__init__(metadata, manifest)
        self.selector = selector or {}

    @classmethod
    def parse(cls, metadata: ObjectMeta, f: Fields) -> Self:
        return cls(metadata, f.mapping("spec").string_map("selector"), manifest=f.data)


class ReplicationController(KubeObject):
    __slots__ = ("replicas", "selector")

    KIND = "ReplicationController"

    def __init__(
        self,
        metadata: ObjectMeta,
        selector: dict[str, str] | None = None,
        replicas: int = 1,
        manifest: dict[str, Any] | None = None,
    ) -> None:
        super().__init__(metadata, manifest)
        self.selector = selector or {}
        self.replicas = replicas

    @classmethod
    def parse(cls, metadata: ObjectMeta, f: Fields) -> Self:
        spec = f.mapping("spec")
        # The API server defaults an empty selector to the pod template's labels.
        selector = spec.string_map("selector") or (
            spec.mapping("template").mapping("metadata").string_map("labels")
        )
        return cls(metadata, selector, spec.integer("replicas", 1), manifest=f.data)
