"""TaintToleration: a pod must tolerate a node's NoSchedule and NoExecute taints, and prefers
nodes with fewer untolerated PreferNoSchedule taints."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from framework.api.node import Node
from framework.api.pod import Pod
from framework.api.taints import (
    TAINT_EFFECT_PREFER_NO_SCHEDULE,
    Taint,
    Toleration,
    find_matching_untolerated_taint,
    tolerations_tolerate_taint,
)
from framework.interface.cycle_state import CycleState, NotFoundError
from framework.interface.events import (
    ActionType,
    ClusterEvent,
    ClusterEventWithHint,
    EventResource,
    QueueingHint,
)
from framework.interface.plugins import (
    BatchFilterPlugin,
    BatchScoreExtensions,
    BatchScorePlugin,
    EnqueueExtensions,
    PreScorePlugin,
    SignPlugin,
)
from framework.interface.signers import TOLERATIONS_SIGNER_NAME, tolerations_signer
from framework.interface.status import Code, Status
from framework.interface.types import MAX_NODE_SCORE, NodeScore, SignFragment
from framework.plugins import names
from framework.plugins.feature import Features
from framework.plugins.helper.normalize_score import (
    default_normalize_score,
    default_normalize_score_values,
)
from framework.plugins.helper.taint import do_not_schedule_taints_filter_func
from framework.plugins.helper.typed import as_typed

if TYPE_CHECKING:
    from framework.interface.node_info import NodeInfo

PRE_SCORE_STATE_KEY = "PreScore" + names.TAINT_TOLERATION
ERR_REASON_UNTOLERATED = "node(s) had untolerated taint(s)"

_do_not_schedule = do_not_schedule_taints_filter_func()


class _PreScoreState:
    """The pod's tolerations that can apply to PreferNoSchedule taints."""

    __slots__ = ("tolerations_prefer_no_schedule",)

    def __init__(self, tolerations_prefer_no_schedule: list[Toleration]) -> None:
        self.tolerations_prefer_no_schedule = tolerations_prefer_no_schedule

    def clone(self) -> _PreScoreState:
        return self


