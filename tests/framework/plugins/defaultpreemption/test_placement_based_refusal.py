"""DefaultPreemption with TopologyAwareWorkloadScheduling: a member of a group with a topology
constraint does not preempt pod by pod (the TAS rows of upstream's TestPostFilter)."""

from __future__ import annotations

import pytest

from framework.api.pod_group import PodGroup
from framework.interface.status import Code, Status
from framework.interface.types import NodeToStatus, NominatingInfo, NominatingMode, PostFilterResult
from framework.plugins.defaultpreemption.default_preemption import DefaultPreemption
from framework.plugins.feature import Features
from tests.framework.builders import make_basic_pod_group
from tests.framework.preemption.builders import HIGH_PRIORITY, ONE_POD, node, pod
from tests.framework.preemption.helpers import (
    default_preemption_args,
    fit,
    new_framework,
    run_pre_filter,
)

TAS = Features(enable_topology_aware_workload_scheduling=True)
LIMITATION = "preemption: not eligible due to placement-based pod group scheduling limitation"


def pod_group(topology_key: str | None) -> PodGroup:
    return make_basic_pod_group("foo", topology_key=topology_key)


def post_filter(groups: list[PodGroup], features: Features):
    preemptor = pod(
        "p-with-podgroup", priority=HIGH_PRIORITY, schedulingGroup={"podGroupName": "foo"}
    )
    fwk = new_framework(
        [pod("p1", node="node1")], [node("node1", ONE_POD)], [fit()], objects=[preemptor, *groups]
    )
    plugin = DefaultPreemption(default_preemption_args(), fwk, features)
    statuses = NodeToStatus({"node1": Status(Code.UNSCHEDULABLE)})
    return plugin.post_filter(run_pre_filter(fwk, preemptor), preemptor, statuses)


def test_a_member_of_a_group_with_a_topology_constraint_does_not_preempt():
    result, status = post_filter([pod_group("rack")], TAS)
    assert result is None
    assert (status.code, status.message()) == (Code.UNSCHEDULABLE, LIMITATION)


@pytest.mark.parametrize("features", [TAS, Features()], ids=["with the gate", "without the gate"])
def test_a_member_of_a_group_without_constraints_preempts(features):
    result, status = post_filter([pod_group(None)], features)
    assert status == Status(Code.SUCCESS)
    assert result == PostFilterResult(NominatingInfo("node1", NominatingMode.OVERRIDE))


def test_without_the_gate_a_topology_constraint_does_not_stop_preemption():
    result, status = post_filter([pod_group("rack")], Features())
    assert status == Status(Code.SUCCESS)
    assert result == PostFilterResult(NominatingInfo("node1", NominatingMode.OVERRIDE))


def test_a_member_whose_group_is_gone_does_not_preempt():
    result, status = post_filter([], TAS)
    assert result is None
    assert (status.code, status.message()) == (
        Code.UNSCHEDULABLE,
        "preemption: pod group for pod not found",
    )
