"""LeastAllocated: favour nodes with the most room left after placing the pod."""

from __future__ import annotations

from collections.abc import Sequence

from framework.config.types import ResourceSpec
from framework.interface.types import MAX_NODE_SCORE
from framework.plugins.noderesources.resource_allocation import Scorer
from framework.util.gomath import go_div


def least_resource_scorer(resources: Sequence[ResourceSpec]) -> Scorer:
    """The weighted mean, over resources the node has, of each resource's free share (0-100)."""
    weights = [spec.weight for spec in resources]

    def scorer(requested: list[int], allocated: list[int], allocatable: list[int]) -> int:
        node_score = weight_sum = 0
        for i, capacity in enumerate(allocatable):
            if capacity == 0:
                continue
            node_score += least_requested_score(requested[i], capacity) * weights[i]
            weight_sum += weights[i]
        return 0 if weight_sum == 0 else go_div(node_score, weight_sum)

    return scorer


def least_requested_score(requested: int, capacity: int) -> int:
    """Unused capacity on a 0-100 scale; an overcommitted resource scores 0."""
    if capacity == 0 or requested > capacity:
        return 0
    return go_div((capacity - requested) * MAX_NODE_SCORE, capacity)
