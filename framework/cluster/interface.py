"""What the scheduler and plugins need from a cluster, whatever backs it.

Reads are the informer caches of upstream (``get`` / ``list`` by kind, plus ``watch`` for
changes); writes are the API calls kube-scheduler makes (bind, patch pod status, delete
preemption victims, record events). Kinds are the manifests' ``kind`` strings ("Pod", "Node",
"PersistentVolumeClaim", ...). Cluster-scoped objects use the namespace "".
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Protocol


class Cluster(Protocol):
    def get(self, kind: str, name: str, namespace: str = "") -> Any | None:
        """The object, or None when there is none."""
        ...

    def list(self, kind: str, namespace: str | None = None) -> list[Any]:
        """Every object of a kind, in one namespace or (None) in all."""
        ...

    def watch(self, handler: Callable[[str, Any, Any], None]) -> None:
        """Calls ``handler(event_type, old, new)`` (ADDED / MODIFIED / DELETED) on every change."""
        ...

    def create(self, obj: Any) -> Any:
        """Creates an object that must not exist yet (the claim DynamicResources makes for
        extended resources); raises AlreadyExistsError otherwise."""
        ...

    def update(self, obj: Any) -> Any:
        """Replaces an existing object (e.g. a PVC the volume binder annotates)."""
        ...

    def delete(self, obj: Any) -> None:
        """Deletes an object (preemption victims); raises NotFoundError if it is gone."""
        ...

    def bind(self, namespace: str, name: str, uid: str, node_name: str) -> None:
        """Binds a pod to a node (the Binding subresource); raises BindError on failure."""
        ...

    def update_pod_status(
        self,
        namespace: str,
        name: str,
        condition: dict[str, str] | None = None,
        nominated_node_name: str | None = None,
    ) -> None:
        """Patches a pod's condition (type/status/reason/message) and/or nominatedNodeName."""
        ...

    def record_event(self, event: dict[str, Any]) -> None:
        """Records a Kubernetes Event (Scheduled, FailedScheduling, Preempted...)."""
        ...


class BindError(Exception):
    """A bind the cluster refused (pod gone, uid mismatch, already bound...)."""


class AlreadyExistsError(Exception):
    """A create for an object that exists (the API server's AlreadyExists)."""


class NotFoundError(KeyError):
    """The object to change does not exist."""

    def __str__(self) -> str:
        return str(self.args[0]) if self.args else "not found"


def pod_uid(cluster: Cluster | None, pod_key: str) -> str:
    """The uid of the pod named ``namespace/name`` (trace events name pods by key), or "" when
    the cluster has no such pod."""
    if cluster is None:
        return ""
    namespace, _, name = pod_key.partition("/")
    pod = cluster.get("Pod", name, namespace)
    return pod.uid if pod is not None else ""
