"""The reasons histogram: which plugin rejected how many nodes, and why.

Read from the attempt's filter table (node -> plugin -> {code, reasons}), so it agrees with
the attempt. kube-scheduler stops at a node's first failing Filter plugin, so each evaluated
node has exactly one rejecting plugin; its reasons (NodeResourcesFit may give several, as
"Insufficient cpu, Insufficient memory") are joined into one entry. The counts therefore sum
to the node count, where upstream's message counts a node once per reason.

Nodes missing from the table were rejected before Filter: by a PreFilter plugin that rejected
the pod outright, or by the plugins whose PreFilter result left them out. The ``FilterRun``
says which, since the attempt's table cannot.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from typing import Any

from framework.explain.filter_run import FilterRun

SUCCESS = "Success"


@dataclass(frozen=True)
class ReasonCount:
    """How many nodes one plugin rejected for one reason."""

    plugin: str
    reason: str
    nodes: int

    def to_dict(self) -> dict[str, Any]:
        return {"plugin": self.plugin, "reason": self.reason, "nodes": self.nodes}


def rejections(attempt: dict[str, Any], run: FilterRun) -> dict[str, tuple[str, str]]:
    """node -> (plugin, reason) of the rejection each node got in the attempt."""
    table = attempt.get("filter") or {}
    out: dict[str, tuple[str, str]] = {}
    for node in run.nodes:
        name = node.node_name
        verdict = _first_failure(table.get(name, {}))
        if verdict is None:
            verdict = _before_filter(run, name)
        if verdict is None and not table:
            verdict = _first_in_run(run, name)  # an attempt stored without its table
        if verdict is not None:
            out[name] = verdict
    return out


def histogram(by_node: dict[str, tuple[str, str]]) -> list[ReasonCount]:
    """Most nodes first; ties by plugin then reason, so the order is stable."""
    counts = Counter(by_node.values())
    ordered = sorted(counts.items(), key=lambda item: (-item[1], item[0]))
    return [ReasonCount(plugin, reason, n) for (plugin, reason), n in ordered]


def most_rejecting(counts: list[ReasonCount]) -> str | None:
    """The plugin that rejected most nodes (all its reasons together)."""
    per_plugin: Counter[str] = Counter()
    for entry in counts:
        per_plugin[entry.plugin] += entry.nodes
    if not per_plugin:
        return None
    return min(per_plugin, key=lambda plugin: (-per_plugin[plugin], plugin))


def _first_failure(verdicts: dict[str, Any]) -> tuple[str, str] | None:
    for plugin, verdict in verdicts.items():
        if verdict.get("code") not in (SUCCESS, None):
            return plugin, ", ".join(verdict.get("reasons") or []) or verdict["code"]
    return None


def _before_filter(run: FilterRun, node: str) -> tuple[str, str] | None:
    """The PreFilter rejection of a node the attempt did not filter, if any."""
    status = run.pre_filter_status
    if status is not None and not status.is_success():
        return status.plugin or "PreFilter", status.message()
    failures = run.failures.get(node, {})
    narrowing = [plugin for plugin in failures if plugin in run.narrowed_by]
    if narrowing:
        return ", ".join(narrowing), failures[narrowing[0]].message()
    return None


def _first_in_run(run: FilterRun, node: str) -> tuple[str, str] | None:
    for plugin, status in run.failures.get(node, {}).items():
        return plugin, ", ".join(status.reasons) or status.code.name
    return None
