"""The arithmetic of a time window over metric samples, as PromQL does it (no Django).

Counters only go up, except when the process counting them restarts: a reading lower than the
one before is a reset, and the increase since is the new reading (Prometheus's ``increase`` and
``rate``). Quantiles come from histogram buckets as ``histogram_quantile`` computes them:
linear interpolation inside the bucket holding the rank, 0 as the lower bound of the first
bucket (when its upper bound is positive), the highest finite bound for a rank in the +Inf
bucket, and no answer (None for Prometheus's NaN) without observations.
"""

from __future__ import annotations

import math
from bisect import bisect_right
from collections.abc import Sequence
from itertools import pairwise
from typing import NamedTuple

Point = tuple[float, float]
"""(seconds since the epoch, value)."""
Bucket = tuple[float, float]
"""(upper bound ``le``, cumulative count): a histogram's bucket."""


class Step(NamedTuple):
    """One step of a window: its end, and its readings ``times[first:stop]``."""

    end: float
    first: int
    stop: int


def increase(values: Sequence[float]) -> float:
    """How much a counter grew over consecutive readings, counting through resets."""
    return sum(after - before if after >= before else after for before, after in pairwise(values))


def rate(points: Sequence[Point]) -> float | None:
    """The counter's increase per second between its first and last point (None with fewer
    than two points or no time between them)."""
    if len(points) < 2 or points[-1][0] <= points[0][0]:
        return None
    return increase([value for _, value in points]) / (points[-1][0] - points[0][0])


def time_average(points: Sequence[Point]) -> float | None:
    """A gauge's average over its points, each value holding until the next point (the value
    of a single point is its average; None without points)."""
    if not points:
        return None
    span = points[-1][0] - points[0][0]
    if span <= 0:
        return points[-1][1]
    area = sum(value * (after - time) for (time, value), (after, _) in pairwise(points))
    return area / span


def steps(times: Sequence[float], end: float, span: float, step: float) -> list[Step]:
    """The readings of each ``step`` seconds of the span ending at ``end``, oldest first.

    A step covers readings after its start up to its end, and begins with the last reading at
    or before its start when there is one: consecutive steps share that edge, so no increase
    falls between them (``times`` are ascending)."""
    count = max(1, math.ceil(span / step - 1e-9))
    found = []
    for index in range(count):
        step_end = end - (count - 1 - index) * step
        first = max(bisect_right(times, step_end - step) - 1, 0)
        found.append(Step(step_end, first, bisect_right(times, step_end)))
    return found


def histogram_quantile(q: float, buckets: Sequence[Bucket]) -> float | None:
    """The ``q``-quantile (0 <= q <= 1) of the observations the buckets count, as
    Prometheus's ``histogram_quantile``; None when there is none (or no +Inf bucket)."""
    if math.isnan(q):
        return None
    if q < 0:
        return -math.inf
    if q > 1:
        return math.inf
    ordered = _monotonic(_coalesced(buckets))
    if len(ordered) < 2 or not math.isinf(ordered[-1][0]) or ordered[-1][1] == 0:
        return None
    rank = q * ordered[-1][1]
    index = next(i for i, (_, count) in enumerate(ordered) if count >= rank)
    if index == len(ordered) - 1:
        return ordered[-2][0]
    bound, count = ordered[index]
    if index == 0 and bound <= 0:
        return bound
    start = 0.0
    if index > 0:
        start, below = ordered[index - 1]
        count, rank = count - below, rank - below
    return start + (bound - start) * (rank / count)


def _coalesced(buckets: Sequence[Bucket]) -> list[Bucket]:
    """The buckets by bound, those of equal bound added up (several series summed by ``le``)."""
    totals: dict[float, float] = {}
    for bound, count in buckets:
        totals[bound] = totals.get(bound, 0.0) + count
    return sorted(totals.items())


def _monotonic(buckets: list[Bucket]) -> list[Bucket]:
    """Cumulative counts never fall from one bucket to the next; where they do (buckets read at
    slightly different moments), Prometheus takes the highest count so far."""
    highest, fixed = 0.0, []
    for bound, count in buckets:
        highest = max(highest, count)
        fixed.append((bound, highest))
    return fixed
