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
    """Nodes by Filter plugins, in evaluation and call order; None where a plugin never ran."""

    plugins: list[str] = field(default_factory=list)
    rows: list[tuple[str, list[Verdict | None]]] = field(default_factory=list)

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
    for event in events:
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
    scores: dict[str, dict[str, dict[str, int]]] = data.get("scores", {})
    plugins = list(scores)
    totals: dict[str, int] = data.get("totals", {})
    nodes = sorted(totals, key=lambda node: (-totals[node], node))
    rows = [
        (node, [_node_score(scores[plugin].get(node)) for plugin in plugins], totals[node])
        for node in nodes
    ]
    return ScoreTable(plugins=plugins, weights=dict(data.get("weights", {})), rows=rows)


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


def extension_points(events: Iterable[dict[str, Any]]) -> list[dict[str, Any]]:
    """The extension point summaries of the attempt, in the order they ran."""
    return [event for event in events if event["kind"] == "extensionPoint"]
