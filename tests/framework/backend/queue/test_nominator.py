"""Nominated pods: where preemption made room for them, as the queue reports it to filters."""

from __future__ import annotations

import pytest

from framework.backend.queue.scheduling_queue import PriorityQueue
from framework.cluster.memory import InMemoryCluster
from framework.interface.node_info import PodInfo
from framework.interface.types import NominatingInfo, NominatingMode
from framework.util.clock import FakeClock

from .helpers import (
    START,
    framework_with,
    high_priority_nominated_pod,
    high_priority_pod,
    make_pod,
    medium_priority_pod,
    new_queue,
    queued,
    unschedulable_pod,
)


def override(node_name):
    return NominatingInfo(node_name, NominatingMode.OVERRIDE)


def nominations(queue):
    """node -> pod names, and pod uid -> node, as the nominator holds them."""
    by_node = {
        node: [ref.name for ref in refs] for node, refs in queue.nominator.nominated_pods.items()
    }
    return by_node, dict(queue.nominator.nominated_pod_to_node)


def test_nominated_pods_for_node_come_from_the_queue_in_nomination_order():
    queue, _ = new_queue()
    for pod in (medium_priority_pod(), unschedulable_pod(), high_priority_pod()):
        queue.add(pod)
    assert queue.pop().pod.name == "hpp"

    pod_infos = queue.nominated_pods_for_node("node1")

    assert [p.pod.name for p in pod_infos] == ["mpp", "up"]
    assert pod_infos[0] is queue.active_q.get(medium_priority_pod()).pod_info
    assert queue.nominated_pods_for_node("node2") == []


def test_nominated_pods_for_many_nodes_are_each_nodes_own():
    queue, _ = new_queue()
    for pod in (medium_priority_pod(), unschedulable_pod(), high_priority_pod()):
        queue.add(pod)
    queue.add_nominated_pod(PodInfo(high_priority_pod()), override("node3"))
    names = ["node3", "node2", "node1"]

    many = queue.nominated_pods_for_nodes(names)

    assert [[p.pod.name for p in infos] for infos in many] == [["hpp"], [], ["mpp", "up"]]
    for infos, name in zip(many, names, strict=True):
        one_by_one = queue.nominated_pods_for_node(name)
        assert len(infos) == len(one_by_one)
        assert all(a is b for a, b in zip(infos, one_by_one, strict=True)), "the queued PodInfos"


def test_a_nominated_pod_in_flight_is_reported_by_identity_only():
    queue, _ = new_queue()
    queue.add(medium_priority_pod())
    queue.pop()
    (pod_info,) = queue.nominated_pods_for_node("node1")
    assert (pod_info.pod.name, pod_info.pod.namespace, pod_info.pod.uid) == ("mpp", "ns2", "mppns2")
    assert pod_info.pod.spec.priority == 0, "a stub pod, as upstream builds from the reference"


@pytest.mark.parametrize(
    ("pod", "deleted", "want"),
    [
        (medium_priority_pod(), False, 1),
        (high_priority_nominated_pod(), True, 0),
        (high_priority_pod(), False, 0),
    ],
    ids=[
        "a pod that exists is nominated",
        "a pod deleted from the cluster is not nominated",
        "a pod without a nominated node in its status is not nominated",
    ],
)
def test_only_pods_still_in_the_cluster_are_nominated(pod, deleted, want):
    cluster = InMemoryCluster([pod])
    if deleted:
        cluster.delete(pod)
    queue, _ = new_queue(cluster=cluster)
    queue.add_nominated_pod(PodInfo(pod), None)
    assert len(queue.nominated_pods_for_node(pod.status.nominated_node_name)) == want


