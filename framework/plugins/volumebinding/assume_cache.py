"""Assume caches for PVs and claims: the cluster's objects, overlaid with assumed updates.

Reserve records the bindings it decided (a PV bound to a claim, a claim annotated with its
node) here before they reach the cluster, so the next pods scheduled do not pick the same PV.
An assumed object stands only while the cluster still holds the version it was made from: as
soon as the cluster's object changes (resourceVersion), the cluster's version wins again,
which is what upstream's informer events achieve.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from framework.api.core import PersistentVolume, PersistentVolumeClaim
from framework.storage import lookup
from framework.storage.volume import get_persistent_volume_class

ClusterGetter = Callable[[], Any]


class AssumeCache:
    """One kind's objects by key (``name`` or ``namespace/name``), with assumed versions."""

    def __init__(self, cluster: ClusterGetter, kind: str, resource: str) -> None:
        self._cluster = cluster
        self._kind = kind
        self._resource = resource
        self._assumed: dict[str, Any] = {}

    def get_api_obj(self, key: str) -> Any:
        """The cluster's version; raises NotFoundError (``persistentvolumes "x" not found``)."""
        namespace, _, name = key.rpartition("/")
        obj = self._cluster_get(name, namespace)
        if obj is None:
            raise lookup.NotFoundError(self._resource, key)
        return obj

    def _cluster_get(self, name: str, namespace: str) -> Any | None:
        cluster = self._cluster()
        return cluster.get(self._kind, name, namespace) if cluster is not None else None

    def get(self, key: str) -> Any:
        """The assumed version while it is current, else the cluster's."""
        obj = self.get_api_obj(key)
        assumed = self._assumed.get(key)
        if assumed is None or _version(assumed) != _version(obj):
            return obj
        return assumed

    def list(self, keep: Callable[[Any], bool]) -> list[Any]:
        """The cluster's objects ``keep`` selects (judged on the cluster's version)."""
        cluster = self._cluster()
        objects = cluster.list(self._kind) if cluster is not None else []
        return [self._current(obj) for obj in objects if keep(obj)]

    def _current(self, obj: Any) -> Any:
        assumed = self._assumed.get(obj.key)
        if assumed is not None and _version(assumed) == _version(obj):
            return assumed
        return obj

    def assume(self, obj: Any) -> None:
        """Records an update not sent yet; it must be based on the cluster's current version."""
        key = obj.key
        stored = self.get_api_obj(key)
        if _version(stored) != _version(obj):
            raise ValueError(
                f'"{key}" is out of sync (stored: {_version(stored)}, assume: {_version(obj)})'
            )
        self._assumed[key] = obj

    def restore(self, obj: Any) -> None:
        """Drops the assumed version made from this object's version, if any."""
        key = obj.key
        assumed = self._assumed.get(key)
        if assumed is not None and _version(assumed) == _version(obj):
            del self._assumed[key]


def _version(obj: Any) -> str:
    return obj.metadata.resource_version


class PVAssumeCache(AssumeCache):
    def __init__(self, cluster: ClusterGetter) -> None:
        super().__init__(cluster, lookup.PV_KIND, "persistentvolumes")

    def list_pvs(self, storage_class_name: str) -> list[PersistentVolume]:
        """PVs of a class, assumed bindings included, so no PV is promised to two claims."""
        return self.list(lambda pv: get_persistent_volume_class(pv) == storage_class_name)


class PVCAssumeCache(AssumeCache):
    def __init__(self, cluster: ClusterGetter) -> None:
        super().__init__(cluster, lookup.PVC_KIND, "persistentvolumeclaims")

    def get_claim(self, namespace: str, name: str) -> PersistentVolumeClaim:
        return self.get(f"{namespace}/{name}")
