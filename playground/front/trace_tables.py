"""An attempt's tables: the filter matrix, the score table and the ranking.

The filter matrix says which Filter plugin passed or rejected which node and why; the score
table gives every Score plugin's raw, normalized and weighted score per node; the ranking is
the final score per node, best first. Both tables are drawn from the engine's own reading of
trace events, ``framework.debugger.view.results_so_far``: a finished attempt's stored events
(the JSON dicts AttemptTrace stores), a replay's events so far and a live stop's results are
one shape, so the pages and the debugger's panels cannot disagree.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from framework.debugger.view import results_so_far
from framework.trace import TraceEvent

SUCCESS = "Success"


@dataclass(frozen=True, slots=True)
class Verdict:
    """One Filter plugin's answer on one node."""

    code: str
    reasons: tuple[str, ...] = ()

    @property
    def passed(self) -> bool:
        return self.code == SUCCESS


PASSED = Verdict(SUCCESS)


@dataclass(slots=True)
class FilterMatrix:
    """Nodes by Filter plugins, in evaluation and call order; None where a plugin never ran.

    ``skipped`` are the Filter plugins the cycle skipped because their PreFilter returned Skip:
    shown as columns of their own, so a plugin is never silently missing from the matrix.
    """

    plugins: list[str] = field(default_factory=list)
    rows: list[tuple[str, list[Verdict | None]]] = field(default_factory=list)
    skipped: list[str] = field(default_factory=list)

    @property
    def failed_nodes(self) -> int:
        return sum(1 for _, verdicts in self.rows if any(v and not v.passed for v in verdicts))


@dataclass(frozen=True, slots=True)
class Cell:
    """A matrix cell as shown: ``pass``, ``fail``, ``notRun`` (an earlier plugin rejected the
    node, so this one never judged it) or ``pending`` (not called on it yet: a stop or a
    replay in the middle of Filter)."""

    state: str
    verdict: Verdict | None = None


def cells(verdicts: Iterable[Verdict | None]) -> list[Cell]:
    """A matrix row's cells, telling a plugin that will not judge the node from one that has
    not judged it yet."""
    row, rejected = [], False
    for verdict in verdicts:
        if verdict is None:
            row.append(Cell("notRun" if rejected else "pending"))
        else:
            row.append(Cell("pass" if verdict.passed else "fail", verdict))
            rejected = rejected or not verdict.passed
    return row


def shown_rows(
    matrix: FilterMatrix, limit: int | None = None, keep: str | None = None
) -> list[tuple[str, list[Cell]]]:
    """The matrix's first ``limit`` rows (all without one) as cells, plus node ``keep``'s row
    wherever it is (the node a stop is at)."""
    rows = matrix.rows if limit is None else matrix.rows[:limit]
    if limit is not None and keep is not None:
        rows = rows + [row for row in matrix.rows[limit:] if row[0] == keep]
    return [(node, cells(verdicts)) for node, verdicts in rows]


@dataclass(frozen=True, slots=True)
class NodeScore:
    """A plugin's scores on a node; normalized and weighted once Score has ended."""

    raw: int
    normalized: int | None = None
    weighted: int | None = None


@dataclass(slots=True)
class ScoreTable:
    """Score plugins (with weights) by nodes, plus each node's total; nodes best first.

    Before Score has ended (a stop, a replay) only raw scores are known: no weights, no totals,
    and nodes are in the order they were scored.
    """

    plugins: list[str] = field(default_factory=list)
    weights: dict[str, int] = field(default_factory=dict)
    rows: list[tuple[str, list[NodeScore | None], int | None]] = field(default_factory=list)
    skipped: list[str] = field(default_factory=list)
    """Score plugins skipped because their PreScore returned Skip (shown, not left out)."""

    @property
    def columns(self) -> list[tuple[str, int | None]]:
        return [(plugin, self.weights.get(plugin)) for plugin in self.plugins]


@dataclass(frozen=True, slots=True)
class Rank:
    node: str
    score: int
    percent: float
    chosen: bool


def trace_context(
    events: list[dict[str, Any]], final_scores: dict[str, int], chosen: str, limit: int | None
) -> dict[str, Any]:
    """What ``front/attempt_trace.html`` draws from an attempt's trace events: its extension
    points, filter matrix (the first ``limit`` rows; all without one), score table and final
    ranking. A stored attempt and a what-if are drawn from the same events the same way."""
    results = results_of(events)
    matrix = matrix_of(results)
    return {
        "points": extension_points(events),
        "matrix": matrix,
        "matrix_rows": shown_rows(matrix, limit),
        "scores": scores_of(results),
        "ranking": ranking(final_scores, chosen),
    }


def results_of(events: Iterable[dict[str, Any]]) -> dict[str, Any]:
    """What the engine's debugger would show after these stored events (its ``results``)."""
    return results_so_far(TraceEvent.from_dict(event) for event in events)


def filter_matrix(events: Iterable[dict[str, Any]]) -> FilterMatrix:
    """Every Filter call of the scheduling cycle (preemption's dry runs left out)."""
    return matrix_of(results_of(events))


