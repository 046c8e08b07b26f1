"""NodePorts: host port conflicts by protocol and host IP, including 0.0.0.0."""

from __future__ import annotations

from typing import Any

import pytest

from framework.api.pod import Pod
from framework.interface.cycle_state import CycleState
from framework.interface.events import ActionType, ClusterEvent, EventResource, QueueingHint
from framework.interface.node_info import NodeInfo
from framework.interface.status import Code, Status
from framework.plugins import names
from framework.plugins.feature import Features
from framework.plugins.nodeports.node_ports import ERR_REASON, NodePorts, fits
from tests.framework.builders import StaticLister, make_node, make_pod
from tests.framework.plugins.in_tree import InTree
from tests.framework.runtime.helpers import framework_of

CONFLICT = Status(Code.UNSCHEDULABLE, ERR_REASON)


def port(spec: str) -> dict[str, Any]:
    """``"TCP/127.0.0.1/8080"`` -> a container port with that protocol, host IP and host port."""
    protocol, host_ip, host_port = spec.split("/")
    return {"protocol": protocol, "hostIP": host_ip, "hostPort": int(host_port)}


def pod_with_ports(*specs: str, node_name: str = "m1", uid: str | None = None) -> Pod:
    """One container using the given ports (upstream ``newPod``)."""
    container = {"name": "container", "image": "pause", "ports": [port(s) for s in specs]}
    return make_pod(node_name=node_name, uid=uid, containers=[container])


def pod_with_init_container_port(sidecar: bool) -> Pod:
    init = {
        "name": "init-container",
        "image": "pause",
        "ports": [{"containerPort": 8001, "hostPort": 8001, "protocol": "TCP"}],
    }
    if sidecar:
        init["restartPolicy"] = "Always"
    return make_pod(initContainers=[init])


def pod_with_host_port(host_port: int, node_name: str = "") -> Pod:
    container = {"name": "container", "image": "pause", "ports": [{"hostPort": host_port}]}
    return make_pod(node_name=node_name, containers=[container])


def plugin(queue_hints: bool = True) -> NodePorts:
    return NodePorts(None, None, Features(enable_scheduling_queue_hint=queue_hints))


SKIP = Status(Code.SKIP)


