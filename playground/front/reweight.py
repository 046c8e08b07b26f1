"""Reweighting an attempt: its recorded normalized scores added up under other Score weights.

Normalized scores do not depend on weights, so one recorded attempt answers "where would this
pod have gone with other weights?" without scheduling again. kube-scheduler's RunScorePlugins
multiplies each plugin's normalized score by the plugin's weight and adds the products per
node in Go int64 (wrapping around on overflow); prioritizeNodes then adds each interested
extender's priority times its weight times MaxNodeScore / MaxExtenderPriority, which the
sliders do not touch (the recorded final score less the plugins' total); selectHost takes the
highest total, and among equal ones the node with the higher random tie-breaker: a tie is
settled at random.

``static/js/reweight.js`` does this arithmetic in the browser as a slider moves; this module is
its server-side twin, used for the page without JavaScript (and by the tests, which hold the
two to the same numbers).
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from playground.front.trace_tables import ScoreTable

INT32_MIN = -(1 << 31)
INT32_MAX = (1 << 31) - 1
"""A Score plugin's weight is an int32 (``Plugin.Weight``); validation sets no other bound."""
WEIGHT_FIELD = "weight."
"""Query fields ``weight.<Plugin>=<n>`` carry the weights (the form's number inputs)."""
ROWS_SHOWN = 20
"""Nodes the reweighted ranking lists, best first (and the recorded winner wherever it is)."""
WHOLE_NUMBER = re.compile(r"[+-]?[0-9]+")
AT_RANDOM = "kube-scheduler picks one of them at random"


@dataclass(frozen=True, slots=True)
class RecordedScores:
    """What an attempt's finished Score recorded: each Score plugin's weight (as the framework
    read it: 0 is 1) and normalized score per node, the extenders' share of each node's final
    score, and the node the attempt chose."""

    plugins: tuple[str, ...]
    weights: dict[str, int]
    normalized: dict[str, dict[str, int]]
    extenders: dict[str, int]
    totals: dict[str, int]
    """The recorded final score per node (plugins and extenders)."""
    chosen: str
    """"" when the attempt placed the pod on none of them (it failed after Score)."""

    @property
    def nodes(self) -> list[str]:
        return list(self.totals)

    def to_json(self) -> dict[str, Any]:
        """What reweight.js reads, in columns (a node's name once, not once per plugin).
        Totals and extender shares are strings: an extender's int64 weight can make them
        larger than a JavaScript number holds exactly."""
        nodes = self.nodes
        return {
            "nodes": nodes,
            "plugins": list(self.plugins),
            "weights": self.weights,
            "normalized": {
                plugin: [scores[node] for node in nodes]
                for plugin, scores in self.normalized.items()
            },
            "extenders": [str(self.extenders[node]) for node in nodes],
            "totals": [str(self.totals[node]) for node in nodes],
            "chosen": self.chosen,
            "rowsShown": ROWS_SHOWN,
            "int32": [INT32_MIN, INT32_MAX],
        }


def recorded_scores(
    table: ScoreTable, final_scores: Mapping[str, int], chosen: str
) -> RecordedScores | None:
    """The attempt's recorded scores, or None when it has nothing to reweight: no Score
    (one feasible node, none, a failure before Score) or a Score that never ended."""
    if not table.rows or not table.plugins or any(total is None for *_, total in table.rows):
        return None
    normalized: dict[str, dict[str, int]] = {plugin: {} for plugin in table.plugins}
    extenders, totals = {}, {}
    for node, cells, plugins_total in table.rows:
        for plugin, cell in zip(table.plugins, cells, strict=True):
            if cell is None or cell.normalized is None:
                return None
            normalized[plugin][node] = cell.normalized
        final = final_scores.get(node, plugins_total)
        extenders[node] = final - plugins_total
        totals[node] = final
    return RecordedScores(
        plugins=tuple(table.plugins),
        weights={plugin: table.weights[plugin] for plugin in table.plugins},
        normalized=normalized,
        extenders=extenders,
        totals=totals,
        chosen=chosen if chosen in totals else "",
    )


def effective_weight(weight: int) -> int:
    """The weight the framework scores with: a Score plugin's weight 0 is read as 1 (upstream
    ``getValidScoreWeights``: "a weight of zero is not permitted")."""
    return weight or 1


def int64(value: int) -> int:
    """``value`` as a Go int64 holds it: wrapped around on overflow, two's complement."""
    return (value + (1 << 63)) % (1 << 64) - (1 << 63)


def reweighted_totals(recorded: RecordedScores, weights: Mapping[str, int]) -> dict[str, int]:
    """Each node's final score under ``weights`` (plugins not given keep theirs): the sum of
    normalized score times weight over the plugins, plus the extenders' recorded share, in int64."""
    factors = [
        (
            recorded.normalized[plugin],
            effective_weight(weights.get(plugin, recorded.weights[plugin])),
        )
        for plugin in recorded.plugins
    ]
    return {
        node: int64(sum(scores[node] * weight for scores, weight in factors) + extender)
        for node, extender in recorded.extenders.items()
    }


