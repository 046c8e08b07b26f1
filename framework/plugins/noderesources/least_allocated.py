"""LeastAllocated: favour nodes with the most room left after placing the pod."""

from __future__ import annotations

from collections.abc import Sequence

from framework.config.types import ResourceSpec
from framework.interface.types import MAX_NODE_SCORE
from framework.plugins.noderesources.resource_allocation import BatchScorer, Scorer
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


def least_resource_batch_scorer(resources: Sequence[ResourceSpec]) -> BatchScorer:
    """``least_resource_scorer`` by columns: the same integer steps, one resource at a time."""
    weights = [spec.weight for spec in resources]

    def batch(
        pod_requests: list[int], allocatable: list[list[int]], allocated: list[list[int]]
    ) -> list[int]:
        count = len(allocatable[0])
        totals, weight_sums = [0] * count, [0] * count
        for weight, wanted, capacities, used in zip(
            weights, pod_requests, allocatable, allocated, strict=True
        ):
            # Amounts are never negative, so Go's truncating division is Python's floor here.
            totals = [
                total + (capacity - use - wanted) * MAX_NODE_SCORE // capacity * weight
                if capacity and use + wanted <= capacity
                else total
                for total, capacity, use in zip(totals, capacities, used, strict=True)
            ]
            weight_sums = [
                weight_sum + weight if capacity else weight_sum
                for weight_sum, capacity in zip(weight_sums, capacities, strict=True)
            ]
        return [
            total // weight_sum if weight_sum else 0
            for total, weight_sum in zip(totals, weight_sums, strict=True)
        ]

    return batch


def least_requested_score(requested: int, capacity: int) -> int:
    """Unused capacity on a 0-100 scale; an overcommitted resource scores 0."""
    if capacity == 0 or requested > capacity:
        return 0
    return go_div((capacity - requested) * MAX_NODE_SCORE, capacity)
