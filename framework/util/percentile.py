"""Nearest-rank percentiles, as the benchmarks and the comparison report them."""

from __future__ import annotations

from collections.abc import Sequence


def percentile(values: Sequence[float], pct: float) -> float:
    """The nearest-rank percentile (0.0 for no values): the smallest value with at least
    ``pct`` percent of the values at or below it."""
    if not values:
        return 0.0
    ordered = sorted(values)
    rank = max(1, -(-len(ordered) * pct // 100))
    return ordered[int(rank) - 1]