@dataclass(frozen=True, slots=True)
class RankedNode:
    node: str
    recorded: int
    """The final score the attempt recorded."""
    extender: int
    """The extenders' share of it (and of ``total``)."""
    total: int
    rank: int
    """1 + how many nodes score higher: tied nodes share a rank."""
    tied: bool
    chosen: bool
    """The node the attempt chose."""


@dataclass(slots=True)
class Outcome:
    """The ranking under some weights: nodes best first (ties by name), and who would win."""

    rows: list[RankedNode] = field(default_factory=list)
    winners: list[str] = field(default_factory=list)
    chosen: str = ""

    @property
    def changed(self) -> bool:
        return self.chosen not in self.winners

    @property
    def verdict(self) -> str:
        """The sentence the page shows (reweight.js words it the same way)."""
        best = self.rows[0].total if self.rows else 0
        if not self.chosen:
            if len(self.winners) == 1:
                return f"With these weights {self.winners[0]} would win, with {best}."
            return f"With these weights {_listed(self.winners)} tie at {best}: {AT_RANDOM}."
        if len(self.winners) == 1:
            if not self.changed:
                return f"With these weights {self.chosen} still wins, with {best}."
            return (
                f"With these weights {self.winners[0]} would win instead of {self.chosen}, "
                f"with {best}."
            )
        tied = _listed(self.winners)
        if self.changed:
            return f"With these weights {tied} tie at {best}, ahead of {self.chosen}: {AT_RANDOM}."
        return f"With these weights {tied} tie at {best}: {AT_RANDOM}."

    def shown(self, limit: int = ROWS_SHOWN) -> list[RankedNode]:
        """The first ``limit`` rows, and the chosen node's row wherever it is."""
        rows = self.rows[:limit]
        return rows + [row for row in self.rows[limit:] if row.chosen]


def outcome(recorded: RecordedScores, weights: Mapping[str, int]) -> Outcome:
    """The ranking selectHost would see under ``weights``."""
    totals = reweighted_totals(recorded, weights)
    order = sorted(totals, key=lambda node: (-totals[node], node))
    counts: dict[int, int] = {}
    for total in totals.values():
        counts[total] = counts.get(total, 0) + 1
    rows, higher = [], 0
    for index, node in enumerate(order):
        if index and totals[node] != totals[order[index - 1]]:
            higher = index
        total = totals[node]
        rows.append(
            RankedNode(
                node=node,
                recorded=recorded.totals[node],
                extender=recorded.extenders[node],
                total=total,
                rank=higher + 1,
                tied=counts[total] > 1,
                chosen=node == recorded.chosen,
            )
        )
    best = totals[order[0]] if order else 0
    winners = [node for node in order if totals[node] == best]
    return Outcome(rows, winners, recorded.chosen)


def _listed(names: list[str]) -> str:
    return ", ".join(names[:-1]) + " and " + names[-1]


@dataclass(frozen=True, slots=True)
class WeightProblem:
    """A weight that cannot be used: its field and why."""

    plugin: str
    message: str

    @property
    def field(self) -> str:
        return WEIGHT_FIELD + self.plugin

    def __str__(self) -> str:
        return f"{self.field}: {self.message}"


def read_weights(
    query: Mapping[str, str], recorded: RecordedScores
) -> tuple[dict[str, int], list[WeightProblem]]:
    """The weights asked for (``weight.<Plugin>`` fields; the recorded one where a field is
    missing or bad) and every problem with the fields given."""
    weights = dict(recorded.weights)
    problems = []
    for key, value in query.items():
        if not key.startswith(WEIGHT_FIELD):
            continue
        plugin = key.removeprefix(WEIGHT_FIELD)
        weight, problem = parse_weight(plugin, value, recorded)
        if problem is not None:
            problems.append(problem)
        else:
            weights[plugin] = weight
    return weights, problems


def parse_weight(
    plugin: str, value: str, recorded: RecordedScores
) -> tuple[int, WeightProblem | None]:
    """One field's weight, or why it is refused (reweight.js gives the same messages)."""
    if plugin not in recorded.weights:
        message = "not a Score plugin that scored this attempt's nodes"
        return 0, WeightProblem(plugin, message)
    text = value.strip()
    if not WHOLE_NUMBER.fullmatch(text):
        return 0, WeightProblem(plugin, f'must be a whole number, not "{value}"')
    weight = int(text)
    if not INT32_MIN <= weight <= INT32_MAX:
        message = (
            f"{weight} is out of range: a Score plugin's weight is an int32, "
            f"from {INT32_MIN} to {INT32_MAX}"
        )
        return 0, WeightProblem(plugin, message)
    return weight, None
