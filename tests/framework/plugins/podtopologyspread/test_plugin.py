"""Construction, registered events and queueing hints of PodTopologySpread.

Hint cases are ported from upstream's Test_isSchedulableAfterNodeChange and
Test_isSchedulableAfterPodChange (podtopologyspread/plugin_test.go).
"""

from __future__ import annotations

from typing import Any

import pytest

from framework.config.types import InterPodAffinityArgs, PodTopologySpreadArgs
from framework.interface.events import ActionType, ClusterEvent, EventResource, QueueingHint
from framework.plugins.podtopologyspread.plugin import SYSTEM_DEFAULT_CONSTRAINTS, PodTopologySpread
from framework.runtime.framework import Framework
from framework.runtime.registry import Registry
from tests.framework.plugins.podtopologyspread.helpers import (
    BAR_SELECTOR,
    DO_NOT_SCHEDULE,
    FOO_SELECTOR,
    HONOR,
    IGNORE,
    features,
    new_plugin,
)
from tests.framework.plugins.wrappers import make_node, make_pod

QUEUE = QueueingHint.QUEUE
SKIP = QueueingHint.QUEUE_SKIP


def spread_pod(*keys: str, uid: str = "p", labels: dict[str, str] | None = None) -> Any:
    wrapper = make_pod().uid(uid).name("p").labels({"foo": ""} if labels is None else labels)
    for key in keys:
        wrapper.spread_constraint(1, key, DO_NOT_SCHEDULE, FOO_SELECTOR)
    return wrapper.obj()


def zone_and_node_bar_pod(zone_taints_policy: str | None = None) -> Any:
    return (
        make_pod()
        .uid("p")
        .name("p")
        .label("foo", "")
        .spread_constraint(1, "zone", DO_NOT_SCHEDULE, FOO_SELECTOR, None, None, zone_taints_policy)
        .spread_constraint(1, "node", DO_NOT_SCHEDULE, BAR_SELECTOR)
        .obj()
    )


def a_node(labels: dict[str, str], taints: list[dict[str, str]] | None = None) -> Any:
    wrapper = make_node().name("node-a").labels(labels)
    if taints is not None:
        wrapper.taints(taints)
    return wrapper.obj()


def taint(key: str) -> list[dict[str, str]]:
    return [{"key": key, "value": "bbb", "effect": "NoSchedule"}]


def other_pod(uid: str = "p2", labels: dict[str, str] | None = None, **kw: Any) -> Any:
    wrapper = make_pod().uid(uid).name(uid).labels(labels or {})
    if "node" in kw:
        wrapper.node(kw["node"])
    if "nominated" in kw:
        wrapper.nominated_node_name(kw["nominated"])
    if "namespace" in kw:
        wrapper.namespace(kw["namespace"])
    if "toleration" in kw:
        wrapper.toleration(kw["toleration"])
    return wrapper.obj()


ZONE_NODE = {"zone": "zone1", "node": "node1"}

NODE_HINTS = [
    pytest.param(
        spread_pod("zone"),
        a_node({"zone": "zone1"}),
        a_node({"zone": "zone2"}),
        QUEUE,
        id="a node moving to another zone queues",
    ),
    pytest.param(
        spread_pod("zone"),
        a_node({"foo": "bar1"}),
        a_node({"foo": "bar2"}),
        SKIP,
        id="an unrelated label change on a node outside the domains is skipped",
    ),
    pytest.param(
        spread_pod("zone", "node"),
        a_node({**ZONE_NODE, "foo": "bar"}),
        a_node(ZONE_NODE),
        SKIP,
        id="an unrelated label change on a domain node is skipped",
    ),
    pytest.param(
        spread_pod("zone"),
        None,
        a_node({"foo": "bar"}),
        SKIP,
        id="a new node without the topology key is skipped",
    ),
    pytest.param(
        spread_pod("zone"),
        None,
        a_node({"zone": "zone1"}),
        QUEUE,
        id="a new node with the topology key queues",
    ),
    pytest.param(
        spread_pod("zone"),
        a_node({"foo": "bar"}),
        None,
        SKIP,
        id="a deleted node without the topology key is skipped",
    ),
    pytest.param(
        spread_pod("zone"),
        a_node({"zone": "zone1"}),
        None,
        QUEUE,
        id="a deleted node with the topology key queues",
    ),
    pytest.param(
        spread_pod("zone", "node"),
        None,
        a_node({"zone": "zone1"}),
        SKIP,
        id="a new node with only one of the topology keys is skipped",
    ),
    pytest.param(
        spread_pod("zone", "node"),
        None,
        a_node(ZONE_NODE),
        QUEUE,
        id="a new node with all topology keys queues",
    ),
    pytest.param(
        spread_pod("zone", "node"),
        a_node({"zone": "zone1"}),
        a_node({"zone": "zone1"}),
        SKIP,
        id="an unchanged node with only one topology key is skipped",
    ),
    pytest.param(
        spread_pod("zone", "node"),
        a_node(ZONE_NODE),
        a_node({"zone": "zone1", "node": "node2"}),
        QUEUE,
        id="a domain node changing one topology value queues",
    ),
    pytest.param(
        spread_pod("zone", "node"),
        a_node(ZONE_NODE, taint("aaa")),
        a_node(ZONE_NODE, taint("ccc")),
        QUEUE,
        id="a domain node changing its taints queues",
    ),
    pytest.param(
        spread_pod("zone", "node"),
        a_node({"node": "node1"}, taint("aaa")),
        a_node({"node": "node1"}, taint("ccc")),
        SKIP,
        id="a node outside the domains changing its taints is skipped",
    ),
]


