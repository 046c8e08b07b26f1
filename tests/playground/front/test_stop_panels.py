"""The debugger's panels for stops the engine's Debugger made, read back from JSON as the
playground stores them: at Filter (node by node, mid-way) and at Score (raw scores so far)."""

from __future__ import annotations

import json

import pytest
from django.template.loader import render_to_string
from django.utils.html import strip_tags

from framework.debugger.session import STEP
from playground.front.stop_panels import PANEL_ROWS, panels_context
from playground.front.trace_tables import PASSED, Verdict
from tests.framework.debugger.scenario import BIG, NODES, WEB, node, simulate


def stop_dict(objects: str, *breaks: str, answer=None, index: int = 0) -> dict:
    """The ``index``-th stop, as the service stores it in SchedulerStatus.stop (JSON)."""
    _, stops, _ = simulate(objects, *breaks, answer=answer)
    return json.loads(json.dumps(stops[index].to_dict()))


@pytest.fixture(scope="module")
def at_filter_on_n2() -> dict:
    """Stopped at n2's first Filter call: n1 has been judged by every plugin, n2 by one."""
    return stop_dict(NODES + WEB, "filter@n2")


@pytest.fixture(scope="module")
def at_score() -> dict:
    """Stopped at the first Score plugin's call: its raw scores and nothing else yet."""
    return stop_dict(NODES + WEB, "score")


def cells_of(context: dict) -> dict[str, list[str]]:
    return {node: [cell.state for cell in cells] for node, cells in context["matrix_rows"]}


def test_at_filter_the_header_says_where_and_why(at_filter_on_n2):
    header = panels_context(at_filter_on_n2)["header"]
    assert header["where"] == "filter · NodeUnschedulable · node n2"
    assert (header["code"], header["kind"], header["reason"]) == (
        "Success",
        "plugin call",
        "breakpoint filter@n2",
    )


def test_at_filter_the_matrix_leaves_plugins_not_called_yet_blank(at_filter_on_n2):
    context = panels_context(at_filter_on_n2)
    matrix = context["matrix"]
    assert matrix.plugins[0] == "NodeUnschedulable" and "NodeResourcesFit" in matrix.plugins
    assert [node for node, _ in matrix.rows] == ["n1", "n2"]  # n3 not reached yet
    assert cells_of(context) == {
        "n1": ["pass"] * len(matrix.plugins),
        "n2": ["pass"] + ["pending"] * (len(matrix.plugins) - 1),
    }
    # Plugins skipped at PreFilter are columns of their own, shown as skipped.
    assert {"NodePorts", "InterPodAffinity"} <= set(matrix.skipped)


def test_at_filter_pre_filter_results_and_the_scores_are_not_there_yet(at_filter_on_n2):
    context = panels_context(at_filter_on_n2)
    pre_filter = {row.plugin: row.code for row in context["pre_filter"]}
    assert pre_filter["NodeResourcesFit"] == "Success" and pre_filter["NodePorts"] == "Skip"
    assert context["narrowed_to"] is None  # no plugin narrowed the nodes
    assert context["scores"].rows == []
    assert [point["point"] for point in context["points"]] == ["preFilter"]


def test_at_filter_the_state_nodes_and_queue_from_the_live_stop_are_shown(at_filter_on_n2):
    context = panels_context(at_filter_on_n2)
    state = {entry.key: entry for entry in context["cycle_state"]}
    fit = state["PreFilterNodeResourcesFit"]
    assert fit.type == "_PreFilterState" and "milli_cpu: 500" in fit.view
    nodes = context["nodes"]
    assert nodes["columns"][:3] == ["CPU", "memory", "pods"]
    n2 = dict(nodes["rows"])["n2"]
    assert (n2[0].unit, n2[0].requested, n2[0].allocatable) == ("cpu", 0, 2000)
    assert context["queue"]["inFlight"] == 1 and context["nominated_pods"] == []


def test_a_rejection_leaves_the_nodes_later_plugins_not_run_rather_than_pending():
    small = node("tiny", "100m")
    stop = stop_dict(small + NODES + WEB, "score")
    context = panels_context(stop)
    matrix = context["matrix"]
    fit = matrix.plugins.index("NodeResourcesFit")
    row = dict(matrix.rows)["tiny"]
    assert row[fit] == Verdict("UnschedulableAndUnresolvable", ("Insufficient cpu",))
    assert all(verdict == PASSED for verdict in row[:fit])
    assert cells_of(context)["tiny"][fit + 1 :] == ["notRun"] * (len(matrix.plugins) - fit - 1)


