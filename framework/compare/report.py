"""The comparison itself: the variants' measures side by side, the pods placed differently
from the first variant, and which variant has the better value of each headline measure.

The first result is the baseline. "Better" is a direction per measure (more pods scheduled,
fewer failures, a lower maximum utilization, more empty nodes, a larger free block, less skew,
shorter cycles); a measure whose best value two variants share is left unmarked.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from framework.compare.variant import VariantResult

HIGHER, LOWER = "higher", "lower"
BETTER: dict[str, str] = {
    "pods.scheduled": HIGHER,
    "pods.unschedulable": LOWER,
    "pods.preempted": LOWER,
    "pods.preemptions": LOWER,
    "placedDifferently": LOWER,
    "utilization.cpu.max": LOWER,
    "utilization.memory.max": LOWER,
    "utilization.emptyNodes": HIGHER,
    "utilization.nodesAbove90": LOWER,
    "utilization.largestFree.cpuMillis": HIGHER,
    "utilization.largestFree.memoryBytes": HIGHER,
    "maxSkew": LOWER,
    "latency.cycleP50Ms": LOWER,
    "latency.cycleP99Ms": LOWER,
    "attemptsPerPod.mean": LOWER,
}
"""Metric path (into a variant's entry) -> which way is better. ``placedDifferently`` is
marked only among the variants after the first (the first differs from itself in none)."""


def compare_results(results: Sequence[VariantResult]) -> dict[str, Any]:
    """The report JSON (docs/compare.md) of these results; ``results[0]`` is the baseline."""
    differing = differing_pods(results)
    variants = [_variant_entry(result, results[0], differing) for result in results]
    return {
        "variants": variants,
        "differences": {
            "count": len(differing),
            "pods": [_difference(pod, results) for pod in differing],
        },
        "better": better(variants),
    }


def differing_pods(results: Sequence[VariantResult]) -> list[str]:
    """The pods some variant placed on another node than the first did (or placed when the
    first did not, or the reverse), in the first variant's order, then the others'."""
    pods: dict[str, None] = {}
    for result in results:
        pods.update(dict.fromkeys(result.placements))
    return [pod for pod in pods if len({result.placements.get(pod) for result in results}) > 1]


def better(variants: Sequence[dict[str, Any]]) -> dict[str, str]:
    """Metric path -> the name of the one variant with the best value."""
    marks: dict[str, str] = {}
    for path, direction in BETTER.items():
        candidates = variants[1:] if path == "placedDifferently" else variants
        values = [(value, v["name"]) for v in candidates if (value := _at(v, path)) is not None]
        if len(values) < 2:
            continue
        best = max(v for v, _ in values) if direction == HIGHER else min(v for v, _ in values)
        winners = [name for value, name in values if value == best]
        if len(winners) == 1:
            marks[path] = winners[0]
    return marks


def _variant_entry(
    result: VariantResult, first: VariantResult, differing: Sequence[str]
) -> dict[str, Any]:
    entry = {"name": result.name, **result.measures}
    entry["placedDifferently"] = sum(
        1 for pod in differing if result.placements.get(pod) != first.placements.get(pod)
    )
    entry["maxSkew"] = max((item["skew"] for item in result.measures.get("skew", ())), default=0)
    return entry


def _difference(pod: str, results: Sequence[VariantResult]) -> dict[str, Any]:
    entry: dict[str, Any] = {"pod": pod, "nodes": [r.placements.get(pod) for r in results]}
    if any(pod in result.attempts for result in results):
        entry["attempts"] = [result.attempts.get(pod, []) for result in results]
    return entry


def _at(entry: dict[str, Any], path: str) -> Any:
    value: Any = entry
    for part in path.split("."):
        if not isinstance(value, dict) or part not in value:
            return None
        value = value[part]
    return value
