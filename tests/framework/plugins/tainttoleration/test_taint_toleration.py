"""TaintToleration: hard taints filter, PreferNoSchedule taints score (reversed)."""

from __future__ import annotations

from typing import Any

import pytest

from framework.api.node import Node
from framework.api.pod import Pod
from framework.interface.cycle_state import CycleState
from framework.interface.events import ActionType, ClusterEvent, EventResource, QueueingHint
from framework.interface.node_info import NodeInfo
from framework.interface.status import Code, Status
from framework.interface.types import MAX_NODE_SCORE, NodeScore
from framework.plugins import names
from framework.plugins.feature import Features
from framework.plugins.tainttoleration.taint_toleration import TaintToleration
from tests.framework.builders import StaticLister, make_node, make_pod
from tests.framework.plugins.in_tree import InTree
from tests.framework.runtime.helpers import framework_of

UNTOLERATED = Status(Code.UNSCHEDULABLE_AND_UNRESOLVABLE, "node(s) had untolerated taint(s)")


def taint(key: str, value: str = "", effect: str = "NoSchedule") -> dict[str, Any]:
    return {"key": key, "value": value, "effect": effect}


def toleration(key: str, value: str = "", effect: str = "", operator: str = "") -> dict[str, Any]:
    return {"key": key, "operator": operator, "value": value, "effect": effect}


def node_with_taints(name: str, *taints: dict[str, Any]) -> Node:
    return make_node(name, taints=list(taints))


def pod_with_tolerations(*tolerations: dict[str, Any], uid: str | None = None) -> Pod:
    return make_pod("pod1", uid=uid, tolerations=list(tolerations))


def node_info_of(node: Node) -> NodeInfo:
    node_info = NodeInfo()
    node_info.set_node(node)
    return node_info


def plugin(comparison_operators: bool = False, queue_hints: bool = True) -> TaintToleration:
    features = Features(
        enable_scheduling_queue_hint=queue_hints,
        enable_taint_toleration_comparison_operators=comparison_operators,
    )
    return TaintToleration(None, None, features)


# ---------------------------------------------------------------------------------------------
# Score

SLA = "node.kubernetes.io/sla"
PREFER = "PreferNoSchedule"


@pytest.mark.parametrize(
    ("pod", "nodes", "want", "comparison_operators"),
    [
        (
            pod_with_tolerations(toleration("foo", "bar", PREFER, "Equal")),
            [
                node_with_taints("nodeA", taint("foo", "bar", PREFER)),
                node_with_taints("nodeB", taint("foo", "blah", PREFER)),
            ],
            {"nodeA": MAX_NODE_SCORE, "nodeB": 0},
            False,
        ),
        (
            pod_with_tolerations(
                toleration("cpu-type", "arm64", PREFER, "Equal"),
                toleration("disk-type", "ssd", PREFER, "Equal"),
            ),
            [
                node_with_taints("nodeA"),
                node_with_taints("nodeB", taint("cpu-type", "arm64", PREFER)),
                node_with_taints(
                    "nodeC", taint("cpu-type", "arm64", PREFER), taint("disk-type", "ssd", PREFER)
                ),
            ],
            {"nodeA": MAX_NODE_SCORE, "nodeB": MAX_NODE_SCORE, "nodeC": MAX_NODE_SCORE},
            False,
        ),
        (
            pod_with_tolerations(toleration("foo", "bar", PREFER, "Equal")),
            [
                node_with_taints("nodeA"),
                node_with_taints("nodeB", taint("cpu-type", "arm64", PREFER)),
                node_with_taints(
                    "nodeC", taint("cpu-type", "arm64", PREFER), taint("disk-type", "ssd", PREFER)
                ),
            ],
            {"nodeA": MAX_NODE_SCORE, "nodeB": 50, "nodeC": 0},
            False,
        ),
        (
            pod_with_tolerations(
                toleration("cpu-type", "arm64", "NoSchedule", "Equal"),
                toleration("disk-type", "ssd", "NoSchedule", "Equal"),
            ),
            [
                node_with_taints("nodeA"),
                node_with_taints("nodeB", taint("cpu-type", "arm64", "NoSchedule")),
                node_with_taints(
                    "nodeC", taint("cpu-type", "arm64", PREFER), taint("disk-type", "ssd", PREFER)
                ),
            ],
            {"nodeA": MAX_NODE_SCORE, "nodeB": MAX_NODE_SCORE, "nodeC": 0},
            False,
        ),
        (
            pod_with_tolerations(),
            [
                node_with_taints("nodeA"),
                node_with_taints("nodeB", taint("cpu-type", "arm64", PREFER)),
            ],
            {"nodeA": MAX_NODE_SCORE, "nodeB": 0},
            False,
        ),
        (
            pod_with_tolerations(toleration(SLA, "950", PREFER, "Gt")),
            [
                node_with_taints("nodeA", taint(SLA, "800", PREFER)),
                node_with_taints("nodeB", taint(SLA, "999", PREFER)),
            ],
            {"nodeA": 0, "nodeB": MAX_NODE_SCORE},
            True,
        ),
        (
            pod_with_tolerations(toleration(SLA, "800", PREFER, "Lt")),
            [
                node_with_taints("nodeA", taint(SLA, "950", PREFER)),
                node_with_taints("nodeB", taint(SLA, "700", PREFER)),
            ],
            {"nodeA": 0, "nodeB": MAX_NODE_SCORE},
            True,
        ),
        (
            pod_with_tolerations(toleration("foo", operator="Exists")),
            [
                node_with_taints("nodeA", taint("foo", "x", PREFER)),
                node_with_taints("nodeB", taint("bar", "x", PREFER)),
            ],
            {"nodeA": MAX_NODE_SCORE, "nodeB": 0},
            False,
        ),
    ],
    ids=[
        "a node whose taints the pod tolerates scores higher than one with intolerable taints",
        "nodes whose taints are all tolerated score the same however many taints they have",
        "the more intolerable taints a node has the lower it scores",
        "only PreferNoSchedule taints and tolerations count for the score",
        "without taints and tolerations the pod prefers the node without taints",
        "a Gt toleration prefers the node whose SLA taint is above the threshold",
        "an Lt toleration prefers the node whose SLA taint is below the threshold",
        "a toleration without effect also counts for PreferNoSchedule taints",
    ],
)
def test_it_scores_nodes_by_their_untolerated_prefer_no_schedule_taints(
    pod, nodes, want, comparison_operators
):
    pl = plugin(comparison_operators)
    node_infos = [node_info_of(node) for node in nodes]
    state = CycleState()
    assert pl.pre_score(state, pod, node_infos) is None
    scores = []
    for node_info in node_infos:
        score, status = pl.score(state, pod, node_info)
        assert status is None
        scores.append(NodeScore(node_info.node_name, score))
    assert pl.score_extensions().normalize_score(state, pod, scores) is None
    assert {s.name: s.score for s in scores} == want