@pytest.mark.parametrize(("pod", "old", "new", "want"), NODE_HINTS)
def test_node_events_queue_only_when_domains_may_change(
    pod: Any, old: Any, new: Any, want: QueueingHint
) -> None:
    assert new_plugin().is_schedulable_after_node_change(pod, old, new) == want


POD_HINTS = [
    pytest.param(
        spread_pod("zone"),
        None,
        other_pod(node="fake-node", labels={"foo": ""}),
        False,
        QUEUE,
        id="a scheduled pod the selector matches is added",
    ),
    pytest.param(
        spread_pod("zone"),
        None,
        other_pod(labels={"foo": ""}),
        False,
        SKIP,
        id="an unscheduled pod is added",
    ),
    pytest.param(
        spread_pod("zone"),
        other_pod(labels={"bar": ""}),
        other_pod(labels={"foo": ""}),
        False,
        SKIP,
        id="an unscheduled pod is updated",
    ),
    pytest.param(
        spread_pod("zone"),
        other_pod(labels={"foo": ""}),
        None,
        False,
        SKIP,
        id="an unscheduled pod is deleted",
    ),
    pytest.param(
        spread_pod("zone"),
        None,
        other_pod(node="fake-node", namespace="fake-namespace", labels={"foo": ""}),
        False,
        SKIP,
        id="a pod of another namespace is added",
    ),
    pytest.param(
        spread_pod("zone"),
        None,
        other_pod(node="fake-node", labels={"bar": ""}),
        False,
        SKIP,
        id="a scheduled pod the selector does not match is added",
    ),
    pytest.param(
        spread_pod("zone"),
        other_pod(node="fake-node", labels={"foo": ""}),
        None,
        False,
        QUEUE,
        id="a scheduled pod the selector matches is deleted",
    ),
    pytest.param(
        spread_pod("zone"),
        other_pod(nominated="fake-node", labels={"bar": ""}),
        None,
        False,
        SKIP,
        id="a nominated pod the selector does not match is deleted",
    ),
    pytest.param(
        spread_pod("zone"),
        other_pod(nominated="fake-node", labels={"foo": ""}),
        None,
        False,
        QUEUE,
        id="a nominated pod the selector matches is deleted",
    ),
    pytest.param(
        spread_pod("zone"),
        other_pod(node="fake-node", labels={"bar": ""}),
        None,
        False,
        SKIP,
        id="a scheduled pod the selector does not match is deleted",
    ),
    pytest.param(
        spread_pod("zone"),
        other_pod(node="fake-node", labels={"foo": "", "bar": "bar1"}),
        other_pod(node="fake-node", labels={"foo": "", "bar": "bar2"}),
        False,
        SKIP,
        id="an unrelated label of a scheduled pod changes",
    ),
    pytest.param(
        spread_pod("zone"),
        other_pod(node="fake-node"),
        other_pod(node="fake-node", labels={"foo": ""}),
        False,
        QUEUE,
        id="a scheduled pod gains a matching label",
    ),
    pytest.param(
        spread_pod("zone"),
        other_pod(node="fake-node", labels={"foo": ""}),
        other_pod(node="fake-node"),
        False,
        QUEUE,
        id="a scheduled pod loses its matching label",
    ),
    pytest.param(
        spread_pod("zone"),
        other_pod(node="fake-node", labels={"foo": "foo1"}),
        other_pod(node="fake-node", labels={"foo": "foo2"}),
        False,
        SKIP,
        id="the value of a label an exists selector checks changes",
    ),
    pytest.param(
        zone_and_node_bar_pod(),
        other_pod(node="fake-node", labels={"foo": ""}),
        other_pod(node="fake-node", labels={"foo": "", "bar": "bar2"}),
        False,
        QUEUE,
        id="a scheduled pod starts matching the second constraint",
    ),
    pytest.param(
        zone_and_node_bar_pod(),
        other_pod(node="fake-node", labels={"foo": ""}),
        other_pod(node="fake-node", labels={"foo": "", "baz": ""}),
        False,
        SKIP,
        id="a scheduled pod gains a label no constraint checks",
    ),
    pytest.param(
        zone_and_node_bar_pod(),
        other_pod(node="fake-node", labels={"foo": "", "bar": ""}),
        other_pod(node="fake-node", labels={"foo": "", "bar": "bar2"}),
        False,
        SKIP,
        id="a scheduled pod keeps matching both constraints",
    ),
    pytest.param(
        zone_and_node_bar_pod(HONOR),
        other_pod("p", {"foo": ""}),
        other_pod("p", {"foo": ""}, toleration="node.kubernetes.io/unschedulable"),
        True,
        QUEUE,
        id="the pod gains a toleration while a constraint honors taints",
    ),
    pytest.param(
        zone_and_node_bar_pod(IGNORE),
        other_pod("p", {"foo": ""}),
        other_pod("p", {"foo": ""}, toleration="node.kubernetes.io/unschedulable"),
        False,
        SKIP,
        id="the pod gains a toleration while no constraint honors taints",
    ),
    pytest.param(
        zone_and_node_bar_pod(IGNORE),
        other_pod("p"),
        other_pod("p", {"foo": ""}),
        False,
        QUEUE,
        id="the pod gains a label its selector matches",
    ),
    pytest.param(
        zone_and_node_bar_pod(IGNORE),
        other_pod("p"),
        other_pod("p", {"unrelated": ""}),
        False,
        SKIP,
        id="the pod gains an unrelated label",
    ),
]


