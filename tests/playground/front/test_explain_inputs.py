"""What the explain panels hand the engine and how they bound its answer: the pod's place in
the queue and when it is tried next, the lists cut for big clusters, the short line of the
pods list's tooltip."""

from __future__ import annotations

from playground.front.explain_inputs import queue_state
from playground.front.why_pending import MAX_CLOSEST, panel_of
from playground.workspaces.models import ClusterObject

PUBLISHED = 1_000.0


def row(**spec) -> ClusterObject:
    return ClusterObject(kind="Pod", uid="uid-p", manifest={"spec": spec})


def test_a_pod_in_backoff_is_tried_when_its_backoff_ends_counted_from_the_publication():
    where = ("backoff", {"uid": "uid-p", "backoffSeconds": 4.5})
    assert queue_state(row(), where, PUBLISHED) == {
        "state": "backoff",
        "nextTryAt": 1_004.5,
        "gates": [],
    }


def test_an_unschedulable_pod_is_tried_at_the_latest_when_its_stay_ends():
    where = (
        "unschedulable",
        {"uid": "uid-p", "plugins": ["NodeResourcesFit"], "leftoverAt": 1_300},
    )
    assert queue_state(row(), where, PUBLISHED)["nextTryAt"] == 1_300


def test_a_queue_published_before_stays_were_published_gives_no_time():
    where = ("unschedulable", {"uid": "uid-p", "plugins": []})
    assert queue_state(row(), where, PUBLISHED)["nextTryAt"] is None


def test_a_gated_pod_the_queue_has_not_listed_is_gated_by_its_spec():
    gated = row(schedulingGates=[{"name": "a"}, {"name": "b"}])
    assert queue_state(gated, None, PUBLISHED) == {
        "state": "gated",
        "nextTryAt": None,
        "gates": ["a", "b"],
    }
    assert queue_state(row(), None, PUBLISHED) is None


def explanation(**fields) -> dict:
    base = {"pod": "default/p", "result": "Unschedulable", "message": "0/9 nodes", "nodes": 9}
    return {"reasons": [], "mostRejecting": None, "closest": [], "gates": [], **base, **fields}


def test_the_closest_nodes_are_cut_and_the_rest_counted():
    closest = [{"node": f"n{i}", "plugin": "NodeResourcesFit", "missing": "cpu"} for i in range(8)]
    panel = panel_of(explanation(closest=closest), now=0.0)
    assert [c["node"] for c in panel.closest] == [f"n{i}" for i in range(MAX_CLOSEST)]
    assert panel.more_closest == 8 - MAX_CLOSEST


def test_the_next_try_is_counted_from_now_and_never_below_zero():
    next_try = {"state": "backoff", "at": 110.0, "inSeconds": 99.0}
    assert panel_of(explanation(nextTry=next_try), now=100.0).next_try["inSeconds"] == 10.0
    assert panel_of(explanation(nextTry=next_try), now=200.0).next_try["inSeconds"] == 0.0


def test_the_short_line_names_the_plugin_that_rejected_most_and_the_closest_node():
    explained = explanation(
        reasons=[
            {"plugin": "NodeResourcesFit", "reason": "Insufficient cpu", "nodes": 5},
            {"plugin": "NodeResourcesFit", "reason": "Insufficient memory", "nodes": 2},
            {"plugin": "TaintToleration", "reason": "untolerated", "nodes": 2},
        ],
        mostRejecting="NodeResourcesFit",
        closest=[{"node": "n1", "plugin": "NodeResourcesFit", "missing": "needs 1 CPU more"}],
    )
    assert panel_of(explained, 0.0).short == (
        "NodeResourcesFit rejected 7 of 9 nodes; closest: n1, needs 1 CPU more"
    )
    placed = explanation(result="Waiting", node="n2")
    assert panel_of(placed, 0.0).short == "the latest attempt found it a node: n2"
