"""NodeName: a pod that names its node (``spec.nodeName``) fits only that node."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from framework.api.pod import Pod
from framework.interface.cycle_state import CycleState
from framework.interface.events import ActionType, ClusterEvent, ClusterEventWithHint, EventResource
from framework.interface.plugins import BatchFilterPlugin, EnqueueExtensions, SignPlugin
from framework.interface.signers import NODE_NAME_SIGNER_NAME
from framework.interface.status import Code, Status
from framework.interface.types import SignFragment
from framework.plugins import names
from framework.plugins.feature import Features

if TYPE_CHECKING:
    from framework.interface.node_info import NodeInfo

ERR_REASON = "node(s) didn't match the requested node name"


class NodeName(BatchFilterPlugin, EnqueueExtensions, SignPlugin):
    """Rejects every node but the one in ``spec.nodeName``, when set."""

    name = names.NODE_NAME

    def __init__(self, args: Any, handle: Any, features: Features) -> None:
        self.enable_scheduling_queue_hint = features.enable_scheduling_queue_hint

    def sign_pod(self, pod: Pod) -> tuple[list[SignFragment] | None, Status | None]:
        """Feasibility depends on ``spec.nodeName`` alone."""
        return [SignFragment(NODE_NAME_SIGNER_NAME, pod.spec.node_name)], None

    def filter(self, state: CycleState, pod: Pod, node_info: NodeInfo) -> Status | None:
        if not fits(pod, node_info):
            return Status(Code.UNSCHEDULABLE_AND_UNRESOLVABLE, ERR_REASON)
        return None

    def filter_nodes(
        self, state: CycleState, pod: Pod, node_infos: Sequence[NodeInfo]
    ) -> list[Status | None]:
        if not pod.spec.node_name:
            return [None] * len(node_infos)
        return [self.filter(state, pod, node_info) for node_info in node_infos]

    def events_to_register(self) -> list[ClusterEventWithHint]:
        # Only a new node can help. Without hints, a Node/Add can be missed by the queue's
        # pre-check, so label and taint updates are registered too (kubernetes#109437).
        node_actions = ActionType.ADD
        if not self.enable_scheduling_queue_hint:
            node_actions |= ActionType.UPDATE_NODE_TAINT | ActionType.UPDATE_NODE_LABEL
        return [ClusterEventWithHint(ClusterEvent(EventResource.NODE, node_actions))]


def fits(pod: Pod, node_info: NodeInfo) -> bool:
    """True when the pod names no node or names this one."""
    return not pod.spec.node_name or pod.spec.node_name == node_info.node.name