class TaintToleration(
    BatchFilterPlugin,
    PreScorePlugin,
    BatchScorePlugin,
    BatchScoreExtensions,
    EnqueueExtensions,
    SignPlugin,
):
    """Filter on hard taints; score by the count of untolerated PreferNoSchedule taints."""

    name = names.TAINT_TOLERATION

    def __init__(self, args: Any, handle: Any, features: Features) -> None:
        self.enable_scheduling_queue_hint = features.enable_scheduling_queue_hint
        self.enable_comparison_operators = features.enable_taint_toleration_comparison_operators

    def sign_pod(self, pod: Pod) -> tuple[list[SignFragment] | None, Status | None]:
        """Feasibility and score depend on the tolerations alone."""
        return [SignFragment(TOLERATIONS_SIGNER_NAME, tolerations_signer(pod))], None

    # Filter

    def filter(self, state: CycleState, pod: Pod, node_info: NodeInfo) -> Status | None:
        if self._untolerated_taint(node_info.node, pod) is None:
            return None
        return Status(Code.UNSCHEDULABLE_AND_UNRESOLVABLE, ERR_REASON_UNTOLERATED)

    def filter_nodes(
        self, state: CycleState, pod: Pod, node_infos: Sequence[NodeInfo]
    ) -> list[Status | None]:
        """Only tainted nodes need a closer look (``NodeInfo.taints`` says which)."""
        statuses: list[Status | None] = [None] * len(node_infos)
        for index, node_info in enumerate(node_infos):
            if node_info.taints:
                statuses[index] = self.filter(state, pod, node_info)
        return statuses

    # Score

    def pre_score(self, state: CycleState, pod: Pod, nodes: list[NodeInfo]) -> Status | None:
        tolerations = get_all_toleration_prefer_no_schedule(pod.spec.tolerations)
        state.write(PRE_SCORE_STATE_KEY, _PreScoreState(tolerations))
        return None

    def score(self, state: CycleState, pod: Pod, node_info: NodeInfo) -> tuple[int, Status | None]:
        try:
            pre_score: _PreScoreState = state.read(PRE_SCORE_STATE_KEY)  # type: ignore[assignment]
        except NotFoundError as err:
            return 0, Status.error(f'failed to read "{PRE_SCORE_STATE_KEY}" from cycleState: {err}')
        count = self._count_intolerable_taints_prefer_no_schedule(
            node_info.node.spec.taints, pre_score.tolerations_prefer_no_schedule
        )
        return count, None

    def score_nodes(
        self, state: CycleState, pod: Pod, node_infos: Sequence[NodeInfo]
    ) -> tuple[list[int], Status | None]:
        try:
            pre_score: _PreScoreState = state.read(PRE_SCORE_STATE_KEY)  # type: ignore[assignment]
        except NotFoundError as err:
            message = f'failed to read "{PRE_SCORE_STATE_KEY}" from cycleState: {err}'
            return [], Status.error(message)
        tolerations = pre_score.tolerations_prefer_no_schedule
        scores = [0] * len(node_infos)
        for index, node_info in enumerate(node_infos):
            taints = node_info.taints
            if taints:
                scores[index] = self._count_intolerable_taints_prefer_no_schedule(
                    taints, tolerations
                )
        return scores, None

    def score_extensions(self) -> BatchScoreExtensions:
        return self

    def normalize_score(
        self, state: CycleState, pod: Pod, scores: list[NodeScore]
    ) -> Status | None:
        # More untolerated taints is worse, hence reversed.
        return default_normalize_score(MAX_NODE_SCORE, True, scores)

    def normalize_score_values(
        self, state: CycleState, pod: Pod, scores: list[int]
    ) -> Status | None:
        return default_normalize_score_values(MAX_NODE_SCORE, True, scores)

    # Queueing

    def events_to_register(self) -> list[ClusterEventWithHint]:
        if self.enable_scheduling_queue_hint:
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
        # Without hints, a Node/Add can be missed by the queue's pre-check, so label updates are
        # registered too (kubernetes#109437); updates of unschedulable pods requeue them anyway.
        node_actions = ActionType.ADD | ActionType.UPDATE_NODE_TAINT | ActionType.UPDATE_NODE_LABEL
        return [
            ClusterEventWithHint(
                ClusterEvent(EventResource.NODE, node_actions),
                self.is_schedulable_after_node_change,
            )
        ]

    def is_schedulable_after_node_change(
        self, pod: Pod, old_obj: Any, new_obj: Any
    ) -> QueueingHint:
        """Queue when the node goes from having an untolerated hard taint to having none."""
        original_node, modified_node = as_typed(Node, old_obj, new_obj)
        was_untolerated = True
        if original_node is not None:
            was_untolerated = self._untolerated_taint(original_node, pod) is not None
        is_untolerated = self._untolerated_taint(modified_node, pod) is not None
        if was_untolerated and not is_untolerated:
            return QueueingHint.QUEUE
        return QueueingHint.QUEUE_SKIP

    def is_schedulable_after_pod_toleration_change(
        self, pod: Pod, old_obj: Any, new_obj: Any
    ) -> QueueingHint:
        """Queue when the rejected pod itself gained a toleration."""
        _, modified_pod = as_typed(Pod, old_obj, new_obj)
        if pod.uid == modified_pod.uid:
            return QueueingHint.QUEUE
        return QueueingHint.QUEUE_SKIP

    # Helpers

    def _untolerated_taint(self, node: Node, pod: Pod) -> Taint | None:
        """The first NoSchedule or NoExecute taint of the node the pod does not tolerate."""
        if not node.spec.taints:
            return None
        return find_matching_untolerated_taint(
            node.spec.taints,
            pod.spec.tolerations,
            _do_not_schedule,
            enable_comparison_operators=self.enable_comparison_operators,
        )

    def _count_intolerable_taints_prefer_no_schedule(
        self, taints: Sequence[Taint], tolerations: list[Toleration]
    ) -> int:
        return sum(
            1
            for taint in taints
            if taint.effect == TAINT_EFFECT_PREFER_NO_SCHEDULE
            and not tolerations_tolerate_taint(
                tolerations, taint, enable_comparison_operators=self.enable_comparison_operators
            )
        )


def get_all_toleration_prefer_no_schedule(tolerations: list[Toleration]) -> list[Toleration]:
    """Tolerations with effect PreferNoSchedule or no effect (which matches every effect)."""
    return [t for t in tolerations if not t.effect or t.effect == TAINT_EFFECT_PREFER_NO_SCHEDULE]
