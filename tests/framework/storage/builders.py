"""Storage objects and a plugin handle for the volume plugins' tests, as upstream's wrappers."""

from __future__ import annotations

from typing import Any

from framework.api.core import PersistentVolume, PersistentVolumeClaim
from framework.api.pod import Pod
from framework.api.storage import (
    CSIDriver,
    CSINode,
    CSIStorageCapacity,
    StorageClass,
    VolumeAttachment,
)
from framework.cluster.memory import InMemoryCluster
from framework.interface.node_info import NodeInfo
from framework.metrics import Metrics
from framework.util.clock import FakeClock
from tests.framework.builders import make_pod

CLOCK_START = 1_767_225_600.0
"""2026-01-01T00:00:00Z: where FakeHandle's clock starts."""

WAIT = "WaitForFirstConsumer"
IMMEDIATE = "Immediate"
LABEL_HOSTNAME = "kubernetes.io/hostname"


def make_pv(
    name: str,
    class_name: str = "",
    *,
    labels: dict[str, str] | None = None,
    annotations: dict[str, str] | None = None,
    capacity: str | None = None,
    phase: str | None = None,
    node_affinity: dict[str, list[str]] | None = None,
    claim: tuple[str, str] | tuple[str, str, str] | None = None,
    access_modes: list[str] | None = None,
    volume_mode: str | None = None,
    source: dict[str, Any] | None = None,
    resource_version: str = "",
) -> PersistentVolume:
    """A PV; ``claim`` is (namespace, name[, uid]) and ``source`` e.g. {"csi": {...}}."""
    spec: dict[str, Any] = {"storageClassName": class_name}
    if capacity is not None:
        spec["capacity"] = {"storage": capacity}
    if node_affinity is not None:
        expressions = [
            {"key": key, "operator": "In", "values": values}
            for key, values in node_affinity.items()
        ]
        spec["nodeAffinity"] = {
            "required": {"nodeSelectorTerms": [{"matchExpressions": expressions}]}
        }
    if claim is not None:
        spec["claimRef"] = dict(zip(("namespace", "name", "uid"), claim, strict=False))
    if access_modes is not None:
        spec["accessModes"] = access_modes
    if volume_mode is not None:
        spec["volumeMode"] = volume_mode
    spec.update(source or {})
    manifest: dict[str, Any] = {
        "apiVersion": "v1",
        "kind": "PersistentVolume",
        "metadata": _metadata(name, "", labels, annotations, resource_version),
        "spec": spec,
    }
    if phase is not None:
        manifest["status"] = {"phase": phase}
    return PersistentVolume.from_dict(manifest)


def make_pvc(
    name: str,
    class_name: str | None = None,
    *,
    namespace: str = "default",
    volume_name: str = "",
    bound: bool = False,
    request: str | None = None,
    phase: str | None = None,
    access_modes: list[str] | None = None,
    annotations: dict[str, str] | None = None,
    owner: Pod | None = None,
    uid: str | None = None,
    resource_version: str = "",
) -> PersistentVolumeClaim:
    """A claim; ``bound`` also sets the bind-completed annotation, as the PV controller does."""
    spec: dict[str, Any] = {}
    if class_name is not None:
        spec["storageClassName"] = class_name
    if volume_name:
        spec["volumeName"] = volume_name
    if request is not None:
        spec["resources"] = {"requests": {"storage": request}}
    if access_modes is not None:
        spec["accessModes"] = access_modes
    annotations = dict(annotations or {})
    if bound:
        annotations["pv.kubernetes.io/bind-completed"] = "true"
    metadata = _metadata(name, namespace, None, annotations, resource_version)
    if uid is not None:
        metadata["uid"] = uid
    if owner is not None:
        metadata["ownerReferences"] = [
            {
                "apiVersion": "v1",
                "kind": "Pod",
                "name": owner.name,
                "uid": owner.uid,
                "controller": True,
            }
        ]
    manifest: dict[str, Any] = {
        "apiVersion": "v1",
        "kind": "PersistentVolumeClaim",
        "metadata": metadata,
        "spec": spec,
    }
    if phase is not None:
        manifest["status"] = {"phase": phase}
    return PersistentVolumeClaim.from_dict(manifest)


def make_storage_class(
    name: str,
    mode: str | None = IMMEDIATE,
    *,
    provisioner: str = "",
    allowed_topologies: dict[str, list[str]] | None = None,
) -> StorageClass:
    """A class; ``mode=None`` stands for an object whose binding mode nobody defaulted."""
    manifest: dict[str, Any] = {
        "apiVersion": "storage.k8s.io/v1",
        "kind": "StorageClass",
        "metadata": {"name": name},
        "provisioner": provisioner,
    }
    if mode is not None:
        manifest["volumeBindingMode"] = mode
    if allowed_topologies is not None:
        manifest["allowedTopologies"] = [
            {
                "matchLabelExpressions": [
                    {"key": key, "values": values} for key, values in allowed_topologies.items()
                ]
            }
        ]
    storage_class = StorageClass.from_dict(manifest)
    if mode is None:
        storage_class.volume_binding_mode = ""
    return storage_class


def make_csi_node(
    name: str,
    drivers: dict[str, int | None] | None = None,
    annotations: dict[str, str] | None = None,
) -> CSINode:
    """A CSINode with the drivers and their attach limits (None: no limit reported)."""
    entries = []
    for driver, count in (drivers or {}).items():
        entry: dict[str, Any] = {"name": driver, "nodeID": name}
        if count is not None:
            entry["allocatable"] = {"count": count}
        entries.append(entry)
    return CSINode.from_dict(
        {
            "apiVersion": "storage.k8s.io/v1",
            "kind": "CSINode",
            "metadata": _metadata(name, "", None, annotations, ""),
            "spec": {"drivers": entries},
        }
    )


