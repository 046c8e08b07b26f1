"""What a stop shows: results so far, the CycleState, the nodes, nominated pods, the queue."""

from __future__ import annotations

import json

from tests.framework.debugger.scenario import BIG, NODES, WEB, simulate


def stop_at(point: str, objects: str = NODES + WEB):
    _, stops, _ = simulate(objects, point)
    return stops[0]


def test_at_score_the_filter_verdicts_and_the_first_raw_scores_are_there_so_far():
    stop = stop_at("score")
    results = stop.state["results"]
    assert sorted(results["filter"]) == ["n1", "n2", "n3"]
    assert results["filter"]["n1"]["NodeResourcesFit"] == {"code": "Success", "reasons": []}
    assert list(results["scores"]) == [stop.plugin]  # only the first Score plugin has run
    assert [p["point"] for p in results["points"]] == ["preFilter", "filter", "preScore"]


def test_once_score_has_ended_the_scores_are_normalized_and_weighted():
    stop = stop_at("reserve")
    fit = stop.state["results"]["scores"]["NodeResourcesFit"]["n3"]
    assert set(fit) == {"raw", "normalized", "weighted"}


def test_the_cycle_state_holds_what_plugins_wrote_so_far_readably():
    state = stop_at("filter").state["cycleState"]
    assert "PreFilterNodeResourcesFit" in state
    assert "PreScoreNodeResourcesFit" not in state
    assert "PreScoreNodeResourcesFit" in stop_at("score").state["cycleState"]
    json.dumps(state)  # every value is described as JSON


def test_nodes_show_their_allocatable_and_requested_resources():
    nodes = {n["name"]: n for n in stop_at("filter").state["nodes"]}
    assert nodes["n2"]["allocatable"]["cpu (millicores)"] == 2000
    assert nodes["n2"]["requested"]["cpu (millicores)"] == 0


def test_the_queue_and_the_attempt_are_shown():
    stop = stop_at("filter", NODES + WEB + BIG)
    assert stop.state["queue"]["inFlight"] == 1
    assert stop.state["queue"]["attempts"] == 1
    assert stop.state["queue"]["activeQ"] == 1  # the other pod waits its turn
    assert stop.state["nominatedPods"] == []
