"""A mirrored workspace as the second scheduler sees it: reads from the mirror, writes to the API.

The engine talks to one ``Cluster`` (framework.cluster.interface). For a workspace scheduling a
live cluster's pods, its reads are the workspace's (the mirror keeps them current, as an
informer keeps kube-scheduler's caches) and its writes are kube-scheduler's API calls
(``live_writes``, ``live_claims``): a bind, a status patch, a victim's deletion or a claim's
allocation goes to the API server only, and comes back into the workspace through the mirror,
as it comes back to kube-scheduler through its watch (a claim written is assumed meanwhile).
Events go to the API server and are also stored as the workspace's events, for the
playground's pages.

``LiveCluster`` is the database's (the binding tasks bind through it); ``LiveInformerCluster``
the scheduler service's, with its reads from memory.

A binding task binds a batch of pods inside ``binding_batch``: the pods are read in one query,
and the Scheduled events of the batch are sent once its binds are done (kube-scheduler's event
broadcaster sends them off the binding path too) and stored in one insert. The second
scheduler's binding tasks split a batch into lanes, one cluster each on threads of their own
(kube-scheduler binds each pod in a goroutine of its own): ``pods_named`` reads the pods,
``binding_lane`` binds without the database, ``send_held_events`` sends the events afterwards.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from functools import cached_property
from typing import Any

from kubernetes.client.exceptions import ApiException

from framework.api.loader import parse_object
from framework.api.pod import Pod
from framework.cluster.interface import NotFoundError
from framework.plugins.dynamicresources.pod_claims import RESOURCE_CLAIM_KIND
from playground.clusters.live_claims import ClaimWriteError, ClaimWrites
from playground.clusters.live_writes import (
    NOT_FOUND,
    LiveWrites,
    pod_group_status_patch,
    server_message,
    status_patch,
)
from playground.scheduling.informer import InformerCluster
from playground.workspaces.cluster import DatabaseCluster, PodKey
from playground.workspaces.models import KubeEvent

EventCall = tuple[tuple[Any, ...], KubeEvent]
"""An event to send (``LiveWrites.create_event``'s arguments) and its row in the workspace."""


class LiveCluster(DatabaseCluster):
    """The workspace's objects, with kube-scheduler's writes sent to the cluster."""

    writes: LiveWrites

    def __init__(self, workspace_id: int, writes: LiveWrites | None = None) -> None:
        super().__init__(workspace_id)
        if writes is not None:  # LiveInformerCluster sets it before InformerCluster calls here
            self.writes = writes
        self._known: dict[PodKey, Pod] = {}
        """The pods of the open ``binding_batch``, as read when it opened."""
        self._deferred: list[EventCall] | None = None
        """Events recorded in the open ``binding_lane``."""
        self._held: list[EventCall] = []
        """Events of the lanes that ended, for ``send_held_events``."""

    def get(self, kind: str, name: str, namespace: str = "") -> Any | None:
        known = self._known.get((namespace, name)) if kind == "Pod" else None
        return known if known is not None else super().get(kind, name, namespace)

    @contextmanager
    def binding_batch(self, pods: Iterable[PodKey]) -> Iterator[dict[PodKey, Pod]]:
        """Binds made inside go to the API server one by one, at once; yields the stored pods
        named by ``pods`` (read in one query). The events recorded inside are sent when the
        block ends, even by an error: the binds made before it stand."""
        known = self.pods_named(pods)
        try:
            with self.binding_lane(known):
                yield dict(known)
        finally:
            KubeEvent.objects.bulk_create(self.send_held_events())

    def pods_named(self, pods: Iterable[PodKey]) -> dict[PodKey, Pod]:
        """The stored pods of ``pods`` (read in one query; those not stored are left out)."""
        rows = self._pod_rows(list(pods))
        return {key: self._parse_row(row) for key, row in rows.items()}

    @contextmanager
    def binding_lane(self, known: dict[PodKey, Pod]) -> Iterator[None]:
        """Binds inside go to the API server at once, reading the pods from ``known`` (read
        beforehand: nothing inside touches the database, so a lane runs on a thread of its
        own beside others); the events recorded inside are held for ``send_held_events``."""
        self._known, self._deferred = known, []
        try:
            yield
        finally:
            self._held.extend(self._deferred)
            self._deferred, self._known = None, {}

    def send_held_events(self) -> list[KubeEvent]:
        """Sends the events held by lanes to the API server; their rows, for the caller to
        store (the database is the caller's: a lane's thread does not write there)."""
        held, self._held = self._held, []
        return self._send(held)

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
        """Preemption's victim pod, or DynamicResources' claim for extended resources."""
        if obj.kind == RESOURCE_CLAIM_KIND:
            self._claim_call(lambda: self.claims.delete(obj.namespace, obj.name))
            self._forget(obj)
            return
        self.writes.delete_pod(obj.namespace, obj.name)

    # ------------------------------------------------------------------------------------------
    # DynamicResources' writes (see live_claims)

    @cached_property
    def claims(self) -> ClaimWrites:
        return ClaimWrites(self.writes.core.api_client)

    def update(self, obj: Any) -> Any:
        """A claim's allocation and reservations (PreBind, Unreserve, PostFilter) through the
        claim's API, a pod's ``status.extendedResourceClaimStatus`` (PreBind for DRA
        extended resources) through ``pods/status``, or a PodGroup's PodGroupScheduled
        condition (the pod-group cycle) through ``podgroups/status``: the engine's only
        updates of a live cluster. The written object is assumed at once (the mirror brings
        the server's copy later), as upstream's claim assume cache keeps it."""
        if obj.kind == RESOURCE_CLAIM_KIND:
            stored = self.get(obj.kind, obj.name, obj.namespace)
            before = stored.to_dict() if stored is not None else None
            self._claim_call(lambda: self.claims.write_status(obj.to_dict(), before))
        elif obj.kind == "Pod":
            status = obj.to_dict().get("status") or {}
            patch = {"extendedResourceClaimStatus": status.get("extendedResourceClaimStatus")}
            self.writes.patch_pod_status(obj.namespace, obj.name, {"status": patch})
        elif obj.kind == "PodGroup":
            self._patch_pod_group_status(obj)
        else:
            return super().update(obj)
        self._assume(obj)
        return obj

    def _patch_pod_group_status(self, group: Any) -> None:
        stored = self.get(group.kind, group.name, group.namespace)
        before = ((stored.manifest or {}).get("status") or {}) if stored is not None else {}
        after = group.to_dict().get("status") or {}
        patch = pod_group_status_patch(before, after, self.writes.clock.now())
        if patch is not None:
            self.writes.patch_pod_group_status(group.namespace, group.name, patch)

    def create(self, obj: Any) -> Any:
        """DynamicResources' claim for DRA extended resources, created in the cluster."""
        if obj.kind != RESOURCE_CLAIM_KIND:
            return super().create(obj)
        created = parse_object(self._claim_call(lambda: self.claims.create(obj.to_dict())))
        self._assume(created)
        return created

    def _claim_call(self, call: Callable[[], Any]) -> Any:
        """The call's answer; a refusal is a ClaimWriteError with the server's message (never
        the client's exception text, which quotes response headers)."""
        try:
            return call()
        except ApiException as err:
            if err.status == NOT_FOUND:
                raise NotFoundError(server_message(err)) from None
            raise ClaimWriteError(server_message(err)) from None

    def _assume(self, obj: Any) -> None:
        """Nothing to keep: reads go to the database, which the mirror updates."""

    def _forget(self, obj: Any) -> None:
        """Nothing to drop (see ``_assume``)."""

    def record_event(self, event: dict[str, Any]) -> None:
        """To the cluster as kube-scheduler records it, and to the workspace's events."""
        regarding = self._reference(event["regarding"])
        related = self._reference(event["related"]) if event.get("related") else None
        # The recorder is the profile's of the pod being scheduled: the regarding pod, or the
        # preemptor (``related``) when a victim is regarded.
        scheduling = self._scheduler_name(event.get("related") or event["regarding"])
        call = (
            regarding,
            related,
            event.get("type", ""),
            event.get("reason", ""),
            event.get("action", ""),
            event.get("note", ""),
            scheduling,
            event.get("time"),
        )
        if self._deferred is not None:
            self._deferred.append((call, self._event_row(event)))
        else:
            self._send_events([(call, self._event_row(event))])

    def _send_events(self, events: list[EventCall]) -> None:
        KubeEvent.objects.bulk_create(self._send(events))

    def _send(self, events: list[EventCall]) -> list[KubeEvent]:
        for call, _ in events:
            self.writes.create_event(*call)
        return [row for _, row in events]

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

    def _assume(self, obj: Any) -> None:
        """The written object stands in memory until the mirror brings the server's copy, so
        that the next cycle sees the devices allocated (upstream's AssumeClaimAfterAPICall)."""
        if self._store is not None:
            self._store.setdefault(obj.kind, {})[(obj.namespace, obj.name)] = obj

    def _forget(self, obj: Any) -> None:
        if self._store is not None:
            self._store.get(obj.kind, {}).pop((obj.namespace, obj.name), None)
