"""What a person sees at a stop, as JSON: the results of the attempt so far, the CycleState,
the candidate nodes, nominated pods and the queue.

Results come from the attempt's trace events so far (docs/trace.md); the rest is read from the
scheduler at the moment of the stop.
"""

from __future__ import annotations

import dataclasses
import enum
from collections.abc import Iterable, Mapping
from typing import TYPE_CHECKING, Any

from framework.trace import (
    EXTENSION_POINT,
    PLUGIN,
    PLUGIN_BATCH,
    TraceEvent,
    score_cells,
    score_totals,
)

if TYPE_CHECKING:
    from framework.interface.node_info import NodeInfo, Resource
    from framework.scheduler.cycle import Cycle

SUCCESS = "Success"
MAX_DEPTH = 4
"""How deep a CycleState value is described; deeper parts are shown by their type."""
MAX_ITEMS = 50
"""How many items of a collection a description shows."""


def results_so_far(events: Iterable[TraceEvent]) -> dict[str, Any]:
    """PreFilter's results, filter verdicts per node and plugin, PreScore's results, raw /
    normalized / weighted scores (with the weights and each node's total once Score has
    ended), and every extension point completed so far with its code.

    Filter calls after the Filter extension point's summary are preemption's dry runs, which
    judge nodes with victims removed: they are not the cycle's verdicts and are left out.
    """
    pre_filter: dict[str, Any] = {"plugins": {}}
    pre_score: dict[str, Any] = {"plugins": {}}
    verdicts: dict[str, dict[str, dict[str, Any]]] = {}
    raw: dict[str, dict[str, dict[str, int]]] = {}
    scoring: dict[str, Any] = {"weights": {}, "totals": {}}
    points: list[dict[str, Any]] = []
    filtered = False
    for event in events:
        if event.kind == EXTENSION_POINT:
            points.append({"point": event.point, "code": event.code, "plugin": event.plugin})
            if event.point == "preFilter":
                pre_filter.update(event.data)
            elif event.point == "filter":
                filtered = True
            elif event.point == "preScore":
                pre_score.update(event.data)
            elif event.point == "score" and ("raw" in event.data or "scores" in event.data):
                raw = score_cells(event.data)
                scoring = {
                    "weights": event.data.get("weights", {}),
                    "totals": score_totals(event.data),
                }
            continue
        if event.point == "filter" and filtered:
            continue
        if event.kind == PLUGIN_BATCH:
            _add_batch(event, verdicts, raw)
        else:
            _add_call(event, {"preFilter": pre_filter, "preScore": pre_score}, verdicts, raw)
    return {
        "preFilter": pre_filter,
        "filter": verdicts,
        "preScore": pre_score,
        "scores": raw,
        **scoring,
        "points": points,
    }


def _add_call(
    event: TraceEvent,
    pre_points: dict[str, dict[str, Any]],
    verdicts: dict[str, dict[str, dict[str, Any]]],
    scores: dict[str, dict[str, dict[str, int]]],
) -> None:
    outcome = {"code": event.code, "reasons": list(event.reasons)}
    if event.kind != PLUGIN:
        return
    if event.point in pre_points:
        pre_points[event.point]["plugins"][event.plugin] = {**outcome, **event.data}
    elif event.point == "filter" and event.node is not None:
        verdicts.setdefault(event.node, {})[event.plugin] = outcome
    elif event.point == "score" and event.node is not None and event.score is not None:
        scores.setdefault(event.plugin, {})[event.node] = {"raw": event.score}