def test_at_score_the_raw_scores_so_far_without_normalized_weighted_or_totals(at_score):
    context = panels_context(at_score)
    scores = context["scores"]
    assert scores.plugins == [at_score["plugin"]]  # only the first Score plugin has run
    raw = at_score["results"]["scores"][at_score["plugin"]]
    assert [(node, [cell.raw for cell in cells]) for node, cells, _ in scores.rows] == [
        (name, [entry["raw"]]) for name, entry in raw.items()
    ]
    assert all(
        cell.normalized is None and cell.weighted is None
        for _, cells, _ in scores.rows
        for cell in cells
    )
    assert all(total is None for _, _, total in scores.rows)
    assert scores.columns == [(at_score["plugin"], None)]  # weights are known once Score ends
    assert "InterPodAffinity" in scores.skipped  # its PreScore returned Skip


def test_stepping_through_score_adds_a_plugin_at_a_time():
    stops = simulate(NODES + WEB, "score", answer=lambda stop, stops: STEP)[1]
    score_stops = [s for s in stops if s.point == "score" and s.kind == "pluginBatch"]
    plugins = [panels_context(s.to_dict())["scores"].plugins for s in score_stops]
    assert [len(names) for names in plugins] == list(range(1, len(plugins) + 1))


def test_once_score_has_ended_the_table_is_complete_with_totals_best_first():
    context = panels_context(stop_dict(NODES + WEB, "reserve"))
    scores = context["scores"]
    assert dict(scores.columns)["TaintToleration"] == 3
    totals = [total for _, _, total in scores.rows]
    assert totals == sorted(totals, reverse=True)
    for _, cells, total in scores.rows:
        assert total == sum(cell.weighted for cell in cells if cell)


def test_the_template_draws_the_panels_from_the_stop_alone(at_score):
    html = render_to_string("front/debugger_panels.html", {"stop": at_score})
    assert f"<h2>score · {at_score['plugin']} · 3 nodes</h2>" in html
    assert 'aria-label="Filter"' in html and 'aria-label="Score"' in html
    assert 'aria-label="CycleState"' in html and "PreScoreNodeResourcesFit" in html
    assert 'aria-label="Nodes"' in html and "0 / 8Gi" in html
    assert "in flight <strong>1</strong>" in html


def text_of(html: str) -> str:
    """The words a person reads or copies: tags dropped, white space as one space."""
    return " ".join(strip_tags(html).split())


def test_the_extension_points_completed_read_apart_numbered(at_score):
    html = render_to_string("front/debugger_panels.html", {"stop": at_score})
    section = html[html.index('aria-label="Extension points completed"') :]
    text = text_of(section[: section.index("</section>")])
    assert "1. preFilter Success 2. filter Success 3. preScore Success" in text


GATED = """\
---
apiVersion: v1
kind: Pod
metadata: {name: gated, namespace: default}
spec:
  schedulingGates: [{name: example.com/wait}]
  containers:
  - {name: c, image: app}
"""


def test_the_queue_counts_gated_pods_apart_from_unschedulable_ones_as_the_board_does():
    stop = stop_dict(NODES + BIG + GATED + WEB, "score")
    assert stop["queue"]["unschedulablePods"] == 2 and stop["queue"]["gated"] == 1
    html = render_to_string("front/debugger_panels.html", {"stop": stop})
    assert "unschedulable <strong>1</strong> · gated <strong>1</strong>" in html


def test_a_stop_without_the_schedulers_state_shows_only_the_results(at_score):
    replayed = {
        key: at_score[key]
        for key in at_score
        if key not in ("cycleState", "nodes", "nominatedPods", "queue")
    }
    html = render_to_string("front/debugger_panels.html", {"stop": replayed})
    assert 'aria-label="Score"' in html
    assert "CycleState" not in html and 'aria-label="Nodes"' not in html and "Queue" not in html


def test_thousands_of_nodes_show_the_first_rows_and_always_the_stops_node():
    # Twenty nodes too small first: the scheduler judges all 120 to find its 100 feasible ones.
    tiny = "".join(node(f"n{i:03}", "100m") for i in range(20))
    many = tiny + "".join(node(f"n{i:03}", "2") for i in range(20, PANEL_ROWS + 20))
    last = f"n{PANEL_ROWS + 19:03}"
    context = panels_context(stop_dict(many + WEB, f"filter@{last}"))
    shown = [name for name, _ in context["matrix_rows"]]
    assert len(context["matrix"].rows) == PANEL_ROWS + 20
    assert shown[:PANEL_ROWS] == [name for name, _ in context["matrix"].rows[:PANEL_ROWS]]
    assert shown[PANEL_ROWS:] == [last]
