"""A comparison's report (``framework.compare.compare_results``'s JSON) as the result page
and the CSV export show it: one row per metric, a value per variant, the better one marked
(the report's ``better``: metric path -> variant name), and the pods that landed differently.
"""

from __future__ import annotations

import csv
import io
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

PERCENT, COUNT, MILLIS, TEXT, DECIMAL = "percent", "count", "ms", "text", "decimal"

METRICS: list[tuple[str, str, str]] = [
    ("Pods", "pods.total", COUNT),
    ("Scheduled", "pods.scheduled", COUNT),
    ("Unschedulable", "pods.unschedulable", COUNT),
    ("Preempted", "pods.preempted", COUNT),
    ("Preemptions made", "pods.preemptions", COUNT),
    ("CPU requested, mean", "utilization.cpu.mean", PERCENT),
    ("CPU requested, p50", "utilization.cpu.p50", PERCENT),
    ("CPU requested, p90", "utilization.cpu.p90", PERCENT),
    ("CPU requested, max", "utilization.cpu.max", PERCENT),
    ("Memory requested, mean", "utilization.memory.mean", PERCENT),
    ("Memory requested, p50", "utilization.memory.p50", PERCENT),
    ("Memory requested, p90", "utilization.memory.p90", PERCENT),
    ("Memory requested, max", "utilization.memory.max", PERCENT),
    ("Nodes left empty", "utilization.emptyNodes", COUNT),
    ("Nodes above 90 %", "utilization.nodesAbove90", COUNT),
    ("Largest free CPU", "utilization.largestFree.cpu", TEXT),
    ("Largest free memory", "utilization.largestFree.memory", TEXT),
    ("Cycle time, p50", "latency.cycleP50Ms", MILLIS),
    ("Cycle time, p99", "latency.cycleP99Ms", MILLIS),
    ("Attempts per pod, mean", "attemptsPerPod.mean", DECIMAL),
    ("Attempts per pod, max", "attemptsPerPod.max", COUNT),
]
"""(label, path in a variant's report, how it is written)."""
ALIASES = {
    "utilization.largestFree.cpu": ("utilization.largestFree.cpuMillis",),
    "utilization.largestFree.memory": ("utilization.largestFree.memoryBytes",),
}
"""Paths ``better`` may name for a metric shown by another path (the quantity's number)."""


@dataclass(frozen=True, slots=True)
class Cell:
    text: str
    better: bool


@dataclass(frozen=True, slots=True)
class MetricRow:
    label: str
    path: str
    cells: list[Cell]


def lookup(data: Any, path: str) -> Any:
    """The value at a dotted path; None where it is missing."""
    for key in path.split("."):
        if not isinstance(data, dict):
            return None
        data = data.get(key)
    return data


def metric_rows(report: dict[str, Any]) -> list[MetricRow]:
    """Every metric of every variant, the better value marked."""
    variants = report.get("variants", [])
    better = report.get("better", {})
    rows = []
    for label, path, kind in METRICS:
        winners = {better.get(name) for name in (path, *ALIASES.get(path, ()))} - {None}
        cells = [
            Cell(_written(lookup(variant, path), kind), variant.get("name") in winners)
            for variant in variants
        ]
        rows.append(MetricRow(label, path, cells))
    return rows


def _written(value: Any, kind: str) -> str:
    if value is None:
        return "-"
    writers: dict[str, Callable[[Any], str]] = {
        PERCENT: lambda v: f"{float(v) * 100:.1f} %",
        MILLIS: lambda v: f"{float(v):.2f} ms",
        DECIMAL: lambda v: f"{float(v):.2f}",
    }
    return writers.get(kind, str)(value)


def unschedulable_messages(report: dict[str, Any]) -> list[tuple[str, list[int]]]:
    """Each message any variant gave, with its count in every variant (0: none)."""
    variants = report.get("variants", [])
    messages: dict[str, list[int]] = {}
    for index, variant in enumerate(variants):
        for entry in variant.get("unschedulableByMessage", []):
            counts = messages.setdefault(entry["message"], [0] * len(variants))
            counts[index] = entry["count"]
    return sorted(messages.items(), key=lambda item: (-sum(item[1]), item[0]))


def differences(report: dict[str, Any]) -> list[dict[str, Any]]:
    return list(((report.get("differences") or {}).get("pods")) or [])


def metrics_csv(report: dict[str, Any]) -> str:
    """metric, one column per variant (the raw values), and a last column naming the better
    variant; then, after a blank line, each differing pod and its node in every variant."""
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    variants = report.get("variants", [])
    names = [variant.get("name", "") for variant in variants]
    writer.writerow(["metric", *names, "better"])
    better = report.get("better", {})
    for _, path, _ in METRICS:
        winner = next(
            (better[name] for name in (path, *ALIASES.get(path, ())) if name in better), ""
        )
        writer.writerow([path, *(_raw(lookup(variant, path)) for variant in variants), winner])
    writer.writerow([])
    writer.writerow(["pod", *names])
    for entry in differences(report):
        writer.writerow([entry["pod"], *(node or "" for node in entry["nodes"])])
    return out.getvalue()


def _raw(value: Any) -> str:
    return "" if value is None else str(value)


@dataclass(frozen=True, slots=True)
class SkewRow:
    workload: str
    key: str
    values: list[str]


def skew_rows(report: dict[str, Any]) -> list[SkewRow]:
    """Each (workload, topology key) any variant reports, with its skew in every variant."""
    variants = report.get("variants", [])
    rows: dict[tuple[str, str], list[str]] = {}
    for index, variant in enumerate(variants):
        for entry in variant.get("skew", []):
            values = rows.setdefault(
                (entry["workload"], entry["topologyKey"]), ["-"] * len(variants)
            )
            values[index] = str(entry["skew"])
    return [SkewRow(workload, key, values) for (workload, key), values in sorted(rows.items())]