def test_score_without_pre_score_state_is_an_error():
    score, status = plugin().score(CycleState(), make_pod(), node_info_of(make_node("n")))
    assert score == 0
    assert status == Status.error(
        'failed to read "PreScoreTaintToleration" from cycleState: not found'
    )


def test_the_framework_weights_the_reversed_normalized_scores():
    nodes = [
        node_info_of(node_with_taints("clean")),
        node_info_of(node_with_taints("one", taint("a", effect=PREFER))),
        node_info_of(node_with_taints("two", taint("a", effect=PREFER), taint("b", effect=PREFER))),
    ]
    fwk = framework_of(
        [InTree(TaintToleration)],
        points={"pre_score": [names.TAINT_TOLERATION], "score": [(names.TAINT_TOLERATION, 3)]},
        snapshot_shared_lister=StaticLister(nodes),
    )
    state = CycleState()
    pod = make_pod()
    assert fwk.run_pre_score_plugins(state, pod, nodes) is None
    scores, status = fwk.run_score_plugins(state, pod, nodes)
    assert status is None
    assert {s.name: s.total_score for s in scores} == {"clean": 300, "one": 150, "two": 0}


# ---------------------------------------------------------------------------------------------
# Filter

PRIORITY = "node.example.com/priority-level"


@pytest.mark.parametrize(
    ("pod", "node", "want", "comparison_operators"),
    [
        (
            pod_with_tolerations(),
            node_with_taints("nodeA", taint("dedicated", "user1", "NoSchedule")),
            UNTOLERATED,
            False,
        ),
        (
            pod_with_tolerations(toleration("dedicated", "user1", "NoSchedule")),
            node_with_taints("nodeA", taint("dedicated", "user1", "NoSchedule")),
            None,
            False,
        ),
        (
            pod_with_tolerations(toleration("dedicated", "user2", "NoSchedule", "Equal")),
            node_with_taints("nodeA", taint("dedicated", "user1", "NoSchedule")),
            UNTOLERATED,
            False,
        ),
        (
            pod_with_tolerations(toleration("foo", effect="NoSchedule", operator="Exists")),
            node_with_taints("nodeA", taint("foo", "bar", "NoSchedule")),
            None,
            False,
        ),
        (
            pod_with_tolerations(
                toleration("dedicated", "user2", "NoSchedule", "Equal"),
                toleration("foo", effect="NoSchedule", operator="Exists"),
            ),
            node_with_taints(
                "nodeA",
                taint("dedicated", "user2", "NoSchedule"),
                taint("foo", "bar", "NoSchedule"),
            ),
            None,
            False,
        ),
        (
            pod_with_tolerations(toleration("foo", "bar", PREFER, "Equal")),
            node_with_taints("nodeA", taint("foo", "bar", "NoSchedule")),
            UNTOLERATED,
            False,
        ),
        (
            pod_with_tolerations(toleration("foo", "bar", operator="Equal")),
            node_with_taints("nodeA", taint("foo", "bar", "NoSchedule")),
            None,
            False,
        ),
        (
            pod_with_tolerations(toleration("dedicated", "user2", "NoSchedule", "Equal")),
            node_with_taints("nodeA", taint("dedicated", "user1", PREFER)),
            None,
            False,
        ),
        (
            pod_with_tolerations(),
            node_with_taints("nodeA", taint("dedicated", "user1", PREFER)),
            None,
            False,
        ),
        (
            pod_with_tolerations(),
            node_with_taints("nodeA", taint("node.kubernetes.io/not-ready", effect="NoExecute")),
            UNTOLERATED,
            False,
        ),
        (
            pod_with_tolerations(toleration(PRIORITY, "950", "NoSchedule", "Gt")),
            node_with_taints("nodeA", taint(PRIORITY, "800", "NoSchedule")),
            UNTOLERATED,
            True,
        ),
        (
            pod_with_tolerations(toleration(SLA, "750", "NoSchedule", "Gt")),
            node_with_taints("nodeA", taint(SLA, "950", "NoSchedule")),
            None,
            True,
        ),
        (
            pod_with_tolerations(toleration(PRIORITY, "800", "NoSchedule", "Lt")),
            node_with_taints("nodeA", taint(PRIORITY, "950", "NoSchedule")),
            UNTOLERATED,
            True,
        ),
        (
            pod_with_tolerations(toleration(SLA, "950", "NoSchedule", "Lt")),
            node_with_taints("nodeA", taint(SLA, "800", "NoSchedule")),
            None,
            True,
        ),
        (
            pod_with_tolerations(toleration(SLA, "950", "NoSchedule", "Gt")),
            node_with_taints("nodeA", taint(SLA, "high", "NoSchedule")),
            UNTOLERATED,
            True,
        ),
        (
            pod_with_tolerations(toleration(SLA, "750", "NoSchedule", "Gt")),
            node_with_taints("nodeA", taint(SLA, "950", "NoSchedule")),
            UNTOLERATED,
            False,
        ),
        (
            pod_with_tolerations(toleration(SLA, "950", "NoSchedule", "Lt")),
            node_with_taints("nodeA", taint(SLA, "800", "NoSchedule")),
            UNTOLERATED,
            False,
        ),
        (
            pod_with_tolerations(
                toleration("dedicated", "user1", "NoSchedule", "Equal"),
                toleration(SLA, "750", "NoSchedule", "Gt"),
            ),
            node_with_taints("nodeA", taint("dedicated", "user1", "NoSchedule")),
            None,
            False,
        ),
        (
            pod_with_tolerations(
                toleration("dedicated", "user1", "NoSchedule", "Equal"),
                toleration(SLA, "750", "NoSchedule", "Gt"),
            ),
            node_with_taints(
                "nodeA",
                taint("dedicated", "user1", "NoSchedule"),
                taint(SLA, "950", "NoSchedule"),
            ),
            UNTOLERATED,
            False,
        ),
    ],
    ids=[
        "a pod without tolerations cannot go to a node with taints",
        "a pod tolerating the dedicated NoSchedule taint can go to that node",
        "a pod tolerating another value of the dedicated taint cannot go to that node",
        "an Exists toleration tolerates the taint whatever its value",
        "a pod tolerating each of the node's taints can go to it",
        "a toleration with a different (non-empty) effect does not tolerate the taint",
        "a toleration without effect tolerates a NoSchedule taint with the same key and value",
        "an untolerated PreferNoSchedule taint does not filter",
        "a pod without tolerations can go to a node with only PreferNoSchedule taints",
        "an untolerated NoExecute taint filters",
        "a Gt toleration does not tolerate a taint value below its threshold",
        "a Gt toleration tolerates a taint value above its threshold",
        "an Lt toleration does not tolerate a taint value above its threshold",
        "an Lt toleration tolerates a taint value below its threshold",
        "a Gt toleration does not tolerate a non-numeric taint value",
        "a Gt toleration tolerates nothing while comparison operators are off",
        "an Lt toleration tolerates nothing while comparison operators are off",
        "with comparison operators off an Equal toleration still works beside a Gt one",
        "with comparison operators off a taint needing the Gt toleration is untolerated",
    ],
)
def test_it_filters_nodes_with_untolerated_no_schedule_or_no_execute_taints(
    pod, node, want, comparison_operators
):
    status = plugin(comparison_operators).filter(CycleState(), pod, node_info_of(node))
    assert status == want


