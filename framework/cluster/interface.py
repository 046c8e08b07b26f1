"""What the scheduler and plugins need from a cluster, whatever backs it.

Reads are the informer caches of upstream (``get`` / ``list`` by kind); writes are the API
calls kube-scheduler makes. Kinds are the manifests' ``kind`` strings ("Pod", "Node",
"PersistentVolumeClaim", ...). Cluster-scoped objects use the namespace "".
"""

from __future__ import annotations

from typing import Any, Protocol


class Cluster(Protocol):
    def get(self, kind: str, name: str, namespace: str = "") -> Any | None:
        """The object, or None when there is none."""
        ...

    def list(self, kind: str, namespace: str | None = None) -> list[Any]:
        """Every object of a kind, in one namespace or (None) in all."""
        ...

    def bind(self, namespace: str, name: str, uid: str, node_name: str) -> None:
        """Binds a pod to a node (the Binding subresource); raises BindError on failure."""
        ...


class BindError(Exception):
    """A bind the cluster refused (pod gone, uid mismatch, already bound...)."""
