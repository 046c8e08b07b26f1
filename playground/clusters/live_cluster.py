"""A mirrored workspace as the second scheduler sees it: reads from the mirror, writes to the API.

The engine talks to one ``Cluster`` (framework.cluster.interface). For a workspace scheduling a
live cluster's pods, its reads are the workspace's (the mirror keeps them current, as an
informer keeps kube-scheduler's caches) and its writes are kube-scheduler's API calls
(``live_writes``): a bind, a status patch or a victim's deletion goes to the API server only,
and comes back into the workspace through the mirror, as it comes back to kube-scheduler
through its watch. Events go to the API server and are also stored as the workspace's events,
for the playground's pages.

``LiveCluster`` is the database's (the binding tasks bind through it); ``LiveInformerCluster``
the scheduler service's, with its reads from memory.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from playground.clusters.live_writes import LiveWrites, status_patch
from playground.scheduling.informer import InformerCluster
from playground.workspaces.cluster import DatabaseCluster


class LiveCluster(DatabaseCluster):
    """The workspace's objects, with kube-scheduler's writes sent to the cluster."""

    writes: LiveWrites

    def __init__(self, workspace_id: int, writes: LiveWrites | None = None) -> None:
        super().__init__(workspace_id)
        if writes is not None:  # LiveInformerCluster sets it before InformerCluster calls here
            self.writes = writes

    def bind(self, namespace: str, name: str, uid: str, node_name: str) -> None:
        self.writes.bind(namespace, name, uid, node_name)

    def update_pod_status(
        self,
        namespace: str,
        name: str,
        condition: dict[str, str] | None = None,
        nominated_node_name: str | None = None,
    ) -> None:
        pod = self.get("Pod", name, namespace)
        status = (pod.manifest or {}).get("status") or {} if pod is not None else {}
        patch = status_patch(status, condition, nominated_node_name, self.writes.clock.now())
        if patch is not None:
            self.writes.patch_pod_status(namespace, name, patch)

    def delete(self, obj: Any) -> None:
        """Preemption's only deletion: a victim pod."""
        self.writes.delete_pod(obj.namespace, obj.name)

    def record_event(self, event: dict[str, Any]) -> None:
        """To the cluster as kube-scheduler records it, and to the workspace's events."""
        regarding = self._reference(event["regarding"])
        related = self._reference(event["related"]) if event.get("related") else None
        # The recorder is the profile's of the pod being scheduled: the regarding pod, or the
        # preemptor (``related``) when a victim is regarded.
        scheduling = self._scheduler_name(event.get("related") or event["regarding"])
        self.writes.create_event(
            regarding,
            related,
            event.get("type", ""),
            event.get("reason", ""),
            event.get("action", ""),
            event.get("note", ""),
            scheduling,
        )
        super().record_event(event)

    def _reference(self, ref: dict[str, Any]) -> dict[str, Any]:
        """An ObjectReference as client-go's ``GetReference`` makes one for a pod (without its
        resourceVersion: the workspace keeps its own, not the cluster's)."""
        reference = {"apiVersion": "v1", "kind": ref.get("kind", "Pod")}
        if ref.get("namespace"):
            reference["namespace"] = ref["namespace"]
        reference["name"] = ref.get("name", "")
        obj = self.get(reference["kind"], reference["name"], ref.get("namespace", ""))
        if obj is not None and obj.uid:
            reference["uid"] = obj.uid
        return reference

    def _scheduler_name(self, ref: dict[str, Any]) -> str:
        pod = self.get("Pod", ref.get("name", ""), ref.get("namespace", ""))
        return pod.spec.scheduler_name if pod is not None else "default-scheduler"


class LiveInformerCluster(InformerCluster, LiveCluster):
    """The service's live cluster: reads from memory (``InformerCluster``), writes to the API."""

    def __init__(
        self,
        workspace_id: int,
        writes: LiveWrites,
        on_pod_deleted: Callable[[Any], None] | None = None,
    ) -> None:
        self.writes = writes
        InformerCluster.__init__(self, workspace_id, on_pod_deleted)
