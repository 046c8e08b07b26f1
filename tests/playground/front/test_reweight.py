"""Reweighting an attempt: the recorded normalized scores added up under other weights must give
the totals, and the winner, that the engine gives when a profile with those weights schedules
the same pod; sums wrap as Go's int64 does; extenders' shares are kept; weights are read with
upstream's int32 bounds and a message naming the plugin and the bound."""

from __future__ import annotations

import pytest

from playground.front.reweight import (
    INT32_MAX,
    INT32_MIN,
    RecordedScores,
    int64,
    outcome,
    read_weights,
    recorded_scores,
    reweighted_totals,
)
from playground.front.trace_tables import NodeScore, ScoreTable, score_table
from tests.playground.front.reweight_scenario import scheduled_web, with_weights


@pytest.fixture(scope="module")
def web():
    """The web pod's attempt at weights NodeAffinity 1, NodeResourcesFit 1 (node-a wins)."""
    return scheduled_web()


def recorded_of(run) -> RecordedScores:
    attempt = run["attempt"]
    recorded = recorded_scores(score_table(run["events"]), attempt.final_scores, attempt.node)
    assert recorded is not None
    return recorded


def test_the_recorded_scores_are_the_attempts_weights_and_normalized_scores(web):
    recorded = recorded_of(web)
    assert recorded.plugins == ("NodeAffinity", "NodeResourcesFit")
    assert recorded.weights == {"NodeAffinity": 1, "NodeResourcesFit": 1}
    assert recorded.normalized["NodeAffinity"] == {"node-a": 100, "node-b": 0}
    assert recorded.extenders == {"node-a": 0, "node-b": 0}
    assert recorded.chosen == "node-a"


def test_the_weights_it_ran_with_give_back_the_recorded_final_scores(web):
    recorded = recorded_of(web)
    assert reweighted_totals(recorded, recorded.weights) == web["attempt"].final_scores
    assert (
        outcome(recorded, recorded.weights).verdict
        == "With these weights node-a still wins, with 152."
    )


@pytest.mark.parametrize(
    ("affinity", "fit"),
    [(1, 3), (1, 2), (5, 1), (0, 2), (2, 0), (3, 100), (1, -1)],
    ids=["fit-3", "fit-2", "affinity-5", "affinity-0-counts-as-1", "fit-0", "big", "negative-last"],
)
def test_reweighted_totals_are_what_the_engine_scores_with_those_weights(web, affinity, fit):
    recorded = recorded_of(web)
    weights = {"NodeAffinity": affinity, "NodeResourcesFit": fit}
    engine = scheduled_web(with_weights(affinity, fit))["attempt"]
    assert reweighted_totals(recorded, weights) == engine.final_scores
    result = outcome(recorded, weights)
    assert result.winners == [engine.node]


def test_a_weight_that_moves_the_winner_says_so(web):
    result = outcome(recorded_of(web), {"NodeResourcesFit": 3})
    assert result.changed
    assert result.verdict == "With these weights node-b would win instead of node-a, with 279."
    assert [(row.node, row.total, row.rank, row.chosen) for row in result.rows] == [
        ("node-b", 279, 1, False),
        ("node-a", 256, 2, True),
    ]


def test_equal_totals_are_shown_as_a_tie_settled_at_random(web):
    # node-a: 100 * 41 + 52 * 100 = 9300 = node-b: 93 * 100
    result = outcome(recorded_of(web), {"NodeAffinity": 41, "NodeResourcesFit": 100})
    assert result.winners == ["node-a", "node-b"]
    assert [(row.rank, row.tied) for row in result.rows] == [(1, True), (1, True)]
    assert not result.changed
    assert result.verdict == (
        "With these weights node-a and node-b tie at 9300: "
        "kube-scheduler picks one of them at random."
    )


def table(normalized: dict[str, dict[str, int]], weights: dict[str, int]) -> ScoreTable:
    """A finished Score's table, as the trace gives it, from normalized scores and weights."""
    plugins = list(normalized)
    nodes = list(next(iter(normalized.values())))
    rows = []
    for node in nodes:
        cells = [
            NodeScore(0, normalized[p][node], normalized[p][node] * weights[p]) for p in plugins
        ]
        rows.append((node, cells, sum(cell.weighted for cell in cells)))
    return ScoreTable(plugins=plugins, weights=weights, rows=rows)