def test_nominations_follow_overrides_and_skip_gone_or_bound_pods():
    scheduled = make_pod("sp", "ns1", uid="spns1", node_name="foo")
    cluster = InMemoryCluster(
        [medium_priority_pod(), unschedulable_pod(), high_priority_pod(), scheduled]
    )
    queue, _ = new_queue(cluster=cluster)
    queue.add(medium_priority_pod())
    queue.add_nominated_pod(PodInfo(unschedulable_pod()), override("node5"))
    queue.add_nominated_pod(PodInfo(high_priority_pod()), override("node2"))
    expected = (
        {"node1": ["mpp"], "node2": ["hpp"], "node5": ["up"]},
        {"mppns2": "node1", "hppns1": "node2", "upns1": "node5"},
    )
    assert nominations(queue) == expected
    queue.pop()
    assert nominations(queue) == expected, "popping keeps nominations"

    queue.add_nominated_pod(PodInfo(high_priority_pod()), override("node4"))
    expected = (
        {"node1": ["mpp"], "node4": ["hpp"], "node5": ["up"]},
        {"mppns2": "node1", "hppns1": "node4", "upns1": "node5"},
    )
    assert nominations(queue) == expected

    queue.add_nominated_pod(PodInfo(make_pod("ne", "ns1", uid="nens1")), override("node1"))
    assert nominations(queue) == expected, "a pod the cluster does not have is not nominated"
    unbound_copy = make_pod("sp", "ns1", uid="spns1")
    queue.add_nominated_pod(PodInfo(unbound_copy), override("node1"))
    assert nominations(queue) == expected, "a pod the cluster has bound is not nominated"

    queue.delete_nominated_pod_if_exists(high_priority_pod())
    assert nominations(queue) == (
        {"node1": ["mpp"], "node5": ["up"]},
        {"mppns2": "node1", "upns1": "node5"},
    )


def test_an_update_without_a_nominated_node_keeps_the_nomination_made_in_memory():
    queue, _ = new_queue()
    queue.add(high_priority_pod())
    queue.add_nominated_pod(PodInfo(high_priority_pod()), override("node3"))

    relabelled = make_pod("hpp", "ns1", uid="hppns1", priority=1000, labels={"x": "y"})
    queue.update(high_priority_pod(), relabelled)

    assert nominations(queue) == ({"node3": ["hpp"]}, {"hppns1": "node3"})
    assert queue.nominated_pods_for_node("node3")[0].pod is relabelled


def test_an_update_clearing_the_nominated_node_drops_the_nomination():
    queue, _ = new_queue()
    queue.add(high_priority_nominated_pod())
    assert nominations(queue) == ({"node1": ["hpp"]}, {"hppns1": "node1"})
    queue.update(high_priority_nominated_pod(), high_priority_pod())
    assert nominations(queue) == ({}, {})


def test_the_frameworks_read_nominations_through_the_queue():
    framework = framework_with([])
    queue = PriorityQueue.from_frameworks([framework], clock=FakeClock(START))
    queue.add(medium_priority_pod())
    assert framework.pod_nominator is queue
    assert [p.pod.name for p in framework.nominated_pods_for_node("node1")] == ["mpp"]


def test_a_plugin_can_activate_pods_through_its_framework():
    framework = framework_with([])
    queue = PriorityQueue.from_frameworks([framework], clock=FakeClock(START))
    pod = make_pod("waiting")
    queue.unschedulable_pods.add_or_update(queued(pod, "SomePlugin"))
    framework.activate({"waiting": pod})
    assert queue.active_q.has(pod)


def test_the_nodes_with_nominated_pods_follow_every_nomination_and_removal():
    queue, _ = new_queue()
    queue.add(high_priority_pod())
    queue.add(medium_priority_pod())
    assert queue.nominated_node_names() == {"node1"}  # mpp's status names node1

    queue.add_nominated_pod(PodInfo(high_priority_pod()), override("node3"))
    assert queue.nominated_node_names() == {"node1", "node3"}
    queue.add_nominated_pod(PodInfo(medium_priority_pod()), override("node3"))
    assert queue.nominated_node_names() == {"node3"}
    queue.add_nominated_pod(PodInfo(high_priority_pod()), override("node4"))
    assert queue.nominated_node_names() == {"node3", "node4"}

    queue.delete_nominated_pod_if_exists(medium_priority_pod())
    assert queue.nominated_node_names() == {"node4"}
