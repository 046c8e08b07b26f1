"""What a stop shows: results so far, the CycleState, the nodes, nominated pods, the queue."""

from __future__ import annotations

import json

import pytest

from framework.debugger.session import STEP
from framework.debugger.view import results_so_far
from framework.simulator import Simulation
from framework.trace import per_node_events
from tests.framework.debugger.scenario import BIG, NODES, SCENARIOS, WEB, simulate


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


PREEMPTION = """\
---
apiVersion: v1
kind: Node
metadata: {name: n1}
status: {allocatable: {cpu: "1", memory: 8Gi, pods: "110"}}
---
apiVersion: v1
kind: Pod
metadata: {name: low, namespace: default}
spec:
  nodeName: n1
  containers: [{name: c, image: app, resources: {requests: {cpu: 800m}}}]
---
apiVersion: v1
kind: Pod
metadata: {name: high, namespace: default}
spec:
  priority: 1000
  containers: [{name: c, image: app, resources: {requests: {cpu: 800m}}}]
"""


def test_preemptions_dry_runs_do_not_overwrite_the_cycles_filter_verdicts():
    _, stops, _ = simulate(PREEMPTION, "postFilter", answer=lambda stop, stops: STEP)
    # Stepping from PostFilter into preemption's dry run: it judges n1 again without the
    # victim, and there the pod fits; the cycle's verdict stays the rejection the cycle saw.
    dry_run = next(s for s in stops if s.point == "filter" and s.plugin == "NodeResourcesFit")
    assert dry_run.event.code == "Success"
    assert dry_run.state["results"]["filter"]["n1"]["NodeResourcesFit"] == {
        "code": "Unschedulable",
        "reasons": ["Insufficient cpu"],
    }


def test_pre_score_results_and_once_score_has_ended_the_weights_and_totals():
    at_score = stop_at("score").state["results"]
    assert "InterPodAffinity" in at_score["preScore"]["skipped"]
    assert at_score["preScore"]["plugins"]["NodeResourcesFit"]["code"] == "Success"
    assert (at_score["weights"], at_score["totals"]) == ({}, {})  # not known before Score ends
    results = stop_at("reserve").state["results"]
    assert results["weights"]["TaintToleration"] == 3
    for node, total in results["totals"].items():
        assert total == sum(scores[node]["weighted"] for scores in results["scores"].values())


@pytest.mark.parametrize("scenario", SCENARIOS, ids=lambda p: p.name)
def test_batch_events_are_read_as_the_calls_they_stand_for_node_by_node(scenario):
    reports = Simulation(
        (scenario / "config.yaml").read_text(), (scenario / "objects.yaml").read_text()
    ).run()
    for report in reports:
        one_by_one = [event for batch in report.events for event in per_node_events(batch)]
        assert results_so_far(report.events) == results_so_far(one_by_one), report.attempt.pod
