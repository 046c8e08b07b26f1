"""Cluster events into the cache and the queue (upstream eventhandlers.go).

Assigned pods go to the cache, pending pods of our profiles to the queue; every change is
also offered to the queue as a ClusterEvent so rejected pods whose hints say Queue move back.
Each handler is timed into ``scheduler_event_handling_duration_seconds`` under the label of
the event it handles, as upstream times its: a whole handler, or for an update that becomes
several events, the cache update plus that event's requeueing.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Iterator
from time import perf_counter
from typing import TYPE_CHECKING, Any

from framework.backend.cache.errors import CacheError
from framework.interface.cluster_events import (
    EVENT_ASSIGNED_POD_ADD,
    EVENT_ASSIGNED_POD_DELETE,
    EVENT_ASSIGNED_POD_UPDATE,
    EVENT_UNSCHEDULED_POD_ADD,
    EVENT_UNSCHEDULED_POD_DELETE,
    EVENT_UNSCHEDULED_POD_UPDATE,
    node_scheduling_properties_change,
    pod_scheduling_properties_change,
)
from framework.interface.events import ActionType, ClusterEvent, EventResource
from framework.metrics import EVENT_HANDLING_DURATION_SECONDS

if TYPE_CHECKING:
    from framework.api.node import Node
    from framework.api.pod import Pod
    from framework.features import FeatureGates
    from framework.metrics import Metrics

ADDED, MODIFIED, DELETED = "ADDED", "MODIFIED", "DELETED"

# Kinds whose changes only matter through queueing hints (not cached by the scheduler).
_RESOURCE_OF_KIND = {
    "PersistentVolume": EventResource.PERSISTENT_VOLUME,
    "PersistentVolumeClaim": EventResource.PERSISTENT_VOLUME_CLAIM,
    "StorageClass": EventResource.STORAGE_CLASS,
    "CSINode": EventResource.CSI_NODE,
    "CSIDriver": EventResource.CSI_DRIVER,
    "CSIStorageCapacity": EventResource.CSI_STORAGE_CAPACITY,
    "VolumeAttachment": EventResource.VOLUME_ATTACHMENT,
    "ResourceClaim": EventResource.RESOURCE_CLAIM,
    "ResourceSlice": EventResource.RESOURCE_SLICE,
    "DeviceClass": EventResource.DEVICE_CLASS,
}
_ACTION_OF_TYPE = {ADDED: ActionType.ADD, MODIFIED: ActionType.UPDATE, DELETED: ActionType.DELETE}


class EventHandlers:
    """Informer callbacks of the Scheduler; mixed into Scheduler (see scheduler.py)."""

    profiles: dict[str, Any]
    queue: Any
    cache: Any
    features: FeatureGates
    metrics: Metrics

    def handle_cluster_event(self, event_type: str, old: Any, new: Any) -> None:
        """A watch event: ``ADDED`` (new), ``MODIFIED`` (old, new) or ``DELETED`` (old)."""
        kind = (new if new is not None else old).kind
        if kind == "Pod":
            if event_type == ADDED:
                self.add_pod(new)
            elif event_type == MODIFIED:
                self.update_pod(old, new)
            else:
                self.delete_pod(old)
        elif kind == "Node":
            if event_type == ADDED:
                self.add_node_to_cache(new)
            elif event_type == MODIFIED:
                self.update_node_in_cache(old, new)
            else:
                self.delete_node_from_cache(old)
        elif kind == "PodGroup":
            # kube-scheduler watches PodGroups only with the GenericWorkload gate.
            if self.features.enabled("GenericWorkload"):
                event = ClusterEvent(EventResource.POD_GROUP, _ACTION_OF_TYPE[event_type])
                self._requeue_for(event, old, new)
        elif kind in _RESOURCE_OF_KIND:
            event = ClusterEvent(_RESOURCE_OF_KIND[kind], _ACTION_OF_TYPE[event_type])
            self._requeue_for(event, old, new)

    def _requeue_for(self, event: ClusterEvent, old: Any, new: Any) -> None:
        """A change of a kind the scheduler does not cache. Upstream registers a handler only
        for the actions some plugin's events ask for: for the others, nothing (not even the
        handling duration) is recorded."""
        if self.queue.hints.is_event_of_interest(event):
            self._move_timed(event, old, new, None)

    # ------------------------------------------------------------------------------------------
    # Timing (scheduler_event_handling_duration_seconds)

    @contextlib.contextmanager
    def _handling(self, *events: ClusterEvent) -> Iterator[None]:
        """Times the block once for each event, however it ends (upstream defers this)."""
        started = perf_counter()
        try:
            yield
        finally:
            seconds = perf_counter() - started
            for event in events:
                self._observe_handling(event, seconds)

    def _move_timed(
        self,
        event: ClusterEvent,
        old: Any,
        new: Any,
        pre_check: Callable[[Pod], bool] | None,
        updating: float = 0.0,
    ) -> None:
        """Requeues for ``event``, timed with the ``updating`` seconds the cache took before."""
        started = perf_counter()
        self.queue.move_all_to_active_or_backoff_queue(event, old, new, pre_check)
        self._observe_handling(event, updating + perf_counter() - started)

    def _observe_handling(self, event: ClusterEvent, seconds: float) -> None:
        self.metrics.observe(EVENT_HANDLING_DURATION_SECONDS, seconds, event=event.label())

    # ------------------------------------------------------------------------------------------
    # Nodes

    def add_node_to_cache(self, node: Node) -> None:
        event = ClusterEvent(EventResource.NODE, ActionType.ADD)
        with self._handling(event):
            self.cache.add_node(node)
            self.queue.move_all_to_active_or_backoff_queue(event, None, node, None)

    def update_node_in_cache(self, old: Node, new: Node) -> None:
        started = perf_counter()
        self.cache.update_node(old, new)
        events = node_scheduling_properties_change(new, old)
        updating = perf_counter() - started
        for event in events:
            self._move_timed(event, old, new, None, updating)

    def delete_node_from_cache(self, node: Node) -> None:
        event = ClusterEvent(EventResource.NODE, ActionType.DELETE)
        with self._handling(event):
            self.queue.move_all_to_active_or_backoff_queue(event, node, None, None)
            self.cache.remove_node(node)

    # ------------------------------------------------------------------------------------------
    # Pods

    def responsible_for_pod(self, pod: Pod) -> bool:
        return pod.spec.scheduler_name in self.profiles

    def add_pod(self, pod: Pod) -> None:
        if pod.spec.node_name:
            self._add_assigned_pod_to_cache(pod)
        elif self.responsible_for_pod(pod):
            self._add_pod_to_scheduling_queue(pod)

    def update_pod(self, old: Pod, new: Pod) -> None:
        if old.spec.node_name:
            self._update_assigned_pod_in_cache(old, new)
        elif new.spec.node_name:
            self._add_assigned_pod_to_cache(new)
            if self.responsible_for_pod(old):
                self._delete_pod_from_scheduling_queue(old, in_binding=True)
        elif self.responsible_for_pod(old):
            self._update_pod_in_scheduling_queue(old, new)

    def delete_pod(self, pod: Pod) -> None:
        if pod.spec.node_name:
            self._delete_assigned_pod_from_cache(pod)
        elif self.responsible_for_pod(pod):
            self._delete_pod_from_scheduling_queue(pod, in_binding=False)

    def _add_pod_to_scheduling_queue(self, pod: Pod) -> None:
        with self._handling(EVENT_UNSCHEDULED_POD_ADD):
            self.cache.add_pod_group_member(pod)
            self.queue.add(pod)
            if self.features.enabled("GangScheduling"):
                # The new pod may complete a gang whose other members PreEnqueue holds back.
                self.queue.move_all_to_active_or_backoff_queue(
                    EVENT_UNSCHEDULED_POD_ADD, None, pod, None
                )

    def _update_pod_in_scheduling_queue(self, old: Pod, new: Pod) -> None:
        if old.metadata.resource_version and (
            old.metadata.resource_version == new.metadata.resource_version
        ):
            return
        # Timed as the update and as each other event the change amounts to, as upstream.
        label = EVENT_UNSCHEDULED_POD_UPDATE.label()
        changes = [
            event for event in pod_scheduling_properties_change(new, old) if event.label() != label
        ]
        with self._handling(EVENT_UNSCHEDULED_POD_UPDATE, *changes):
            self._update_queued_pod(old, new)

    def _update_queued_pod(self, old: Pod, new: Pod) -> None:
        self.cache.update_pod_group_member(old, new)
        if self.cache.is_assumed_pod(new):
            if (
                new.metadata.deletion_timestamp is not None
                and old.metadata.deletion_timestamp is None
            ):
                self._handle_assumed_pod_deletion(new)
            return
        self.queue.update(old, new)
        if old.status.nominated_node_name and (
            old.status.nominated_node_name != new.status.nominated_node_name
        ):
            self.queue.move_all_to_active_or_backoff_queue(
                EVENT_ASSIGNED_POD_DELETE, old, None, _le_priority(old.spec.priority)
            )

    def _delete_pod_from_scheduling_queue(self, pod: Pod, in_binding: bool) -> None:
        with self._handling(EVENT_UNSCHEDULED_POD_DELETE):
            self._delete_queued_pod(pod, in_binding)

    def _delete_queued_pod(self, pod: Pod, in_binding: bool) -> None:
        self.queue.delete(pod)
        if in_binding:
            return
        self.cache.remove_pod_group_member(pod)
        if self.cache.is_assumed_pod(pod):
            self._handle_assumed_pod_deletion(pod)
        elif pod.status.nominated_node_name:
            self.queue.move_all_to_active_or_backoff_queue(
                EVENT_ASSIGNED_POD_DELETE, pod, None, _le_priority(pod.spec.priority)
            )

    def _handle_assumed_pod_deletion(self, pod: Pod) -> None:
        """A deleted pod that was assumed: stop its wait at Permit, or free what it held."""
        try:
            assumed = self.cache.get_pod(pod)
        except CacheError:
            return
        framework = self.profiles.get(assumed.spec.scheduler_name)
        if framework is None:
            return
        if not framework.reject_waiting_pod(assumed.uid):
            with contextlib.suppress(CacheError):
                self.cache.forget_pod(assumed)
        self.queue.move_all_to_active_or_backoff_queue(
            EVENT_ASSIGNED_POD_DELETE, assumed, None, None
        )

    def _add_assigned_pod_to_cache(self, pod: Pod) -> None:
        with self._handling(EVENT_ASSIGNED_POD_ADD):
            with contextlib.suppress(CacheError):  # upstream logs and carries on
                self.cache.add_pod(pod)
            self.queue.move_all_to_active_or_backoff_queue(EVENT_ASSIGNED_POD_ADD, None, pod, None)

    def _update_assigned_pod_in_cache(self, old: Pod, new: Pod) -> None:
        with self._handling(EVENT_ASSIGNED_POD_UPDATE):
            started = perf_counter()
            with contextlib.suppress(CacheError):
                self.cache.update_pod(old, new)
            events = pod_scheduling_properties_change(new, old)
            updating = perf_counter() - started
            for event in events:
                self._move_timed(event, old, new, None, updating)

    def _delete_assigned_pod_from_cache(self, pod: Pod) -> None:
        with self._handling(EVENT_ASSIGNED_POD_DELETE):
            with contextlib.suppress(CacheError):
                self.cache.remove_pod(pod)
            self.queue.move_all_to_active_or_backoff_queue(
                EVENT_ASSIGNED_POD_DELETE, pod, None, None
            )

    def move_all_to_active_or_backoff_queue_on_assigned_pod_delete(
        self, pod: Pod, pre_check: Callable[[Pod], bool] | None
    ) -> None:
        self.queue.move_all_to_active_or_backoff_queue(
            EVENT_ASSIGNED_POD_DELETE, pod, None, pre_check
        )


def _le_priority(priority: int) -> Callable[[Pod], bool]:
    return lambda pod: pod.spec.priority <= priority
