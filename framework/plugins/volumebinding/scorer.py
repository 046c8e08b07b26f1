"""Scoring by how full a node's storage would get (StorageCapacityScoring, alpha in v1.36)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from framework.plugins.helper.shape_score import FunctionShape, build_broken_linear_function
from framework.util.gomath import go_div, go_round

MAX_UTILIZATION = 100


@dataclass(slots=True)
class StorageResource:
    """Bytes a pod's volumes of one class request, and the capacity they come from."""

    requested: int = 0
    capacity: int = 0


ClassResourceMap = dict[str, StorageResource]
VolumeCapacityScorer = Callable[[ClassResourceMap], int]


def build_scorer_function(shape: FunctionShape) -> VolumeCapacityScorer:
    """The node score: each class's score at its utilization, averaged over the classes."""
    raw = build_broken_linear_function(shape)

    def class_score(requested: int, capacity: int) -> int:
        if capacity == 0 or requested > capacity:
            return raw(MAX_UTILIZATION)
        return raw(go_div(requested * MAX_UTILIZATION, capacity))

    def score(class_resources: ClassResourceMap) -> int:
        if not class_resources:
            return 0
        total = sum(class_score(r.requested, r.capacity) for r in class_resources.values())
        return go_round(total / len(class_resources))

    return score
