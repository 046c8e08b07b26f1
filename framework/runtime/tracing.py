"""Turning plugin return values and score tables into trace event data (docs/trace.md)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from framework.interface.status import Status
from framework.interface.types import NodePluginScores, NodeScore, PreFilterResult

if TYPE_CHECKING:
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
    table: dict[str, list[NodeScore]],
    result: list[NodePluginScores],
    weights: dict[str, int],
) -> dict[str, Any]:
    """The score table of docs/trace.md: per plugin, per node, raw / normalized / weighted."""
    scores: dict[str, dict[str, dict[str, int]]] = {}
    for plugin in plugins:
        weight = weights[plugin.name]
        column = table[plugin.name]
        raw_column = raw[plugin.name] if raw is not None else [s.score for s in column]
        scores[plugin.name] = {
            entry.name: {
                "raw": raw_value,
                "normalized": entry.score,
                "weighted": entry.score * weight,
            }
            for entry, raw_value in zip(column, raw_column, strict=True)
        }
    return {
        "weights": {p.name: weights[p.name] for p in plugins},
        "scores": scores,
        "totals": {node.name: node.total_score for node in result},
    }
