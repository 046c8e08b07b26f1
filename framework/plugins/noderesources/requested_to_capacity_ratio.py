"""RequestedToCapacityRatio: score each resource's utilization through a user-given shape."""

from __future__ import annotations

from collections.abc import Sequence

from framework.config.types import (
    MAX_CUSTOM_PRIORITY_SCORE,
    ResourceSpec,
    UtilizationShapePoint,
)
from framework.interface.types import MAX_NODE_SCORE
from framework.plugins.helper.shape_score import (
    FunctionShape,
    FunctionShapePoint,
    build_broken_linear_function,
)
from framework.plugins.noderesources.resource_allocation import Scorer
from framework.util.gomath import go_div, go_round

MAX_UTILIZATION = 100


def requested_to_capacity_ratio_scorer(
    resources: Sequence[ResourceSpec], shape: Sequence[UtilizationShapePoint]
) -> Scorer:
    """Shape scores run 0-10 in the configuration; they are scaled to the node score range."""
    scale = go_div(MAX_NODE_SCORE, MAX_CUSTOM_PRIORITY_SCORE)
    points = [FunctionShapePoint(point.utilization, point.score * scale) for point in shape]
    return build_requested_to_capacity_ratio_scorer_function(points, resources)


def build_requested_to_capacity_ratio_scorer_function(
    shape: FunctionShape, resources: Sequence[ResourceSpec]
) -> Scorer:
    """The weighted mean of the per-resource shape scores, leaving out resources scoring 0."""
    raw_scoring_function = build_broken_linear_function(shape)
    weights = [spec.weight for spec in resources]

    def resource_score(requested: int, capacity: int) -> int:
        if capacity == 0 or requested > capacity:
            return raw_scoring_function(MAX_UTILIZATION)
        return raw_scoring_function(go_div(requested * MAX_UTILIZATION, capacity))

    def scorer(requested: list[int], allocated: list[int], allocatable: list[int]) -> int:
        node_score = weight_sum = 0
        for i, capacity in enumerate(allocatable):
            if capacity == 0:
                continue
            score = resource_score(requested[i], capacity)
            if score > 0:
                node_score += score * weights[i]
                weight_sum += weights[i]
        if weight_sum == 0:
            return 0
        return go_round(float(node_score) / float(weight_sum))

    return scorer