# ---------------------------------------------------------------------------------------------
# Queueing


@pytest.mark.parametrize(
    ("old_obj", "new_obj"),
    [(None, "not-a-node"), ("not-a-node", node_with_taints("nodeA"))],
    ids=["the new object is not a node", "the old object is not a node"],
)
def test_its_node_hint_raises_for_objects_that_are_not_nodes(old_obj, new_obj):
    with pytest.raises(TypeError):
        plugin().is_schedulable_after_node_change(pod_with_tolerations(), old_obj, new_obj)


USER2_POD = pod_with_tolerations(toleration("dedicated", "user2", "NoSchedule", "Equal"))


@pytest.mark.parametrize(
    ("old_obj", "new_obj", "want"),
    [
        (None, node_with_taints("nodeA", taint("dedicated", "user1")), QueueingHint.QUEUE_SKIP),
        (None, node_with_taints("nodeA", taint("dedicated", "user2")), QueueingHint.QUEUE),
        (
            node_with_taints("nodeA", taint("dedicated", "user1")),
            node_with_taints("nodeA", taint("dedicated", "user1"), taint("dedicated", "user3")),
            QueueingHint.QUEUE_SKIP,
        ),
        (
            node_with_taints("nodeA", taint("dedicated", "user1")),
            node_with_taints("nodeA", taint("dedicated", "user2")),
            QueueingHint.QUEUE,
        ),
        (
            node_with_taints("nodeA"),
            node_with_taints("nodeA", taint("other", effect=PREFER)),
            QueueingHint.QUEUE_SKIP,
        ),
    ],
    ids=[
        "a node added with an untolerated taint is skipped",
        "a node added with a tolerated taint queues",
        "an unrelated taint change is skipped",
        "a taint change that makes the node tolerated queues",
        "a node that was already tolerated is skipped",
    ],
)
def test_it_queues_when_a_node_stops_having_untolerated_taints(old_obj, new_obj, want):
    assert plugin().is_schedulable_after_node_change(USER2_POD, old_obj, new_obj) == want


