"""NodeUnschedulable: keeps pods off cordoned nodes (``spec.unschedulable``)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from framework.api.node import Node
from framework.api.pod import Pod
from framework.api.taints import (
    TAINT_EFFECT_NO_SCHEDULE,
    TAINT_NODE_UNSCHEDULABLE,
    Taint,
    Toleration,
    tolerations_tolerate_taint,
)
from framework.interface.cycle_state import CycleState
from framework.interface.events import (
    ActionType,
    ClusterEvent,
    ClusterEventWithHint,
    EventResource,
    QueueingHint,
)
from framework.interface.plugins import BatchFilterPlugin, EnqueueExtensions, SignPlugin
from framework.interface.signers import TOLERATIONS_SIGNER_NAME, tolerations_signer
from framework.interface.status import Code, Status
from framework.interface.types import SignFragment
from framework.plugins import names
from framework.plugins.feature import Features
from framework.plugins.helper.typed import as_typed

if TYPE_CHECKING:
    from framework.interface.node_info import NodeInfo

ERR_REASON_UNSCHEDULABLE = "node(s) were unschedulable"

# A pod tolerating this taint also tolerates spec.unschedulable.
_UNSCHEDULABLE_TAINT = Taint(key=TAINT_NODE_UNSCHEDULABLE, effect=TAINT_EFFECT_NO_SCHEDULE)


class NodeUnschedulable(BatchFilterPlugin, EnqueueExtensions, SignPlugin):
    """Rejects unschedulable nodes unless the pod tolerates the unschedulable taint."""

    name = names.NODE_UNSCHEDULABLE

    def __init__(self, args: Any, handle: Any, features: Features) -> None:
        self.enable_scheduling_queue_hint = features.enable_scheduling_queue_hint
        self.enable_comparison_operators = features.enable_taint_toleration_comparison_operators

    def sign_pod(self, pod: Pod) -> tuple[list[SignFragment] | None, Status | None]:
        """Feasibility depends on the tolerations alone."""
        return [SignFragment(TOLERATIONS_SIGNER_NAME, tolerations_signer(pod))], None

    def filter(self, state: CycleState, pod: Pod, node_info: NodeInfo) -> Status | None:
        if not node_info.node.spec.unschedulable:
            return None
        if self._tolerates_unschedulable(pod.spec.tolerations):
            return None
        return Status(Code.UNSCHEDULABLE_AND_UNRESOLVABLE, ERR_REASON_UNSCHEDULABLE)

    def filter_nodes(
        self, state: CycleState, pod: Pod, node_infos: Sequence[NodeInfo]
    ) -> list[Status | None]:
        """Only cordoned nodes need a closer look (``NodeInfo.unschedulable`` says which)."""
        statuses: list[Status | None] = [None] * len(node_infos)
        for index, node_info in enumerate(node_infos):
            if node_info.unschedulable:
                statuses[index] = self.filter(state, pod, node_info)
        return statuses

    def events_to_register(self) -> list[ClusterEventWithHint]:
        if not self.enable_scheduling_queue_hint:
            # Without hints a Node/Add can be missed by the queue's pre-check, so label and
            # taint updates are registered too (kubernetes#109437).
            node_actions = (
                ActionType.ADD | ActionType.UPDATE_NODE_TAINT | ActionType.UPDATE_NODE_LABEL
            )
            return [
                ClusterEventWithHint(
                    ClusterEvent(EventResource.NODE, node_actions),
                    self.is_schedulable_after_node_change,
                )
            ]
        return [
            ClusterEventWithHint(
                ClusterEvent(EventResource.NODE, ActionType.ADD | ActionType.UPDATE_NODE_TAINT),
                self.is_schedulable_after_node_change,
            ),
            ClusterEventWithHint(
                ClusterEvent(EventResource.POD, ActionType.UPDATE_POD_TOLERATION),
                self.is_schedulable_after_pod_toleration_change,
            ),
        ]

    def is_schedulable_after_pod_toleration_change(
        self, pod: Pod, old_obj: Any, new_obj: Any
    ) -> QueueingHint:
        """Queue when the rejected pod itself gained the unschedulable toleration.

        Tolerations can only be added, and the pod was rejected here, so it lacked it before.
        """
        _, modified_pod = as_typed(Pod, old_obj, new_obj)
        if pod.uid != modified_pod.uid:
            return QueueingHint.QUEUE_SKIP
        if self._tolerates_unschedulable(modified_pod.spec.tolerations):
            return QueueingHint.QUEUE
        return QueueingHint.QUEUE_SKIP

    def is_schedulable_after_node_change(
        self, pod: Pod, old_obj: Any, new_obj: Any
    ) -> QueueingHint:
        """Queue when a schedulable node was added or a node was uncordoned."""
        original_node, modified_node = as_typed(Node, old_obj, new_obj)
        if original_node is None:
            became_schedulable = not modified_node.spec.unschedulable
        else:
            became_schedulable = (
                original_node.spec.unschedulable and not modified_node.spec.unschedulable
            )
        return QueueingHint.QUEUE if became_schedulable else QueueingHint.QUEUE_SKIP

    def _tolerates_unschedulable(self, tolerations: list[Toleration]) -> bool:
        return tolerations_tolerate_taint(
            tolerations,
            _UNSCHEDULABLE_TAINT,
            enable_comparison_operators=self.enable_comparison_operators,
        )
