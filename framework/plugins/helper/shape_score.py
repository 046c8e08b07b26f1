"""Piecewise-linear score functions built from (utilization, score) points."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

from framework.util.gomath import go_div


@dataclass(frozen=True, slots=True)
class FunctionShapePoint:
    """One point of a shape: the function's value ``score`` at argument ``utilization``."""

    utilization: int
    score: int


FunctionShape = Sequence[FunctionShapePoint]


def build_broken_linear_function(shape: FunctionShape) -> Callable[[int], int]:
    """The function through ``shape``'s points (sorted by utilization), flat outside them.

    Between two points the value is interpolated in integer arithmetic that truncates toward
    zero, as upstream's does, so decreasing shapes round the way kube-scheduler rounds.
    """
    points = tuple(shape)

    def function(p: int) -> int:
        for i, point in enumerate(points):
            if p <= point.utilization:
                if i == 0:
                    return points[0].score
                prev = points[i - 1]
                rise = (point.score - prev.score) * (p - prev.utilization)
                return prev.score + go_div(rise, point.utilization - prev.utilization)
        return points[-1].score

    return function
