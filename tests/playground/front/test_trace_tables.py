"""An attempt's filter matrix, score table and ranking, from genuine trace events."""

import pytest

from playground.front.trace_tables import (
    PASSED,
    Verdict,
    extension_points,
    filter_matrix,
    ranking,
    score_table,
)
from tests.playground.front.scenario import attempt_of_web


@pytest.fixture(scope="module")
def web():
    return attempt_of_web()


def test_the_matrix_has_a_row_per_node_and_a_column_per_filter_plugin(web):
    matrix = filter_matrix(web["events"])
    assert sorted(node for node, _ in matrix.rows) == ["big", "medium", "small", "tainted"]
    assert {"NodeResourcesFit", "TaintToleration", "NodeUnschedulable"} <= set(matrix.plugins)


def test_the_matrix_keeps_each_rejection_with_its_reasons(web):
    matrix = filter_matrix(web["events"])
    rows = dict(matrix.rows)
    fit = matrix.plugins.index("NodeResourcesFit")
    taints = matrix.plugins.index("TaintToleration")
    assert rows["small"][fit] == Verdict("UnschedulableAndUnresolvable", ("Insufficient cpu",))
    assert rows["tainted"][taints] == Verdict(
        "UnschedulableAndUnresolvable", ("node(s) had untolerated taint(s)",)
    )
    assert all(verdict in (PASSED, None) for verdict in rows["big"])
    assert matrix.failed_nodes == 2


def test_plugins_after_a_rejection_did_not_run_on_that_node(web):
    matrix = filter_matrix(web["events"])
    rows = dict(matrix.rows)
    last = len(matrix.plugins) - 1
    failing = next(i for i, v in enumerate(rows["tainted"]) if v and not v.passed)
    assert failing < last
    assert rows["tainted"][last] is None


def test_filter_calls_after_the_filter_summary_belong_to_preemption_and_are_left_out():
    cycle = {"kind": "plugin", "point": "filter", "plugin": "Fit", "node": "n1", "code": "Success"}
    summary = {"kind": "extensionPoint", "point": "filter", "code": "Unschedulable"}
    dry_run = {
        "kind": "plugin",
        "point": "filter",
        "plugin": "Fit",
        "node": "n1",
        "code": "Unschedulable",
        "reasons": ["Insufficient cpu"],
    }
    matrix = filter_matrix([cycle, summary, dry_run])
    assert matrix.rows == [("n1", [PASSED])]


def test_a_batch_event_reports_passed_and_failed_nodes():
    batch = {
        "kind": "pluginBatch",
        "point": "filter",
        "plugin": "Fit",
        "code": "Unschedulable",
        "data": {
            "nodes": ["a", "b"],
            "failed": {"b": {"code": "Unschedulable", "reasons": ["Insufficient memory"]}},
        },
    }
    assert filter_matrix([batch]).rows == [
        ("a", [PASSED]),
        ("b", [Verdict("Unschedulable", ("Insufficient memory",))]),
    ]


def test_the_score_table_covers_the_feasible_nodes_best_first(web):
    table = score_table(web["events"])
    assert table.rows[0][0] == web["attempt"].node
    assert sorted(node for node, _, _ in table.rows) == ["big", "medium"]
    assert table.weights["TaintToleration"] == 3
    assert "NodeResourcesBalancedAllocation" in table.plugins


def test_each_total_is_the_sum_of_the_weighted_scores(web):
    for _node, scores, total in score_table(web["events"]).rows:
        assert total == sum(score.weighted for score in scores if score)


def test_weighted_is_normalized_times_the_weight(web):
    table = score_table(web["events"])
    for _node, scores, _ in table.rows:
        for plugin, score in zip(table.plugins, scores, strict=True):
            assert score.weighted == score.normalized * table.weights[plugin]


def test_an_attempt_without_scores_has_an_empty_table():
    filter_only = {"kind": "extensionPoint", "point": "filter", "code": "Success"}
    assert score_table([filter_only]).rows == []


@pytest.mark.parametrize(
    ("scores", "chosen", "expected"),
    [
        (
            {"b": 50, "a": 200, "c": 200},
            "c",
            [("a", 200, 100.0, False), ("c", 200, 100.0, True), ("b", 50, 25.0, False)],
        ),
        ({"a": 0}, "a", [("a", 0, 0.0, True)]),
        ({}, "", []),
    ],
    ids=["best first, ties by name", "all zero scores", "no scores"],
)
def test_the_ranking_orders_nodes_and_sizes_their_bars(scores, chosen, expected):
    assert [(r.node, r.score, r.percent, r.chosen) for r in ranking(scores, chosen)] == expected


def test_the_ranking_of_a_real_attempt_puts_the_chosen_node_first(web):
    attempt = web["attempt"]
    ranks = ranking(attempt.final_scores, attempt.node)
    assert ranks[0].chosen and ranks[0].percent == 100.0


def test_extension_points_list_the_cycle_in_order(web):
    points = [point.event["point"] for point in extension_points(web["events"])]
    assert points.index("preFilter") < points.index("filter") < points.index("score")
    assert points[-1] == "postBind"


def test_plugins_skipped_at_pre_filter_are_columns_of_skipped_cells(web):
    matrix = filter_matrix(web["events"])
    # The web pod has no ports, volumes, spread constraints or affinity: those plugins' PreFilter
    # returns Skip, so the cycle skips their Filter. They were missing from the matrix.
    assert {"NodePorts", "VolumeRestrictions", "InterPodAffinity"} <= set(matrix.skipped)
    assert not set(matrix.skipped) & set(matrix.plugins)


def test_plugins_skipped_at_pre_score_are_named_in_the_score_table(web):
    scores = score_table(web["events"])
    assert "InterPodAffinity" in scores.skipped
    assert not set(scores.skipped) & set(scores.plugins)


def test_every_plugin_has_its_own_result_and_time_at_each_point(web):
    points = {point.event["point"]: point for point in extension_points(web["events"])}
    pre_filter = {r.plugin: r for r in points["preFilter"].plugins}
    assert pre_filter["NodeResourcesFit"].code == "Success"
    assert pre_filter["NodePorts"].code == "Skip"
    fit = next(r for r in points["filter"].plugins if r.plugin == "NodeResourcesFit")
    # TaintToleration, before it, rejected the tainted node: Fit judged the other three.
    assert (fit.calls, fit.rejected, fit.code) == (3, 1, "UnschedulableAndUnresolvable")
    assert fit.seconds > 0
    bind = points["bind"].plugins
    assert [(r.plugin, r.code) for r in bind] == [("DefaultBinder", "Success")]
    score = {r.plugin for r in points["score"].plugins}
    assert "NodeResourcesFit" in score  # its Score and NormalizeScore calls, under Score
