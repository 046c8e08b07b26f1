"""Turning plugin return values and score tables into trace event data (docs/trace.md)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from framework.interface.status import Code, Status
from framework.interface.types import NodePluginScores, PreFilterResult

if TYPE_CHECKING:
    from framework.interface.node_info import NodeInfo
    from framework.interface.plugins import ScorePlugin


def describe_result(point: str, result: Any) -> tuple[Status | None, int | None, dict[str, Any]]:
    """Splits a plugin method's return value into (status, score, extra data) for the trace."""
    if point == "score":
        score, status = result
        return status, score, {}
    if point == "permit":
        status, timeout = result
        return (
            status,
            None,
            ({"waitSeconds": timeout} if status is not None and status.is_wait() else {}),
        )
    if point == "preFilter":
        pre_filter_result, status = result
        if pre_filter_result is not None and not pre_filter_result.all_nodes():
            return status, None, {"nodeNames": sorted(pre_filter_result.node_names)}
        return status, None, {}
    if point == "postFilter":
        post_filter_result, status = result
        info = post_filter_result.nominating_info if post_filter_result is not None else None
        return status, None, ({"nominatedNodeName": info.nominated_node_name} if info else {})
    if point == "preBindPreFlight":
        pre_flight, status = result
        return (
            status,
            None,
            ({"allowParallel": True} if pre_flight and pre_flight.allow_parallel else {}),
        )
    return result, None, {}


def pre_filter_data(result: PreFilterResult | None, skipped: set[str]) -> dict[str, Any]:
    data: dict[str, Any] = {}
    if result is not None and not result.all_nodes():
        data["nodeNames"] = sorted(result.node_names)
    if skipped:
        data["skipped"] = sorted(skipped)
    return data


def score_data(
    plugins: list[ScorePlugin],
    raw: dict[str, list[int]] | None,
    table: dict[str, list[int]],
    result: list[NodePluginScores],
    weights: dict[str, int],
) -> dict[str, Any]:
    """The Score extension point's data of docs/trace.md, in columns: the nodes in order, and
    per plugin its raw and normalized scores in that order, and the totals.

    Columns, not a dict per node and plugin: a cycle scores hundreds of nodes, and building
    (then storing, then freeing) those dicts cost more than scoring them. The lists are the
    runtime's own, shared and never changed after this point; ``framework.trace.score_cells``
    gives the per-node view to readers.
    """
    return {
        "nodes": [node.name for node in result],
        "weights": {p.name: weights[p.name] for p in plugins},
        "raw": {p.name: (raw if raw is not None else table)[p.name] for p in plugins},
        "normalized": {p.name: table[p.name] for p in plugins},
        "totals": [node.total_score for node in result],
    }


def filter_batch_data(
    nodes: Sequence[NodeInfo], node_names: list[str], statuses: list[Status | None]
) -> tuple[str, list[str], dict[str, Any]]:
    """(code, reasons, data) of a Filter batch event: the nodes, and those that did not pass.

    The event's code is Success when every node passed, else the first failure's code.
    """
    failed: dict[str, dict[str, Any]] = {}
    if statuses.count(None) != len(statuses):
        for node_info, status in zip(nodes, statuses, strict=True):
            if status is not None and status.code != Code.SUCCESS:
                failed[node_info.node_name] = {
                    "code": str(status.code),
                    "reasons": list(status.all_reasons()),
                }
    code = next(iter(failed.values()))["code"] if failed else "Success"
    data: dict[str, Any] = {"nodes": node_names}
    if failed:
        data["failed"] = failed
    return code, [], data


def score_batch_data(
    node_names: list[str], result: tuple[list[int], Status | None]
) -> tuple[str, list[str], dict[str, Any]]:
    """(code, reasons, data) of a Score batch event: the nodes and their raw scores."""
    scores, status = result
    data: dict[str, Any] = {"nodes": node_names}
    if status is not None and status.code != Code.SUCCESS:
        return str(status.code), list(status.all_reasons()), data
    data["scores"] = list(scores)
    return "Success", [], data