def _add_batch(
    batch: TraceEvent,
    verdicts: dict[str, dict[str, dict[str, Any]]],
    scores: dict[str, dict[str, dict[str, int]]],
) -> None:
    """A batch call's verdicts or raw scores per node, as ``per_node_events`` would give them
    one by one, without an event per node (a stored trace of thousands of nodes is read for
    every page that shows it)."""
    data = batch.data
    nodes = data.get("nodes", ())
    if batch.point == "filter":
        failed = data.get("failed", {})
        for node in nodes:
            failure = failed.get(node)
            verdicts.setdefault(node, {})[batch.plugin] = (
                {"code": failure["code"], "reasons": list(failure["reasons"])}
                if failure
                else {"code": SUCCESS, "reasons": []}
            )
    elif batch.point == "score" and "scores" in data:
        column = scores.setdefault(batch.plugin, {})
        for node, score in zip(nodes, data["scores"], strict=True):
            column[node] = {"raw": score}


def cycle_state(cycle: Cycle | None) -> dict[str, Any]:
    """Every CycleState key written so far, each value described readably."""
    if cycle is None:
        return {}
    storage = cycle.state._storage  # the debugger is the one reader of the whole state
    return {key: describe(value) for key, value in sorted(storage.items())}


def describe(value: Any, depth: int = 0) -> Any:
    """A JSON-ready description of a plugin's state value (dataclasses, slots objects,
    collections), cut at MAX_DEPTH and MAX_ITEMS."""
    if value is None or isinstance(value, bool | int | float | str):
        return value
    if isinstance(value, enum.Enum):
        return str(value.value)
    if depth >= MAX_DEPTH:
        return f"<{type(value).__name__}>"
    if isinstance(value, Mapping):
        items = list(value.items())[:MAX_ITEMS]
        return {str(k): describe(v, depth + 1) for k, v in items}
    if isinstance(value, list | tuple | set | frozenset):
        ordered = sorted(value, key=repr) if isinstance(value, set | frozenset) else list(value)
        return [describe(v, depth + 1) for v in ordered[:MAX_ITEMS]]
    fields = _fields(value)
    if fields is None:
        return repr(value)
    described = {name: describe(getattr(value, name, None), depth + 1) for name in fields}
    return {"type": type(value).__name__, **described}


def _fields(value: Any) -> list[str] | None:
    if dataclasses.is_dataclass(value):
        return [f.name for f in dataclasses.fields(value)]
    slots = [name for cls in type(value).__mro__ for name in getattr(cls, "__slots__", ())]
    if slots:
        return [name for name in slots if not name.startswith("__")]
    if hasattr(value, "__dict__"):
        return [name for name in vars(value) if not name.startswith("_")]
    return None


def candidate_nodes(nodes: Iterable[NodeInfo]) -> list[dict[str, Any]]:
    """Each node of the snapshot with its allocatable and requested resources."""
    return [
        {
            "name": node.node_name,
            "allocatable": _resources(node.allocatable),
            "requested": _resources(node.requested),
            "pods": len(node.pods),
        }
        for node in nodes
    ]


def _resources(resource: Resource) -> dict[str, int]:
    amounts = {
        "cpu (millicores)": resource.milli_cpu,
        "memory (bytes)": resource.memory,
        "pods": resource.allowed_pod_number,
    }
    return {**amounts, **resource.scalar_resources}


def nominated_pods(queue: Any, nodes: Iterable[NodeInfo]) -> list[dict[str, str]]:
    """Pods nominated to a node by an earlier preemption, per node."""
    return [
        {"pod": info.pod.key, "node": node.node_name}
        for node in nodes
        for info in queue.nominated_pods_for_node(node.node_name)
    ]


def queue_place(queue: Any, cycle: Cycle | None) -> dict[str, Any]:
    """How many pods wait where, and this pod's attempts. ``unschedulablePods`` is upstream's
    pool, gated pods included; ``gated`` says how many of them a PreEnqueue plugin keeps out
    (the queue board shows them apart)."""
    listing = queue.listing()
    return {
        "activeQ": len(queue.pods_in_active_q()),
        "backoffQ": len(queue.pods_in_backoff_q()),
        "unschedulablePods": len(listing.unschedulable) + len(listing.gated),
        "gated": len(listing.gated),
        "inFlight": len(queue.in_flight_pods()),
        "attempts": cycle.attempt if cycle is not None else 0,
    }
