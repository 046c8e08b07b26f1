"""What the debugger's panels show for a stop: where it is, and the attempt's results so far.

The input is a stop-shaped dict (``framework.debugger.session.Stop.to_dict()``, as the live
stop stores it, or one a replay builds from a stored trace): its ``results`` are
``framework.debugger.view.results_so_far``'s, drawn as the attempt pages draw a finished
attempt (playground/front/trace_tables.py); ``cycleState``, ``nodes``, ``nominatedPods`` and
``queue`` are shown when the stop has them (a live stop does, a replay cannot: they are read
from the scheduler at the moment of the stop, and not stored).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import yaml

from framework.debugger.session import POD_GROUP_CYCLE
from playground.front import trace_tables

PANEL_ROWS = 100
"""Nodes shown in the filter matrix and the score table; the node a stop is at always is."""

KINDS = {
    "plugin": "plugin call",
    "pluginBatch": "batch call",
    "extensionPoint": "end of the extension point",
    POD_GROUP_CYCLE: "start of a pod group's cycle",
}
CPU, MEMORY, PODS = "cpu (millicores)", "memory (bytes)", "pods"
"""Resource names in framework.debugger.view.candidate_nodes."""
COLUMN_NAMES = {CPU: "CPU", MEMORY: "memory"}
"""Column headings of resources whose cells are written with units (2, 500m; 8Gi)."""


@dataclass(frozen=True, slots=True)
class PreFilterRow:
    """A PreFilter plugin's result, and the nodes it narrowed the cycle to (if it did)."""

    plugin: str
    code: str
    reasons: list[str]
    node_names: list[str] | None


@dataclass(frozen=True, slots=True)
class StateEntry:
    """A CycleState key: the type of its value and a readable view of it."""

    key: str
    type: str
    view: str


@dataclass(frozen=True, slots=True)
class Amount:
    """One resource of a node: requested of allocatable; ``unit`` is cpu, memory or count."""

    name: str
    unit: str
    requested: int
    allocatable: int


def panels_context(stop: dict[str, Any]) -> dict[str, Any]:
    """The template's data (templates/front/debugger_panels.html) for ``stop``."""
    results = stop["results"]
    matrix = trace_tables.matrix_of(results)
    scores = trace_tables.scores_of(results)
    node = stop.get("node")
    return {
        "stop": stop,
        "header": header(stop),
        "pre_filter": pre_filter_rows(results["preFilter"]),
        "narrowed_to": results["preFilter"].get("nodeNames"),
        "pre_filter_skipped": results["preFilter"].get("skipped", []),
        "matrix": matrix,
        "matrix_rows": trace_tables.shown_rows(matrix, PANEL_ROWS, keep=node),
        "scores": shown_scores(scores, node),
        "score_rows_hidden": max(len(scores.rows) - PANEL_ROWS, 0),
        "points": results["points"],
        "cycle_state": state_entries(stop["cycleState"]) if "cycleState" in stop else None,
        "nodes": node_table(stop["nodes"]) if "nodes" in stop else None,
        "nominated_pods": stop.get("nominatedPods"),
        "queue": queue_line(stop.get("queue")),
    }


def queue_line(queue: dict[str, Any] | None) -> dict[str, Any] | None:
    """The stop's queue as the queue board counts it: gated pods apart from the unschedulable
    ones (upstream's pool holds both; a stop stored before ``gated`` was kept counts none)."""
    if queue is None:
        return None
    gated = queue.get("gated", 0)
    return {**queue, "unschedulable": queue["unschedulablePods"] - gated, "gated": gated}


def header(stop: dict[str, Any]) -> dict[str, Any] | None:
    """Where the stop is (point · plugin · node), the event's code, reasons and kind, and why
    it stopped; None before the attempt's first event (a replay at its start)."""
    event = stop.get("event")
    if not event:
        return None
    where = [stop["point"]]
    if stop.get("plugin"):
        where.append(stop["plugin"])
    nodes = event.get("data", {}).get("nodes")
    if stop.get("node"):
        where.append(f"node {stop['node']}")
    elif event["kind"] == "pluginBatch" and nodes is not None:
        where.append(f"{len(nodes)} node{'s' if len(nodes) != 1 else ''}")
    return {
        "where": " · ".join(where),
        "code": event["code"],
        "reasons": event.get("reasons", []),
        "score": event.get("score"),
        "kind": KINDS.get(event["kind"], event["kind"]),
        "reason": stop.get("reason", ""),
    }


def pre_filter_rows(pre_filter: dict[str, Any]) -> list[PreFilterRow]:
    return [
        PreFilterRow(plugin, result["code"], result.get("reasons", []), result.get("nodeNames"))
        for plugin, result in pre_filter["plugins"].items()
    ]


def shown_scores(table: trace_tables.ScoreTable, node: str | None) -> trace_tables.ScoreTable:
    """The table's first PANEL_ROWS nodes, and ``node``'s row wherever it is."""
    if len(table.rows) <= PANEL_ROWS:
        return table
    rows = table.rows[:PANEL_ROWS] + [row for row in table.rows[PANEL_ROWS:] if row[0] == node]
    return trace_tables.ScoreTable(table.plugins, table.weights, rows, table.skipped)


def state_entries(cycle_state: dict[str, Any]) -> list[StateEntry]:
    """Each key with its value's type (described dataclasses name theirs) and the rest of the
    description as block YAML."""
    entries = []
    for key, value in cycle_state.items():
        if isinstance(value, dict) and isinstance(value.get("type"), str):
            fields = {name: v for name, v in value.items() if name != "type"}
            entries.append(StateEntry(key, value["type"], _readable(fields)))
        else:
            entries.append(StateEntry(key, type(value).__name__, _readable(value)))
    return entries


def _readable(value: Any) -> str:
    if value is None or isinstance(value, bool | int | float | str):
        return str(value)
    if not value:
        return "{}" if isinstance(value, dict) else "[]"
    return yaml.safe_dump(value, sort_keys=False, default_flow_style=False).rstrip()


def node_table(nodes: list[dict[str, Any]]) -> dict[str, Any]:
    """The candidate nodes as a table: a column per resource any node has (CPU, memory, pods,
    then scalar resources), each cell requested of allocatable; pods requested are the pods
    the node runs."""
    columns = list(dict.fromkeys(name for node in nodes for name in node["allocatable"]))
    rows = [(node["name"], [_amount(node, name) for name in columns]) for node in nodes]
    return {"columns": [COLUMN_NAMES.get(name, name) for name in columns], "rows": rows}


def _amount(node: dict[str, Any], name: str) -> Amount | None:
    if name not in node["allocatable"]:
        return None
    requested = node["pods"] if name == PODS else node["requested"].get(name, 0)
    unit = "cpu" if name == CPU else "memory" if name == MEMORY else "count"
    return Amount(name, unit, requested, node["allocatable"][name])