def make_csi_driver(name: str, **spec: Any) -> CSIDriver:
    return CSIDriver.from_dict({"kind": "CSIDriver", "metadata": {"name": name}, "spec": spec})


def make_capacity(
    name: str, class_name: str, node_labels: dict[str, str], capacity: str, maximum: str = ""
) -> CSIStorageCapacity:
    manifest: dict[str, Any] = {
        "kind": "CSIStorageCapacity",
        "metadata": {"name": name, "namespace": "default"},
        "storageClassName": class_name,
        "nodeTopology": {"matchLabels": node_labels},
    }
    if capacity:
        manifest["capacity"] = capacity
    if maximum:
        manifest["maximumVolumeSize"] = maximum
    return CSIStorageCapacity.from_dict(manifest)


def make_volume_attachment(name: str, node: str, attacher: str, pv: str | None) -> VolumeAttachment:
    source = {"persistentVolumeName": pv} if pv is not None else {}
    return VolumeAttachment.from_dict(
        {
            "kind": "VolumeAttachment",
            "metadata": {"name": name},
            "spec": {"attacher": attacher, "nodeName": node, "source": source},
        }
    )


def pod_with_volumes(name: str = "p", *volumes: dict[str, Any], **kwargs: Any) -> Pod:
    """A pod with raw volume entries, e.g. ``pvc_volume("data")``."""
    return make_pod(name, volumes=list(volumes), **kwargs)


def pvc_volume(claim: str, name: str = "", read_only: bool = False) -> dict[str, Any]:
    source: dict[str, Any] = {"claimName": claim}
    if read_only:
        source["readOnly"] = True
    return {"name": name or claim, "persistentVolumeClaim": source}


def ephemeral_volume(name: str) -> dict[str, Any]:
    return {"name": name, "ephemeral": {"volumeClaimTemplate": {"spec": {}}}}


def _metadata(
    name: str,
    namespace: str,
    labels: dict[str, str] | None,
    annotations: dict[str, str] | None,
    resource_version: str,
) -> dict[str, Any]:
    metadata: dict[str, Any] = {"name": name}
    if namespace:
        metadata["namespace"] = namespace
    if labels:
        metadata["labels"] = labels
    if annotations:
        metadata["annotations"] = annotations
    if resource_version:
        metadata["resourceVersion"] = resource_version
    return metadata


# -- a handle ----------------------------------------------------------------------------------


class StorageInfos:
    """The snapshot's claims in use, from the NodeInfos' claim reference counts."""

    def __init__(self, node_infos: list[NodeInfo]) -> None:
        self._used = {key for info in node_infos for key in info.pvc_ref_counts}

    def is_pvc_used_by_pods(self, key: str) -> bool:
        return key in self._used


class Snapshot:
    def __init__(self, node_infos: list[NodeInfo]) -> None:
        self._node_infos = node_infos

    def node_infos(self) -> Snapshot:
        return self

    def list(self) -> list[NodeInfo]:
        return list(self._node_infos)

    def get(self, name: str) -> NodeInfo:
        for info in self._node_infos:
            if info.node_name == name:
                return info
        raise KeyError(name)

    def storage_infos(self) -> StorageInfos:
        return StorageInfos(self._node_infos)


class WritableCluster(InMemoryCluster):
    """The in-memory cluster, recording updates; ``refuse`` names keys whose updates fail,
    ``refuse_creates`` kinds whose creates fail."""

    def __init__(self, objects: Any = ()) -> None:
        super().__init__(objects)
        self.refuse: set[str] = set()
        self.refuse_creates: set[str] = set()
        self.updates: list[Any] = []
        self.created: list[Any] = []
        self.deleted: list[Any] = []

    def create(self, obj: Any) -> Any:
        if obj.kind in self.refuse_creates:
            raise RuntimeError(f"create of {obj.kind} refused")
        created = super().create(obj)
        self.created.append(created)
        return created

    def delete(self, obj: Any) -> None:
        super().delete(obj)
        self.deleted.append(obj)

    def add(self, obj: Any) -> Any:
        """Stores a copy that keeps the fixture's resourceVersion (as upstream seeds informers)."""
        version = obj.metadata.resource_version
        stored = super().add(obj.deep_copy())
        stored.metadata.resource_version = version
        return stored

    def update(self, obj: Any) -> Any:
        if obj.key in self.refuse:
            raise RuntimeError(f"update of {obj.key} refused")
        written = super().update(obj.deep_copy())
        self.updates.append(written)
        return written


class FakeHandle:
    """What the volume and DRA plugins use from the Handle: the cluster, the snapshot, the
    clock, the metrics and the profile's name."""

    def __init__(self, objects: list[Any] = (), node_infos: list[NodeInfo] = ()) -> None:  # type: ignore[assignment]
        self._cluster = WritableCluster(objects)
        self._snapshot = Snapshot(list(node_infos))
        self.clock = FakeClock(CLOCK_START)
        self.metrics = Metrics()

    def cluster(self) -> WritableCluster:
        return self._cluster

    def snapshot_shared_lister(self) -> Snapshot:
        return self._snapshot

    def profile_name(self) -> str:
        return "default-scheduler"


def node_infos_of(*nodes: Any) -> list[NodeInfo]:
    infos = []
    for node in nodes:
        info = NodeInfo()
        info.set_node(node)
        infos.append(info)
    return infos
