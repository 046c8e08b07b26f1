"""Reading storage objects from the cluster the way the scheduler's informer listers do.

A lister answers a missing object with a NotFound error whose text users see in statuses
(``persistentvolumeclaim "data" not found``), so lookups here raise :class:`NotFoundError`
with the same text. Fields the API layer does not parse yet are read from the manifest.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

PVC_RESOURCE = "persistentvolumeclaim"
PV_RESOURCE = "persistentvolume"
STORAGE_CLASS_RESOURCE = "storageclass.storage.k8s.io"
CSI_NODE_RESOURCE = "csinode.storage.k8s.io"
CSI_DRIVER_RESOURCE = "csidriver.storage.k8s.io"

PVC_KIND = "PersistentVolumeClaim"
PV_KIND = "PersistentVolume"
STORAGE_CLASS_KIND = "StorageClass"
CSI_NODE_KIND = "CSINode"
CSI_DRIVER_KIND = "CSIDriver"
CSI_STORAGE_CAPACITY_KIND = "CSIStorageCapacity"
VOLUME_ATTACHMENT_KIND = "VolumeAttachment"


class NotFoundError(LookupError):
    """The object does not exist (upstream ``apierrors.IsNotFound``)."""

    def __init__(self, resource: str, name: str, message: str = "") -> None:
        super().__init__(message or f'{resource} "{name}" not found')
        self.resource = resource
        self.name = name

    def wrapped(self, prefix: str) -> NotFoundError:
        """Still NotFound, with context in front (Go's ``fmt.Errorf("prefix: %w", err)``)."""
        return NotFoundError(self.resource, self.name, f"{prefix}: {self}")


def get_object(cluster: Any, kind: str, resource: str, name: str, namespace: str = "") -> Any:
    """The object, or NotFoundError; a missing cluster holds nothing."""
    obj = cluster.get(kind, name, namespace) if cluster is not None else None
    if obj is None:
        raise NotFoundError(resource, name)
    return obj


def list_objects(cluster: Any, kind: str) -> list[Any]:
    return cluster.list(kind) if cluster is not None else []


def get_pvc(cluster: Any, namespace: str, name: str) -> Any:
    return get_object(cluster, PVC_KIND, PVC_RESOURCE, name, namespace)


def get_pv(cluster: Any, name: str) -> Any:
    return get_object(cluster, PV_KIND, PV_RESOURCE, name)


def get_storage_class(cluster: Any, name: str) -> Any:
    return get_object(cluster, STORAGE_CLASS_KIND, STORAGE_CLASS_RESOURCE, name)


def get_csi_node(cluster: Any, name: str) -> Any:
    return get_object(cluster, CSI_NODE_KIND, CSI_NODE_RESOURCE, name)


def get_csi_driver(cluster: Any, name: str) -> Any:
    return get_object(cluster, CSI_DRIVER_KIND, CSI_DRIVER_RESOURCE, name)


def manifest_field(obj: Any, *path: str) -> Any:
    """A field of the object's manifest (None when absent), for fields not parsed into types."""
    value: Any = getattr(obj, "manifest", None)
    for key in path:
        if not isinstance(value, Mapping):
            return None
        value = value.get(key)
    return value
