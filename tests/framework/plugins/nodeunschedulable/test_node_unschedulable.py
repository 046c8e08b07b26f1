"""NodeUnschedulable: cordoned nodes, the unschedulable toleration, and its queueing hints."""

from __future__ import annotations

from typing import Any

import pytest

from framework.api.node import Node
from framework.interface.cycle_state import CycleState
from framework.interface.events import ActionType, ClusterEvent, EventResource, QueueingHint
from framework.interface.node_info import NodeInfo
from framework.interface.status import Code, Status
from framework.plugins.feature import Features
from framework.plugins.nodeunschedulable.node_unschedulable import (
    ERR_REASON_UNSCHEDULABLE,
    NodeUnschedulable,
)
from tests.framework.builders import make_pod

UNSCHEDULABLE_TOLERATION = {"key": "node.kubernetes.io/unschedulable", "effect": "NoSchedule"}


def node(unschedulable: bool, taints: list[dict[str, Any]] | None = None) -> Node:
    spec = {"unschedulable": unschedulable, "taints": taints or []}
    return Node.from_dict({"kind": "Node", "metadata": {"name": "n"}, "spec": spec})


def pod_tolerating(*keys: str, uid: str = "uid"):
    """Tolerations with operator Exists, as upstream's ``st.MakePod().Toleration(key)``."""
    return make_pod(uid=uid, tolerations=[{"key": k, "operator": "Exists"} for k in keys])


def plugin(queue_hints: bool = True) -> NodeUnschedulable:
    return NodeUnschedulable(None, None, Features(enable_scheduling_queue_hint=queue_hints))


@pytest.mark.parametrize(
    ("pod", "unschedulable", "want"),
    [
        (make_pod(), True, Status(Code.UNSCHEDULABLE_AND_UNRESOLVABLE, ERR_REASON_UNSCHEDULABLE)),
        (make_pod(), False, None),
        (make_pod(tolerations=[UNSCHEDULABLE_TOLERATION]), True, None),
        (pod_tolerating("node.kubernetes.io/unschedulable"), True, None),
        (make_pod(tolerations=[{"operator": "Exists"}]), True, None),
        (
            make_pod(tolerations=[{**UNSCHEDULABLE_TOLERATION, "effect": "NoExecute"}]),
            True,
            Status(Code.UNSCHEDULABLE_AND_UNRESOLVABLE, ERR_REASON_UNSCHEDULABLE),
        ),
    ],
    ids=[
        "a pod is not scheduled to an unschedulable node",
        "a pod is scheduled to a normal node",
        "a pod tolerating the unschedulable taint is scheduled to an unschedulable node",
        "an Exists toleration of the unschedulable key is enough",
        "a toleration of everything is enough",
        "a toleration for another effect is not enough",
    ],
)
def test_it_filters_unschedulable_nodes_unless_tolerated(pod, unschedulable, want):
    node_info = NodeInfo()
    node_info.set_node(node(unschedulable))
    assert plugin().filter(CycleState(), pod, node_info) == want


@pytest.mark.parametrize(
    ("old_obj", "new_obj"),
    [(None, "not-a-node"), ("not-a-node", node(True))],
    ids=["the new object is not a node", "the old object is not a node"],
)
def test_its_node_hint_raises_for_objects_that_are_not_nodes(old_obj, new_obj):
    with pytest.raises(TypeError):
        plugin().is_schedulable_after_node_change(make_pod(), old_obj, new_obj)


NOT_READY = [{"key": "node.kubernetes.io/not-ready", "effect": "NoExecute"}]


@pytest.mark.parametrize(
    ("old_obj", "new_obj", "want"),
    [
        (None, node(True), QueueingHint.QUEUE_SKIP),
        (None, node(False), QueueingHint.QUEUE),
        (node(True), node(True, NOT_READY), QueueingHint.QUEUE_SKIP),
        (node(False), node(False, NOT_READY), QueueingHint.QUEUE_SKIP),
        (node(True), node(False), QueueingHint.QUEUE),
    ],
    ids=[
        "an unschedulable node added is skipped",
        "a schedulable node added queues",
        "an unrelated change of an unschedulable node is skipped",
        "an unrelated change of a schedulable node is skipped",
        "a node becoming schedulable queues",
    ],
)
def test_it_queues_when_a_node_becomes_schedulable(old_obj, new_obj, want):
    assert plugin().is_schedulable_after_node_change(make_pod(), old_obj, new_obj) == want


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
            pod_tolerating(uid="different-uid"),
            pod_tolerating("node.kubernetes.io/unschedulable", uid="different-uid"),
            QueueingHint.QUEUE_SKIP,
        ),
        (
            pod_tolerating(),
            pod_tolerating("node.kubernetes.io/unschedulable"),
            QueueingHint.QUEUE,
        ),
        (pod_tolerating(), pod_tolerating("unrelated-key"), QueueingHint.QUEUE_SKIP),
    ],
    ids=[
        "another pod's update is skipped",
        "the rejected pod gaining the unschedulable toleration queues",
        "the rejected pod gaining an unrelated toleration is skipped",
    ],
)
def test_it_queues_when_the_pod_gains_the_unschedulable_toleration(old_obj, new_obj, want):
    hint = plugin().is_schedulable_after_pod_toleration_change(pod_tolerating(), old_obj, new_obj)
    assert hint == want


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
    events = plugin(queue_hints).events_to_register()
    assert [e.event for e in events] == want
    assert all(e.queueing_hint_fn is not None for e in events)