@pytest.mark.parametrize(
    ("pod", "node_info", "want_pre_filter", "want_filter"),
    [
        (make_pod(), NodeInfo(), SKIP, None),
        (
            pod_with_ports("UDP/127.0.0.1/8080"),
            NodeInfo(pod_with_ports("UDP/127.0.0.1/9090")),
            None,
            None,
        ),
        (
            pod_with_ports("UDP/127.0.0.1/8080"),
            NodeInfo(pod_with_ports("UDP/127.0.0.1/8080")),
            None,
            CONFLICT,
        ),
        (
            pod_with_ports("TCP/127.0.0.1/8080"),
            NodeInfo(pod_with_ports("TCP/127.0.0.1/8080")),
            None,
            CONFLICT,
        ),
        (
            pod_with_ports("TCP/127.0.0.1/8080"),
            NodeInfo(pod_with_ports("TCP/127.0.0.2/8080")),
            None,
            None,
        ),
        (
            pod_with_ports("UDP/127.0.0.1/8080"),
            NodeInfo(pod_with_ports("TCP/127.0.0.1/8080")),
            None,
            None,
        ),
        (
            pod_with_ports("UDP/127.0.0.1/8000", "UDP/127.0.0.1/8080"),
            NodeInfo(pod_with_ports("UDP/127.0.0.1/8080")),
            None,
            CONFLICT,
        ),
        (
            pod_with_ports("TCP/127.0.0.1/8001", "UDP/127.0.0.1/8080"),
            NodeInfo(pod_with_ports("TCP/127.0.0.1/8001", "UDP/127.0.0.1/8081")),
            None,
            CONFLICT,
        ),
        (
            pod_with_ports("TCP/0.0.0.0/8001"),
            NodeInfo(pod_with_ports("TCP/127.0.0.1/8001")),
            None,
            CONFLICT,
        ),
        (
            pod_with_ports("TCP/10.0.10.10/8001", "TCP/0.0.0.0/8001"),
            NodeInfo(pod_with_ports("TCP/127.0.0.1/8001")),
            None,
            CONFLICT,
        ),
        (
            pod_with_ports("TCP/127.0.0.1/8001"),
            NodeInfo(pod_with_ports("TCP/0.0.0.0/8001")),
            None,
            CONFLICT,
        ),
        (
            pod_with_ports("UDP/127.0.0.1/8001"),
            NodeInfo(pod_with_ports("TCP/0.0.0.0/8001")),
            None,
            None,
        ),
        (
            pod_with_ports("UDP/127.0.0.1/8001"),
            NodeInfo(pod_with_ports("TCP/0.0.0.0/8001", "UDP/0.0.0.0/8001")),
            None,
            CONFLICT,
        ),
        (
            pod_with_init_container_port(sidecar=False),
            NodeInfo(pod_with_ports("TCP/0.0.0.0/8001")),
            SKIP,
            None,
        ),
        (
            pod_with_init_container_port(sidecar=True),
            NodeInfo(pod_with_ports("TCP/0.0.0.0/8001")),
            None,
            CONFLICT,
        ),
        (
            pod_with_ports("TCP//8001"),
            NodeInfo(pod_with_ports("TCP/192.168.0.1/8001")),
            None,
            CONFLICT,
        ),
    ],
    ids=[
        "a pod without host ports skips the plugin",
        "another port is free",
        "the same UDP port conflicts",
        "the same TCP port conflicts",
        "the same port on a different host IP is free",
        "the same port with a different protocol is free",
        "a conflict on the second UDP port",
        "a conflict on the first TCP port",
        "a wanted port on 0.0.0.0 conflicts with the port on any IP",
        "one wanted port on 0.0.0.0 is enough to conflict",
        "a used port on 0.0.0.0 conflicts with the port on any IP",
        "a used port on 0.0.0.0 with another protocol is free",
        "a used UDP port on 0.0.0.0 conflicts",
        "a non-sidecar init container's host port is not counted",
        "a sidecar init container's host port conflicts",
        "an empty host IP means 0.0.0.0",
    ],
)
def test_it_rejects_nodes_where_a_host_port_is_taken(pod, node_info, want_pre_filter, want_filter):
    state = CycleState()
    result, status = plugin().pre_filter(state, pod, [])
    assert result is None
    assert status == want_pre_filter
    if status is not None and status.is_skip():
        return
    assert plugin().filter(state, pod, node_info) == want_filter


def test_filter_without_pre_filter_state_is_an_error():
    node_info = NodeInfo()
    node_info.set_node(make_node("n"))
    status = plugin().filter(CycleState(), make_pod(), node_info)
    assert status == Status.error('reading "PreFilterNodePorts" from cycleState: not found')


@pytest.mark.parametrize(
    ("pod", "existing", "want"),
    [
        (pod_with_ports("TCP/127.0.0.1/80"), NodeInfo(pod_with_ports("TCP/127.0.0.1/9090")), True),
        (
            pod_with_ports("TCP/127.0.0.1/80", "TCP/127.0.1.1/80", "TCP/127.0.1.1/90"),
            NodeInfo(
                pod_with_ports("TCP/127.0.0.1/9090", "TCP/127.0.0.1/9191", "TCP/127.0.1.1/8080")
            ),
            True,
        ),
        (pod_with_ports("TCP/127.0.0.1/80"), NodeInfo(pod_with_ports("UDP/127.0.0.1/80")), True),
        (pod_with_ports("TCP/127.0.0.1/80"), NodeInfo(pod_with_ports("TCP/127.0.0.1/80")), False),
        (
            pod_with_ports(
                "TCP/127.0.0.1/80", "TCP/127.0.1.1/80", "TCP/127.0.1.1/90", "TCP/127.0.1.1/100"
            ),
            NodeInfo(
                pod_with_ports("TCP/127.0.0.1/9090", "TCP/127.0.1.1/90", "TCP/127.0.1.1/8080")
            ),
            False,
        ),
    ],
    ids=[
        "non-conflicting ports",
        "multiple non-conflicting ports",
        "same ports on different protocols",
        "conflicting ports",
        "multiple ports, some conflicting",
    ],
)
def test_fits_compares_the_pod_ports_with_the_ports_in_use(pod, existing, want):
    assert fits(pod, existing) is want


