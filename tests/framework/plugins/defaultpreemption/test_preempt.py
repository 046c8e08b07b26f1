"""The Evaluator's Preempt with DefaultPreemption (upstream TestPreempt): the nominated node,
the victims deleted through the cluster with their DisruptionTarget condition, the Preempted
events, and no second round of preemption while the victims terminate."""

from __future__ import annotations

import datetime as _dt
from typing import Any

import pytest

from framework.api.pod import PodCondition
from framework.interface.status import Code, Status
from framework.interface.types import NodeToStatus, NominatingInfo, NominatingMode
from framework.plugins.defaultpreemption.default_preemption import DefaultPreemption
from framework.plugins.feature import Features
from tests.framework.preemption.builders import (
    HIGH_PRIORITY,
    LARGE,
    LOW_PRIORITY,
    MEDIUM,
    MID_PRIORITY,
    SMALL,
    VERY_LARGE,
    pod,
    spread_constraint,
    topology_node,
)
from tests.framework.preemption.helpers import (
    FakeExtender,
    Nominator,
    default_preemption_args,
    error_predicate,
    false_predicate,
    fit,
    new_framework,
    node1_predicate,
    pod_topology_spread,
    run_pre_filter,
    true_predicate,
)

PREEMPTION_CONDITION = {
    "type": "DisruptionTarget",
    "status": "True",
    "reason": "PreemptionByScheduler",
    "message": "default-scheduler: preempting to accommodate a higher priority pod",
}


def preemptor(**kw: Any) -> Any:
    return pod("p", priority=HIGH_PRIORITY, req=VERY_LARGE, **kw)


BASIC_PODS = [
    pod("p1.1", node="node1", priority=LOW_PRIORITY, req=SMALL),
    pod("p1.2", node="node1", priority=LOW_PRIORITY, req=SMALL),
    pod("p2.1", node="node2", priority=HIGH_PRIORITY, req=LARGE),
    pod("p3.1", node="node3", priority=MID_PRIORITY, req=MEDIUM),
]
EXTENDER_PODS = [
    pod("p1.1", node="node1", priority=MID_PRIORITY, req=SMALL),
    pod("p1.2", node="node1", priority=LOW_PRIORITY, req=SMALL),
    pod("p2.1", node="node2", priority=MID_PRIORITY, req=LARGE),
]
SPREAD_PODS = [
    pod("p-a1", node="node-a", labels={"foo": ""}, priority=HIGH_PRIORITY),
    pod("p-a2", node="node-a", labels={"foo": ""}, priority=HIGH_PRIORITY),
    pod("p-b1", node="node-b", labels={"foo": ""}, priority=LOW_PRIORITY),
    pod("p-x1", node="node-x", labels={"foo": ""}, priority=HIGH_PRIORITY),
    pod("p-x2", node="node-x", labels={"foo": ""}, priority=HIGH_PRIORITY),
]
THREE = ["node1", "node2", "node3"]

CASES = [
    (
        "basic preemption evicts the low-priority pods of one node",
        preemptor(preemption_policy="PreemptLowerPriority"),
        BASIC_PODS,
        THREE,
        [],
        "node1",
        {"p1.1", "p1.2"},
    ),
    (
        "preemption resolves topology spread constraints",
        pod(
            "p",
            labels={"foo": ""},
            priority=HIGH_PRIORITY,
            topologySpreadConstraints=[spread_constraint("zone"), spread_constraint("hostname")],
        ),
        SPREAD_PODS,
        ["node-a/zone1", "node-b/zone1", "node-x/zone2"],
        [],
        "node-b",
        {"p-b1"},
    ),
    (
        "extenders allow only node1, where node3 would otherwise have been chosen",
        preemptor(),
        [*EXTENDER_PODS[:2], pod("p2.1", node="node3", priority=MID_PRIORITY, req=LARGE)],
        THREE,
        [
            FakeExtender("FakeExtender1", [true_predicate]),
            FakeExtender("FakeExtender2", [node1_predicate]),
        ],
        "node1",
        {"p1.1", "p1.2"},
    ),
    (
        "extenders allowing no preemption leave every pod in place",
        preemptor(),
        EXTENDER_PODS,
        THREE,
        [FakeExtender("FakeExtender1", [false_predicate])],
        None,
        set(),
    ),
    (
        "an ignorable extender's error is skipped and the other extender allows node1",
        preemptor(),
        EXTENDER_PODS,
        THREE,
        [
            FakeExtender("FakeExtender1", [error_predicate], ignorable=True),
            FakeExtender("FakeExtender2", [node1_predicate]),
        ],
        "node1",
        {"p1.1", "p1.2"},
    ),
    (
        "an extender not interested in the pod is not asked",
        preemptor(),
        EXTENDER_PODS,
        ["node1", "node2"],
        [
            FakeExtender("FakeExtender1", [node1_predicate], interested=False),
            FakeExtender("FakeExtender2", [true_predicate]),
        ],
        "node2",
        {"p2.1"},
    ),
    (
        "a pod with preemptionPolicy Never preempts nothing",
        preemptor(preemption_policy="Never"),
        BASIC_PODS,
        THREE,
        [],
        None,
        set(),
    ),
    (
        "a pod without a preemption policy preempts lower priorities",
        preemptor(),
        BASIC_PODS,
        THREE,
        [],
        "node1",
        {"p1.1", "p1.2"},
    ),
]


