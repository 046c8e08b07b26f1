"""How full the nodes are at the end of a run, and how fragmented the free room is.

Requested CPU and memory are the scheduler's own accounting (the cache's ``NodeInfo``, as
NodeResourcesFit reads it: containers, init containers and overhead), over allocatable. A node
is empty when no pod is bound to it; above 90 % when its CPU or its memory is. The largest free
block is the most CPU (and, separately, memory) a single new pod could still get on one node.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from framework.api.quantity import BINARY_SI, DECIMAL_SI, Quantity
from framework.interface.node_info import NodeInfo
from framework.util.percentile import percentile

BUCKETS = 10
"""Histogram buckets: 0-10 %, 10-20 %, ... 90-100 % (and above, in the last one)."""
FULL = 0.9
DIGITS = 4
"""Fractions are rounded to this many digits (0.01 % of a node)."""


def utilization(node_infos: Sequence[NodeInfo]) -> dict[str, Any]:
    """The report's ``utilization`` object for these nodes."""
    cpu = {
        info.node_name: _fraction(info.requested.milli_cpu, info.allocatable.milli_cpu)
        for info in node_infos
    }
    memory = {
        info.node_name: _fraction(info.requested.memory, info.allocatable.memory)
        for info in node_infos
    }
    free_cpu = max(
        (_free(i.allocatable.milli_cpu, i.requested.milli_cpu) for i in node_infos), default=0
    )
    free_memory = max(
        (_free(i.allocatable.memory, i.requested.memory) for i in node_infos), default=0
    )
    return {
        "cpu": _summary(list(cpu.values())),
        "memory": _summary(list(memory.values())),
        "emptyNodes": sum(1 for info in node_infos if not info.pods),
        "nodesAbove90": sum(1 for name in cpu if cpu[name] > FULL or memory[name] > FULL),
        "largestFree": {
            "cpu": str(Quantity.from_milli(free_cpu, DECIMAL_SI)),
            "memory": str(Quantity.from_value(free_memory, BINARY_SI)),
            "cpuMillis": free_cpu,
            "memoryBytes": free_memory,
        },
        "histogram": {"cpu": _histogram(cpu.values()), "memory": _histogram(memory.values())},
        "nodes": {name: {"cpu": cpu[name], "memory": memory[name]} for name in sorted(cpu)},
    }


def _fraction(requested: int, allocatable: int) -> float:
    if allocatable <= 0:
        return 0.0 if requested <= 0 else 1.0
    return round(requested / allocatable, DIGITS)


def _free(allocatable: int, requested: int) -> int:
    return max(0, allocatable - requested)


def _summary(fractions: list[float]) -> dict[str, float]:
    return {
        "mean": round(sum(fractions) / len(fractions), DIGITS) if fractions else 0.0,
        "p50": percentile(fractions, 50),
        "p90": percentile(fractions, 90),
        "max": max(fractions, default=0.0),
    }


def _histogram(fractions: Any) -> list[int]:
    counts = [0] * BUCKETS
    for fraction in fractions:
        counts[min(BUCKETS - 1, max(0, int(fraction * BUCKETS)))] += 1
    return counts