def score_table(events: Iterable[dict[str, Any]]) -> ScoreTable:
    """The Score extension point's table, nodes by total score (then name), best first."""
    return scores_of(results_of(events))


def matrix_of(results: dict[str, Any]) -> FilterMatrix:
    """The filter matrix of a debugger's ``results``: nodes in evaluation order, plugins in
    call order (each node's plugins run in the profile's order until one rejects it)."""
    verdicts: dict[str, dict[str, dict[str, Any]]] = results["filter"]
    plugins: dict[str, None] = {}
    for row in verdicts.values():
        for plugin in row:
            plugins.setdefault(plugin)
    skipped = results["preFilter"].get("skipped", ())
    return FilterMatrix(
        plugins=list(plugins),
        rows=[
            (node, [_verdict(row.get(plugin)) for plugin in plugins])
            for node, row in verdicts.items()
        ],
        skipped=[plugin for plugin in skipped if plugin not in plugins],
    )


def _verdict(outcome: dict[str, Any] | None) -> Verdict | None:
    if outcome is None:
        return None
    if outcome["code"] == SUCCESS and not outcome["reasons"]:
        return PASSED
    return Verdict(outcome["code"], tuple(outcome["reasons"]))


def scores_of(results: dict[str, Any]) -> ScoreTable:
    """The score table of a debugger's ``results``: raw scores so far, and once Score has
    ended normalized and weighted ones, the weights and the totals (nodes best first)."""
    scores: dict[str, dict[str, dict[str, int]]] = results["scores"]
    skipped = results.get("preScore", {}).get("skipped", ())
    totals: dict[str, int] = results.get("totals") or {}
    plugins = list(scores)
    if totals:
        nodes = sorted(totals, key=lambda node: (-totals[node], node))
    else:
        nodes = list(dict.fromkeys(node for column in scores.values() for node in column))
    rows = [
        (node, [_node_score(scores[plugin].get(node)) for plugin in plugins], totals.get(node))
        for node in nodes
    ]
    return ScoreTable(
        plugins=plugins,
        weights=dict(results.get("weights") or {}),
        rows=rows,
        skipped=[plugin for plugin in skipped if plugin not in scores] if plugins else [],
    )


def _node_score(entry: dict[str, int] | None) -> NodeScore | None:
    if entry is None:
        return None
    return NodeScore(entry["raw"], entry.get("normalized"), entry.get("weighted"))


def ranking(final_scores: dict[str, int], chosen: str) -> list[Rank]:
    """Nodes by final score, best first, with their share of the best score for bar widths."""
    if not final_scores:
        return []
    best = max(max(final_scores.values()), 1)
    return [
        Rank(node, score, round(100 * max(score, 0) / best, 1), node == chosen)
        for node, score in sorted(final_scores.items(), key=lambda item: (-item[1], item[0]))
    ]


@dataclass(slots=True)
class PluginResult:
    """One plugin's calls at one extension point: its worst code, the first reasons given,
    how many calls on a node it had (Filter, Score; a node with nominated pods is judged
    twice, with and without them) and how many rejected the node, and its time."""

    plugin: str
    code: str = SUCCESS
    reasons: tuple[str, ...] = ()
    calls: int = 0
    rejected: int = 0
    seconds: float = 0.0


@dataclass(slots=True)
class PointResult:
    """An extension point's summary event and each plugin's result there, in call order."""

    event: dict[str, Any]
    plugins: list[PluginResult] = field(default_factory=list)


FOLDED_INTO = {"normalizeScore": "score", "preBindPreFlight": "preBind"}
"""Finer points whose calls are shown under the extension point they belong to."""


def extension_points(events: Iterable[dict[str, Any]]) -> list[PointResult]:
    """The extension points of the attempt in the order they ran, each with its plugins'
    results (a point that succeeded names no plugin in its summary: its rows do)."""
    points: list[PointResult] = []
    pending: dict[str, dict[str, PluginResult]] = {}
    for event in events:
        point = FOLDED_INTO.get(event.get("point", ""), event.get("point", ""))
        if event["kind"] == "extensionPoint":
            points.append(PointResult(event, list(pending.pop(point, {}).values())))
            continue
        result = pending.setdefault(point, {}).setdefault(
            event["plugin"], PluginResult(event["plugin"])
        )
        _add_call(result, event)
    return points


def _add_call(result: PluginResult, event: dict[str, Any]) -> None:
    result.seconds += event.get("durationSeconds", 0.0)
    if event["kind"] == "pluginBatch":
        nodes = event.get("data", {}).get("nodes", ())
        result.calls += len(nodes)
        result.rejected += len(event.get("data", {}).get("failed", {}))
    elif event.get("node") and event.get("point") in ("filter", "score"):
        result.calls += 1
        result.rejected += event["code"] not in (SUCCESS, "Skip")
    if result.code == SUCCESS and event["code"] != SUCCESS:
        result.code = event["code"]
        result.reasons = tuple(event.get("reasons", ()))