@pytest.mark.parametrize(
    ("old_obj", "new_obj"),
    [(None, "not-a-pod"), ("not-a-pod", make_pod())],
    ids=["the new object is not a pod", "the old object is not a pod"],
)
def test_its_pod_hint_raises_for_objects_that_are_not_pods(old_obj, new_obj):
    with pytest.raises(TypeError):
        plugin().is_schedulable_after_pod_toleration_change(make_pod(), old_obj, new_obj)


@pytest.mark.parametrize(
    ("old_obj", "new_obj", "want"),
    [
        (
            pod_with_tolerations(uid="uid1"),
            pod_with_tolerations(toleration("foo", effect="NoSchedule"), uid="uid1"),
            QueueingHint.QUEUE_SKIP,
        ),
        (
            pod_with_tolerations(uid="uid0"),
            pod_with_tolerations(toleration("foo", effect="NoSchedule"), uid="uid0"),
            QueueingHint.QUEUE,
        ),
    ],
    ids=["another pod's update is skipped", "a toleration added to the rejected pod queues"],
)
def test_it_queues_when_the_rejected_pod_gains_a_toleration(old_obj, new_obj, want):
    pod = pod_with_tolerations(uid="uid0")
    assert plugin().is_schedulable_after_pod_toleration_change(pod, old_obj, new_obj) == want


@pytest.mark.parametrize(
    ("queue_hints", "want"),
    [
        (
            True,
            [
                ClusterEvent(EventResource.NODE, ActionType.ADD | ActionType.UPDATE_NODE_TAINT),
                ClusterEvent(EventResource.POD, ActionType.UPDATE_POD_TOLERATION),
            ],
        ),
        (
            False,
            [
                ClusterEvent(
                    EventResource.NODE,
                    ActionType.ADD | ActionType.UPDATE_NODE_TAINT | ActionType.UPDATE_NODE_LABEL,
                )
            ],
        ),
    ],
    ids=["with queueing hints", "without queueing hints"],
)
def test_it_registers_node_and_toleration_events(queue_hints, want):
    events = plugin(queue_hints=queue_hints).events_to_register()
    assert [e.event for e in events] == want
    assert all(e.queueing_hint_fn is not None for e in events)