def test_extenders_shares_are_kept_as_recorded_while_plugin_weights_change():
    scores = table({"ImageLocality": {"a": 10, "b": 60}}, {"ImageLocality": 1})
    # An extender gave a priority 8 at weight 2 to node a: 8 * 2 * (100 / 10) = 160.
    recorded = recorded_scores(scores, {"a": 170, "b": 60}, "a")
    assert recorded.extenders == {"a": 160, "b": 0}
    assert reweighted_totals(recorded, {"ImageLocality": 4}) == {"a": 200, "b": 240}
    assert outcome(recorded, {"ImageLocality": 4}).winners == ["b"]


def test_sums_wrap_around_as_go_int64_does():
    scores = table({"ImageLocality": {"a": 100, "b": 0}}, {"ImageLocality": 1})
    huge = (1 << 63) - 50  # an extender's int64 weight can bring a total this close
    recorded = recorded_scores(scores, {"a": 100 + huge, "b": 0}, "a")
    totals = reweighted_totals(recorded, {"ImageLocality": 1})
    assert totals["a"] == -(1 << 63) + 50  # 100 + 2**63 - 50, wrapped
    assert outcome(recorded, {"ImageLocality": 1}).winners == ["b"]
    assert int64(1 << 63) == -(1 << 63) and int64(-(1 << 63) - 1) == (1 << 63) - 1


def test_an_attempt_without_a_finished_score_has_nothing_to_reweight():
    assert recorded_scores(ScoreTable(), {}, "") is None
    unfinished = ScoreTable(plugins=["ImageLocality"], rows=[("a", [NodeScore(3)], None)])
    assert recorded_scores(unfinished, {}, "") is None


def test_a_node_the_pod_did_not_go_to_is_no_chosen_node():
    recorded = recorded_scores(table({"P": {"a": 1, "b": 2}}, {"P": 1}), {}, "")
    assert recorded.chosen == ""
    assert outcome(recorded, {}).verdict == "With these weights b would win, with 2."


@pytest.mark.parametrize(
    ("value", "weight"),
    [
        ("3", 3),
        (" +7 ", 7),
        ("-2", -2),
        ("0", 0),
        (str(INT32_MAX), INT32_MAX),
        (str(INT32_MIN), INT32_MIN),
    ],
)
def test_weights_within_int32_are_read(web, value, weight):
    weights, problems = read_weights({"weight.NodeResourcesFit": value}, recorded_of(web))
    assert problems == []
    assert weights == {"NodeAffinity": 1, "NodeResourcesFit": weight}


@pytest.mark.parametrize(
    ("field", "value", "message"),
    [
        (
            "weight.NodeResourcesFit",
            "2147483648",
            "weight.NodeResourcesFit: 2147483648 is out of range: a Score plugin's weight is "
            "an int32, from -2147483648 to 2147483647",
        ),
        (
            "weight.NodeAffinity",
            "-2147483649",
            "weight.NodeAffinity: -2147483649 is out of range: a Score plugin's weight is "
            "an int32, from -2147483648 to 2147483647",
        ),
        ("weight.NodeAffinity", "1.5", 'weight.NodeAffinity: must be a whole number, not "1.5"'),
        ("weight.NodeAffinity", "", 'weight.NodeAffinity: must be a whole number, not ""'),
        (
            "weight.ImageLocality",
            "2",
            "weight.ImageLocality: not a Score plugin that scored this attempt's nodes",
        ),
    ],
)
def test_a_bad_weight_is_named_with_its_plugin_and_the_bound(web, field, value, message):
    weights, problems = read_weights({field: value, "rows": "all"}, recorded_of(web))
    assert [str(problem) for problem in problems] == [message]
    assert weights == {"NodeAffinity": 1, "NodeResourcesFit": 1}, "the recorded ones are kept"