@pytest.mark.parametrize(("pod", "old", "new", "node_inclusion_policy", "want"), POD_HINTS)
def test_pod_events_queue_only_when_counts_may_change(
    pod: Any, old: Any, new: Any, node_inclusion_policy: bool, want: QueueingHint
) -> None:
    plugin = new_plugin(enable_node_inclusion_policy_in_pod_topology_spread=node_inclusion_policy)

    assert plugin.is_schedulable_after_pod_change(pod, old, new) == want


def test_a_hint_given_the_wrong_kind_of_object_raises_so_the_pod_is_queued() -> None:
    with pytest.raises(TypeError):
        new_plugin().is_schedulable_after_node_change(spread_pod("zone"), None, spread_pod("zone"))


@pytest.mark.parametrize(
    ("queueing_hints", "pod_actions"),
    [
        pytest.param(
            False,
            ActionType.ADD | ActionType.UPDATE_POD_LABEL | ActionType.DELETE,
            id="pods are watched for adds, label updates and deletes",
        ),
        pytest.param(
            True,
            ActionType.ADD
            | ActionType.UPDATE_POD_LABEL
            | ActionType.UPDATE_POD_TOLERATION
            | ActionType.DELETE,
            id="with queueing hints toleration updates are watched too",
        ),
    ],
)
def test_events_to_register(queueing_hints: bool, pod_actions: ActionType) -> None:
    plugin = new_plugin(enable_scheduling_queue_hint=queueing_hints)

    events = [registered.event for registered in plugin.events_to_register()]

    assert events == [
        ClusterEvent(EventResource.POD, pod_actions),
        ClusterEvent(
            EventResource.NODE,
            ActionType.ADD
            | ActionType.DELETE
            | ActionType.UPDATE_NODE_LABEL
            | ActionType.UPDATE_NODE_TAINT,
        ),
    ]
    assert all(
        registered.queueing_hint_fn is not None for registered in plugin.events_to_register()
    )


def test_construction_rejects_args_of_another_plugin() -> None:
    handle = Framework(Registry(), None)

    with pytest.raises(ValueError) as raised:
        PodTopologySpread(InterPodAffinityArgs(), handle, features())

    assert str(raised.value) == (
        "want args to be of type PodTopologySpreadArgs, got InterPodAffinityArgs"
    )


def test_system_defaulting_spreads_by_hostname_then_zone() -> None:
    plugin = PodTopologySpread(
        PodTopologySpreadArgs(defaulting_type="System"), Framework(Registry(), None), features()
    )

    assert plugin.system_defaulted
    assert [
        (c.topology_key, c.max_skew, c.when_unsatisfiable) for c in SYSTEM_DEFAULT_CONSTRAINTS
    ] == [
        ("kubernetes.io/hostname", 3, "ScheduleAnyway"),
        ("topology.kubernetes.io/zone", 5, "ScheduleAnyway"),
    ]
    assert plugin.default_constraints == list(SYSTEM_DEFAULT_CONSTRAINTS)