@pytest.mark.parametrize("async_preemption", [True, False], ids=["async", "sync"])
@pytest.mark.parametrize(
    ("preemptor_pod", "pods", "node_specs", "extenders", "want_node", "want_victims"),
    [case[1:] for case in CASES],
    ids=[case[0] for case in CASES],
)
def test_preempt_nominates_and_evicts(
    preemptor_pod: Any,
    pods: list[Any],
    node_specs: list[str],
    extenders: list[Any],
    want_node: str | None,
    want_victims: set[str],
    async_preemption: bool,
) -> None:
    pods = [p.deep_copy() for p in pods]
    nodes = [topology_node(spec, VERY_LARGE) for spec in node_specs]
    fwk = new_framework(pods, nodes, [fit(), pod_topology_spread()], extenders=extenders)
    cluster = fwk.cluster()
    cluster.add(preemptor_pod)
    plugin = DefaultPreemption(
        default_preemption_args(), fwk, Features(enable_async_preemption=async_preemption)
    )
    state = run_pre_filter(fwk, preemptor_pod)
    statuses = NodeToStatus({n.name: Status(Code.UNSCHEDULABLE) for n in nodes})

    result, status = plugin.evaluator.preempt(state, preemptor_pod, statuses)

    assert status.is_success() or status.is_rejected(), status
    want = None
    if want_node is not None:
        want = NominatingInfo(want_node, NominatingMode.OVERRIDE)
    assert (result.nominating_info if result else None) == want
    assert set(cluster.deleted()) == want_victims
    patched = [(name, change) for op, name, change in cluster.writes if op == "patch"]
    assert patched == [(name, PREEMPTION_CONDITION) for name in cluster.deleted()]
    events = [e for e in cluster.events if e["reason"] == "Preempted"]
    assert {e["regarding"]["name"] for e in events} == want_victims
    assert {e["note"] for e in events} <= {f"Preempted by pod p on node {want_node}"}


@pytest.mark.parametrize("async_preemption", [True, False], ids=["async", "sync"])
def test_no_more_pods_are_preempted_while_the_victims_terminate(async_preemption: bool) -> None:
    pods = [p.deep_copy() for p in BASIC_PODS]
    nodes = [topology_node(name, VERY_LARGE) for name in THREE]
    fwk = new_framework(pods, nodes, [fit()])
    cluster = fwk.cluster()
    cluster.add(preemptor())
    plugin = DefaultPreemption(
        default_preemption_args(), fwk, Features(enable_async_preemption=async_preemption)
    )
    statuses = NodeToStatus({n.name: Status(Code.UNSCHEDULABLE) for n in nodes})
    result, _ = plugin.evaluator.preempt(run_pre_filter(fwk, preemptor()), preemptor(), statuses)
    cluster.update_pod_status("default", "p", None, result.nominating_info.nominated_node_name)
    for victim in pods:
        if victim.name in cluster.deleted():
            victim.metadata.deletion_timestamp = _dt.datetime(2024, 1, 1, tzinfo=_dt.UTC)
            victim.status.conditions.append(PodCondition(**PREEMPTION_CONDITION))
    deleted_before = list(cluster.deleted())

    again, status = plugin.evaluator.preempt(
        run_pre_filter(fwk, preemptor()), preemptor(), statuses
    )

    assert again is None
    assert status == Status(
        Code.UNSCHEDULABLE, "not eligible due to a terminating pod on the nominated node."
    )
    assert cluster.deleted() == deleted_before


@pytest.mark.parametrize(
    ("async_preemption", "expected_order"),
    [
        # Victims without start times come out in reverse order: see test_victim_order.py.
        (True, ["clear p-low", "delete p1.2", "delete p1.1"]),
        (False, ["delete p1.2", "delete p1.1", "clear p-low"]),
    ],
    ids=[
        "async preemption clears lower nominations before evicting",
        "sync preemption clears lower nominations after evicting",
    ],
)
def test_lower_priority_nominations_on_the_node_are_cleared(
    async_preemption: bool, expected_order: list[str]
) -> None:
    pods = [p.deep_copy() for p in BASIC_PODS]
    nodes = [topology_node(name, VERY_LARGE) for name in THREE]
    low = pod("p-low", priority=LOW_PRIORITY, nominated_node="node1")
    high = pod("p-high", priority=HIGH_PRIORITY + 1, nominated_node="node1")
    fwk = new_framework(
        pods, nodes, [fit()], objects=[low, high], nominator=Nominator({"node1": [low, high]})
    )
    cluster = fwk.cluster()
    cluster.add(preemptor())
    plugin = DefaultPreemption(
        default_preemption_args(), fwk, Features(enable_async_preemption=async_preemption)
    )
    statuses = NodeToStatus({n.name: Status(Code.UNSCHEDULABLE) for n in nodes})

    plugin.evaluator.preempt(run_pre_filter(fwk, preemptor()), preemptor(), statuses)

    order = [
        f"{'clear' if op == 'patch' else 'delete'} {name}"
        for op, name, change in cluster.writes
        if op == "delete" or "nominatedNodeName" in change
    ]
    assert order == expected_order
    assert cluster.get("Pod", "p-low", "default").status.nominated_node_name == ""
    assert cluster.get("Pod", "p-high", "default").status.nominated_node_name == "node1"