def test_its_pod_deleted_hint_raises_for_an_object_that_is_not_a_pod():
    with pytest.raises(TypeError):
        plugin().is_schedulable_after_pod_deleted(pod_with_host_port(8080), "not-a-pod", None)


@pytest.mark.parametrize(
    ("deleted", "want"),
    [
        (make_pod(), QueueingHint.QUEUE_SKIP),
        (make_pod(node_name="fake-node"), QueueingHint.QUEUE_SKIP),
        (pod_with_host_port(8081, node_name="fake-node"), QueueingHint.QUEUE_SKIP),
        (pod_with_host_port(8080, node_name="fake-node"), QueueingHint.QUEUE),
    ],
    ids=[
        "an unscheduled pod's deletion is skipped",
        "a deleted pod without host ports is skipped",
        "a deleted pod with an unrelated host port is skipped",
        "a deleted pod releasing the wanted host port queues",
    ],
)
def test_it_queues_when_a_deleted_pod_releases_a_wanted_port(deleted, want):
    assert (
        plugin().is_schedulable_after_pod_deleted(pod_with_host_port(8080), deleted, None) == want
    )


def test_a_deleted_pod_only_nominated_to_a_node_counts_as_scheduled():
    deleted = Pod.from_dict(
        {
            "kind": "Pod",
            "metadata": {"name": "nominated"},
            "spec": {"containers": [{"name": "c", "ports": [{"hostPort": 8080}]}]},
            "status": {"nominatedNodeName": "n1"},
        }
    )
    hint = plugin().is_schedulable_after_pod_deleted(pod_with_host_port(8080), deleted, None)
    assert hint == QueueingHint.QUEUE


@pytest.mark.parametrize(
    ("queue_hints", "node_actions"),
    [
        (True, ActionType.ADD),
        (False, ActionType.ADD | ActionType.UPDATE_NODE_TAINT | ActionType.UPDATE_NODE_LABEL),
    ],
    ids=["with queueing hints only node additions", "without hints also label and taint updates"],
)
def test_it_registers_pod_deletions_and_node_events(queue_hints, node_actions):
    events = plugin(queue_hints).events_to_register()
    assert [e.event for e in events] == [
        ClusterEvent(EventResource.POD, ActionType.DELETE),
        ClusterEvent(EventResource.NODE, node_actions),
    ]
    assert events[0].queueing_hint_fn is not None
    assert events[1].queueing_hint_fn is None


def test_the_framework_skips_its_filter_for_pods_without_host_ports():
    busy = NodeInfo(pod_with_ports("TCP/0.0.0.0/80"))
    busy.set_node(make_node("busy"))
    fwk = framework_of(
        [InTree(NodePorts)],
        points={"pre_filter": [names.NODE_PORTS], "filter": [names.NODE_PORTS]},
        snapshot_shared_lister=StaticLister([busy]),
    )
    state = CycleState()
    _, status, _ = fwk.run_pre_filter_plugins(state, make_pod())
    assert status is None
    assert fwk.run_filter_plugins(state, make_pod(), busy) is None

    state = CycleState()
    wants_80 = pod_with_ports("TCP/0.0.0.0/80", node_name="")
    fwk.run_pre_filter_plugins(state, wants_80)
    status = fwk.run_filter_plugins(state, wants_80, busy)
    assert (status.code, status.reasons, status.plugin) == (
        Code.UNSCHEDULABLE,
        [ERR_REASON],
        names.NODE_PORTS,
    )
