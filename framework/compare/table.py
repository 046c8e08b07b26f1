"""The comparison report as text: each measure on a line, one column per variant, the better
value marked with ``*``; then the unschedulable pods' messages and the pods placed
differently, each with its node in every variant."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

MARK = "*"
ROWS: tuple[tuple[str, str, Callable[[Any], str]], ...] = (
    ("pods", "pods.total", str),
    ("scheduled", "pods.scheduled", str),
    ("unschedulable", "pods.unschedulable", str),
    ("preempted", "pods.preempted", str),
    ("preemptions", "pods.preemptions", str),
    ("placed differently", "placedDifferently", str),
    ("cpu mean", "utilization.cpu.mean", lambda v: f"{v:.0%}"),
    ("cpu p50", "utilization.cpu.p50", lambda v: f"{v:.0%}"),
    ("cpu p90", "utilization.cpu.p90", lambda v: f"{v:.0%}"),
    ("cpu max", "utilization.cpu.max", lambda v: f"{v:.0%}"),
    ("memory mean", "utilization.memory.mean", lambda v: f"{v:.0%}"),
    ("memory p50", "utilization.memory.p50", lambda v: f"{v:.0%}"),
    ("memory p90", "utilization.memory.p90", lambda v: f"{v:.0%}"),
    ("memory max", "utilization.memory.max", lambda v: f"{v:.0%}"),
    ("empty nodes", "utilization.emptyNodes", str),
    ("nodes above 90%", "utilization.nodesAbove90", str),
    ("largest free cpu", "utilization.largestFree.cpuMillis", lambda v: f"{v}m"),
    ("largest free memory", "utilization.largestFree.memoryBytes", lambda v: _bytes(v)),
    ("max skew", "maxSkew", str),
    ("cycle p50 ms", "latency.cycleP50Ms", lambda v: f"{v:.2f}"),
    ("cycle p99 ms", "latency.cycleP99Ms", lambda v: f"{v:.2f}"),
    ("attempts/pod mean", "attemptsPerPod.mean", lambda v: f"{v:.2f}"),
    ("attempts/pod max", "attemptsPerPod.max", str),
)


def render_table(report: dict[str, Any]) -> str:
    variants = report["variants"]
    better = report.get("better", {})
    cells = [[_cell(v, path, show, better) for v in variants] for _, path, show in ROWS]
    label = max(len(title) for title, _, _ in ROWS)
    widths = [max(len(v["name"]), *(len(row[i]) for row in cells)) for i, v in enumerate(variants)]
    lines = [
        "  ".join(
            [" " * label, *(v["name"].rjust(w) for v, w in zip(variants, widths, strict=True))]
        )
    ]
    for (title, _, _), row in zip(ROWS, cells, strict=True):
        lines.append(
            "  ".join([title.ljust(label), *(c.rjust(w) for c, w in zip(row, widths, strict=True))])
        )
    lines += _messages(variants)
    lines += _differences(report["differences"], [v["name"] for v in variants])
    return "\n".join(lines) + "\n"


def _cell(variant: dict[str, Any], path: str, show: Callable[[Any], str], better: dict) -> str:
    value: Any = variant
    for part in path.split("."):
        value = value.get(part) if isinstance(value, dict) else None
    if value is None:
        return "-"
    return show(value) + (MARK if better.get(path) == variant["name"] else " ")


def _messages(variants: list[dict[str, Any]]) -> list[str]:
    lines = []
    for variant in variants:
        for entry in variant.get("unschedulableByMessage", []):
            if not lines:
                lines.append("")
                lines.append("unschedulable:")
            lines.append(f"  {variant['name']}: {entry['count']} x {entry['message']}")
    return lines


def _differences(differences: dict[str, Any], names: list[str]) -> list[str]:
    pods = differences["pods"]
    lines = ["", f"placed differently from {names[0]}: {differences['count']}"]
    if not pods:
        return lines
    width = max(len(entry["pod"]) for entry in pods)
    columns = [
        max(len(name), *(len(e["nodes"][i] or "-") for e in pods)) for i, name in enumerate(names)
    ]
    lines.append(
        "  ".join(
            ["  " + "pod".ljust(width), *(n.ljust(w) for n, w in zip(names, columns, strict=True))]
        )
    )
    for entry in pods:
        nodes = [(node or "-").ljust(w) for node, w in zip(entry["nodes"], columns, strict=True)]
        lines.append("  ".join(["  " + entry["pod"].ljust(width), *nodes]).rstrip())
    return lines


def _bytes(value: int) -> str:
    for unit, size in (("Gi", 1 << 30), ("Mi", 1 << 20), ("Ki", 1 << 10)):
        if value >= size:
            return f"{value / size:.1f}{unit}"
    return str(value)
