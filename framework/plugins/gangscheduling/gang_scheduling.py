"""GangScheduling: all of a gang's ``minCount`` pods, or none (upstream gangscheduling.go).

A member of a ``gang`` PodGroup is held out of the active queue (PreEnqueue) until its
PodGroup exists and at least ``minCount`` members do; held, it gets no condition and no event.
Once scheduled, each member waits at Permit until ``minCount`` members are assumed or bound;
the one that completes the quorum lets the waiting ones through. Members of ``basic`` groups,
and pods outside groups, pass untouched.
"""

from __future__ import annotations

from typing import Any

from framework.api.pod import Pod
from framework.api.pod_group import PodGroup
from framework.interface.cycle_state import CycleState
from framework.interface.events import (
    ActionType,
    ClusterEvent,
    ClusterEventWithHint,
    EventResource,
    QueueingHint,
)
from framework.interface.plugins import EnqueueExtensions, PermitPlugin, PreEnqueuePlugin
from framework.interface.status import Code, Status
from framework.plugins import names
from framework.plugins.feature import Features
from framework.plugins.helper.pod_group import matching_scheduling_group
from framework.plugins.helper.typed import as_typed
from framework.storage.lookup import NotFoundError, get_object

PERMIT_TIMEOUT_SECONDS = 5 * 60.0
"""How long members wait at Permit for their gang's quorum before they are rejected."""

POD_GROUP_RESOURCE = "podgroup.scheduling.k8s.io"
"""How a missing PodGroup is named in NotFound errors."""


class GangScheduling(PreEnqueuePlugin, PermitPlugin, EnqueueExtensions):
    """Holds gang members until their group is complete, then binds them together."""

    name = names.GANG_SCHEDULING

    def __init__(self, args: Any, handle: Any, features: Features) -> None:
        # Built whatever the gates, as upstream: with GenericWorkload off the cache tracks no
        # group, and simulations refuse pods that name one.
        self.handle = handle

    # -- EnqueueExtensions ------------------------------------------------------------------

    def events_to_register(self) -> list[ClusterEventWithHint]:
        # A group's name on a pod and a PodGroup's spec are immutable: only additions matter.
        return [
            ClusterEventWithHint(
                ClusterEvent(EventResource.POD, ActionType.ADD), self.is_schedulable_after_pod_added
            ),
            ClusterEventWithHint(
                ClusterEvent(EventResource.POD_GROUP, ActionType.ADD),
                self.is_schedulable_after_pod_group_added,
            ),
        ]

    def is_schedulable_after_pod_added(self, pod: Pod, old_obj: Any, new_obj: Any) -> QueueingHint:
        """A new member of the pod's group may complete its gang's minCount."""
        _, added = as_typed(Pod, old_obj, new_obj)
        if not matching_scheduling_group(pod, added):
            return QueueingHint.QUEUE_SKIP
        return QueueingHint.QUEUE

    def is_schedulable_after_pod_group_added(
        self, pod: Pod, old_obj: Any, new_obj: Any
    ) -> QueueingHint:
        """The pod's own PodGroup appearing may let it in."""
        _, added = as_typed(PodGroup, old_obj, new_obj)
        if (
            pod.spec.pod_group_name is None
            or pod.namespace != added.namespace
            or pod.spec.pod_group_name != added.name
        ):
            return QueueingHint.QUEUE_SKIP
        return QueueingHint.QUEUE

    # -- PreEnqueue -------------------------------------------------------------------------

    def pre_enqueue(self, pod: Pod) -> Status | None:
        group_name = pod.spec.pod_group_name
        if group_name is None:
            return None
        try:
            group = self._pod_group(pod.namespace, group_name)
        except NotFoundError:
            return Status(
                Code.UNSCHEDULABLE_AND_UNRESOLVABLE,
                f'waiting for pods\'s pod group "{group_name}" to appear in scheduling queue',
            )
        policy = group.spec.scheduling_policy
        if not policy.gang:
            return None
        try:
            state = (
                self.handle.pod_group_manager().pod_group_states().get(pod.namespace, group_name)
            )
        except LookupError as err:
            return Status.as_status(err)
        if state.all_pods_count() < policy.min_count:
            return Status(
                Code.UNSCHEDULABLE_AND_UNRESOLVABLE,
                "waiting for minCount pods from a gang to appear in scheduling queue",
            )
        return None

    # -- Permit -----------------------------------------------------------------------------

    def permit(self, state: CycleState, pod: Pod, node_name: str) -> tuple[Status | None, float]:
        group_name = pod.spec.pod_group_name
        if group_name is None:
            return None, 0
        try:
            group = self._pod_group(pod.namespace, group_name)
        except NotFoundError as err:
            # Deleted meanwhile: an error, so the pod is retried once the group is back.
            return Status.error(f"failed to get podGroup {pod.namespace}/{group_name}: {err}"), 0
        policy = group.spec.scheduling_policy
        if not policy.gang:
            return None, 0
        try:
            group_state = self._pod_group_states(state).get(pod.namespace, group_name)
        except LookupError as err:
            return Status.as_status(err), 0
        if group_state.scheduled_pods_count() < policy.min_count:
            # Members held back may now find room next to this one.
            self.handle.activate(group_state.unscheduled())
            return (
                Status(Code.WAIT, "waiting for minCount pods from a gang to be scheduled"),
                PERMIT_TIMEOUT_SECONDS,
            )
        for uid in group_state.assumed_pod_uids():
            waiting_pod = self.handle.get_waiting_pod(uid)
            if waiting_pod is not None:
                waiting_pod.allow(self.name)
        return None, 0

    def _pod_group(self, namespace: str, name: str) -> PodGroup:
        return get_object(self.handle.cluster(), "PodGroup", POD_GROUP_RESOURCE, name, namespace)

    def _pod_group_states(self, state: CycleState) -> Any:
        """In a pod-group cycle the snapshot holds what the cycle assumed; otherwise the
        cache's live states do."""
        if state.is_pod_group_scheduling_cycle():
            return self.handle.snapshot_shared_lister().pod_group_states()
        return self.handle.pod_group_manager().pod_group_states()
