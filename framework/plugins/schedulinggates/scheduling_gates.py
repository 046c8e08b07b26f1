"""SchedulingGates: keeps a pod out of the active queue while it has scheduling gates."""

from __future__ import annotations

from typing import Any

from framework.api.pod import Pod
from framework.interface.events import (
    ActionType,
    ClusterEvent,
    ClusterEventWithHint,
    EventResource,
    QueueingHint,
)
from framework.interface.plugins import EnqueueExtensions, PreEnqueuePlugin
from framework.interface.status import Code, Status
from framework.plugins import names
from framework.plugins.feature import Features
from framework.plugins.helper.typed import as_typed


class SchedulingGates(PreEnqueuePlugin, EnqueueExtensions):
    """Gates the pod until ``spec.schedulingGates`` is empty."""

    name = names.SCHEDULING_GATES

    def __init__(self, args: Any, handle: Any, features: Features) -> None:
        self.enable_scheduling_queue_hint = features.enable_scheduling_queue_hint

    def pre_enqueue(self, pod: Pod) -> Status | None:
        gates = pod.spec.scheduling_gates
        if not gates:
            return None
        return Status(
            Code.UNSCHEDULABLE_AND_UNRESOLVABLE,
            f"waiting for scheduling gates: [{' '.join(gates)}]",
        )

    def events_to_register(self) -> list[ClusterEventWithHint]:
        # Without queueing hints, any update of a gated pod re-runs PreEnqueue anyway.
        if not self.enable_scheduling_queue_hint:
            return []
        return [
            ClusterEventWithHint(
                ClusterEvent(EventResource.POD, ActionType.UPDATE_POD_SCHEDULING_GATES_ELIMINATED),
                self.is_schedulable_after_update_pod_scheduling_gates_eliminated,
            )
        ]

    def is_schedulable_after_update_pod_scheduling_gates_eliminated(
        self, pod: Pod, old_obj: Any, new_obj: Any
    ) -> QueueingHint:
        """Only the gated pod's own update can lift its gates."""
        _, modified_pod = as_typed(Pod, old_obj, new_obj)
        if modified_pod.uid != pod.uid:
            return QueueingHint.QUEUE_SKIP
        return QueueingHint.QUEUE
