"""An attempt's tables, read from its stored trace events (docs/trace.md).

The filter matrix says which Filter plugin passed or rejected which node and why; the score
table gives every Score plugin's raw, normalized and weighted score per node; the ranking is
the final score per node, best first. Events are the JSON dicts AttemptTrace stores.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from typing import Any

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
class NodeScore:
    raw: int
    normalized: int
    weighted: int


@dataclass(slots=True)
class ScoreTable:
    """Score plugins (with weights) by nodes, plus each node's total; nodes best first."""

    plugins: list[str] = field(default_factory=list)
    weights: dict[str, int] = field(default_factory=dict)
    rows: list[tuple[str, list[NodeScore | None], int]] = field(default_factory=list)
    skipped: list[str] = field(default_factory=list)
    """Score plugins skipped because their PreScore returned Skip (shown, not left out)."""

    @property
    def columns(self) -> list[tuple[str, int]]:
        return [(plugin, self.weights.get(plugin, 1)) for plugin in self.plugins]


@dataclass(frozen=True, slots=True)
class Rank:
    node: str
    score: int
    percent: float
    chosen: bool


def filter_matrix(events: Iterable[dict[str, Any]]) -> FilterMatrix:
    """Every Filter call of the scheduling cycle.

    Collection stops at the Filter extension point's summary: Filter calls after it are
    preemption's dry runs, which judge nodes with victims removed, not the cycle's verdicts.
    """
    verdicts: dict[str, dict[str, Verdict]] = {}
    plugins: dict[str, None] = {}
    skipped: list[str] = []
    for event in events:
        if event["kind"] == "extensionPoint" and event.get("point") == "preFilter":
            skipped = list(event.get("data", {}).get("skipped", ()))
        if event.get("point") != "filter":
            continue
        if event["kind"] == "extensionPoint":
            break
        for node, verdict in _filter_calls(event):
            plugins.setdefault(event["plugin"])
            verdicts.setdefault(node, {})[event["plugin"]] = verdict
    return FilterMatrix(
        plugins=list(plugins),
        rows=[(node, [row.get(plugin) for plugin in plugins]) for node, row in verdicts.items()],
        skipped=[plugin for plugin in skipped if plugin not in plugins],
    )


def _filter_calls(event: dict[str, Any]) -> Iterator[tuple[str, Verdict]]:
    if event["kind"] == "plugin" and event.get("node"):
        yield event["node"], Verdict(event["code"], tuple(event.get("reasons", ())))
    elif event["kind"] == "pluginBatch":
        data = event.get("data", {})
        failed = data.get("failed", {})
        for node in data.get("nodes", ()):
            failure = failed.get(node)
            yield node, Verdict(failure["code"], tuple(failure["reasons"])) if failure else PASSED


def score_table(events: Iterable[dict[str, Any]]) -> ScoreTable:
    """The Score extension point's table, nodes by total score (then name), best first."""
    events = list(events)
    data = next(
        (
            event.get("data", {})
            for event in events
            if event["kind"] == "extensionPoint"
            and event.get("point") == "score"
            and event.get("code") == SUCCESS
        ),
        None,
    )
    if not data:
        return ScoreTable()
    skipped = next(
        (
            list(event.get("data", {}).get("skipped", ()))
            for event in events
            if event["kind"] == "extensionPoint" and event.get("point") == "preScore"
        ),
        [],
    )
    scores: dict[str, dict[str, dict[str, int]]] = data.get("scores", {})
    plugins = list(scores)
    totals: dict[str, int] = data.get("totals", {})
    nodes = sorted(totals, key=lambda node: (-totals[node], node))
    rows = [
        (node, [_node_score(scores[plugin].get(node)) for plugin in plugins], totals[node])
        for node in nodes
    ]
    return ScoreTable(
        plugins=plugins,
        weights=dict(data.get("weights", {})),
        rows=rows,
        skipped=[plugin for plugin in skipped if plugin not in scores],
    )


def _node_score(entry: dict[str, int] | None) -> NodeScore | None:
    if entry is None:
        return None
    return NodeScore(entry["raw"], entry["normalized"], entry["weighted"])


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
