"""MostAllocated: favour nodes that are already busy (bin packing)."""

from __future__ import annotations

from collections.abc import Sequence

from framework.config.types import ResourceSpec
from framework.interface.types import MAX_NODE_SCORE
from framework.plugins.noderesources.resource_allocation import Scorer
from framework.util.gomath import go_div


def most_resource_scorer(resources: Sequence[ResourceSpec]) -> Scorer:
    """The weighted mean, over resources the node has, of each resource's used share (0-100)."""
    weights = [spec.weight for spec in resources]

    def scorer(requested: list[int], allocated: list[int], allocatable: list[int]) -> int:
        node_score = weight_sum = 0
        for i, capacity in enumerate(allocatable):
            if capacity == 0:
                continue
            node_score += most_requested_score(requested[i], capacity) * weights[i]
            weight_sum += weights[i]
        return 0 if weight_sum == 0 else go_div(node_score, weight_sum)

    return scorer


def most_requested_score(requested: int, capacity: int) -> int:
    """Used capacity on a 0-100 scale, capped at 100.

    Requests can exceed capacity because pods without requests count as 100m / 200Mi.
    """
    if capacity == 0:
        return 0
    requested = min(requested, capacity)
    return go_div(requested * MAX_NODE_SCORE, capacity)
