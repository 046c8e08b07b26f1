"""The attempt page's Reweight panel: a weight per Score plugin, the ranking under them, and
the button that carries them to the Compare page (``templates/front/reweight.html``).

The weights come from the query (``weight.<Plugin>=<n>``, the form's fields: the page without
JavaScript recomputes on the server), else from the trace: the weights the attempt ran with.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from playground.front.reweight import (
    INT32_MAX,
    INT32_MIN,
    Outcome,
    RankedNode,
    RecordedScores,
    WeightProblem,
    outcome,
    read_weights,
    recorded_scores,
)
from playground.front.reweighted_profile import (
    BaseConfiguration,
    configured_weights,
    weights_that_differ,
)
from playground.front.trace_tables import ScoreTable
from playground.workspaces.models import SchedulingAttempt

SLIDER_MAX = 10
"""A slider reaches at least this weight (and twice the weight it starts at); the number
beside it takes any int32."""


@dataclass(frozen=True, slots=True)
class WeightRow:
    """One Score plugin's controls: the weight it ran with and the one shown."""

    plugin: str
    recorded: int
    weight: int
    slider_max: int

    @property
    def field(self) -> str:
        return f"weight.{self.plugin}"


@dataclass(slots=True)
class ReweightPanel:
    recorded: RecordedScores
    rows: list[WeightRow]
    outcome: Outcome
    base: BaseConfiguration
    problems: list[WeightProblem | str] = field(default_factory=list)
    differing: list[str] = field(default_factory=list)
    """Score plugins whose weight in ``base`` is not the recorded one."""
    skipped: list[str] = field(default_factory=list)
    """Score plugins of the profile that PreScore skipped for this pod: they scored nothing."""
    int32: tuple[int, int] = (INT32_MIN, INT32_MAX)

    @property
    def has_extenders(self) -> bool:
        return any(self.recorded.extenders.values())

    @property
    def shown(self) -> list[RankedNode]:
        return self.outcome.shown()

    @property
    def more(self) -> int:
        """Nodes ranked but not listed."""
        return len(self.outcome.rows) - len(self.shown)

    @property
    def negative(self) -> bool:
        return any(row.weight < 0 for row in self.rows)

    @property
    def data(self) -> dict[str, Any]:
        """What reweight.js reads from the page."""
        return self.recorded.to_json()


def reweight_panel(
    attempt: SchedulingAttempt,
    base: BaseConfiguration,
    scores: ScoreTable,
    query: Mapping[str, str],
    problems: list[str] = (),
) -> ReweightPanel | None:
    """The panel for ``attempt``, which ran under ``base`` (``attempt_configuration``), under
    the query's weights; None when its Score recorded nothing to reweight. ``problems`` are
    the Compare button's, when it was refused."""
    recorded = recorded_scores(scores, attempt.final_scores, attempt.node)
    if recorded is None:
        return None
    weights, weight_problems = read_weights(query, recorded)
    configured = configured_weights(base, attempt.profile)
    return ReweightPanel(
        recorded=recorded,
        rows=[
            _row(plugin, recorded.weights[plugin], weights[plugin]) for plugin in recorded.plugins
        ],
        outcome=outcome(recorded, weights),
        base=base,
        problems=[*weight_problems, *problems],
        differing=weights_that_differ(configured, recorded.weights),
        skipped=[plugin for plugin in scores.skipped if plugin in configured],
    )


def _row(plugin: str, recorded: int, weight: int) -> WeightRow:
    return WeightRow(plugin, recorded, weight, max(SLIDER_MAX, 2 * recorded, weight))
