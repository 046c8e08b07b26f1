"""PodGroupPodsCount: the placement that holds more of the group wins (upstream
podgrouppodscount/podgroup_pods_count.go, TopologyAwareWorkloadScheduling; weight 1 in the
default profile).

A placement scores the group's scheduled (assumed or bound) members plus the members proposed
there, so that small differences in count stay small differences in score; normalized against
the highest count only, not ``minCount``, for the same reason.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from framework.interface.plugins import PlacementScoreExtensions, PlacementScorePlugin
from framework.interface.status import Status
from framework.interface.types import MAX_NODE_SCORE, MIN_NODE_SCORE
from framework.plugins import names
from framework.plugins.feature import Features

if TYPE_CHECKING:
    from framework.interface.cycle_state import CycleState
    from framework.interface.placement import PlacementScore, PodGroupAssignments
    from framework.interface.pod_group_info import PodGroupInfo


class PodGroupPodsCount(PlacementScorePlugin, PlacementScoreExtensions):
    """Scores a placement by how many of the group's members it would hold."""

    name = names.POD_GROUP_PODS_COUNT

    def __init__(self, args: Any, handle: Any, features: Features) -> None:
        self.handle = handle

    def score_placement(
        self, state: CycleState, pod_group: PodGroupInfo, placement: PodGroupAssignments
    ) -> tuple[int, Status | None]:
        states = self.handle.snapshot_shared_lister().pod_group_states()
        try:
            group_state = states.get(pod_group.namespace, pod_group.name)
        except LookupError as err:
            return 0, Status.as_status(err)
        return group_state.scheduled_pods_count() + len(placement.proposed_assignments), None

    def placement_score_extensions(self) -> PlacementScoreExtensions:
        return self

    def normalize_placement_score(
        self, state: CycleState, pod_group: PodGroupInfo, scores: list[PlacementScore]
    ) -> Status | None:
        max_count = max((s.score for s in scores), default=0)
        if max_count <= 0:
            return Status.error(
                "no pods from pod group are assigned to any of the candidate placements"
            )
        score_range = MAX_NODE_SCORE - MIN_NODE_SCORE
        for score in scores:
            score.score = MIN_NODE_SCORE + score.score * score_range // max_count
        return None
