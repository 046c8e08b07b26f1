"""Workload-aware preemption end to end on the engine: upstream's integration table
(test/integration/scheduler/preemption/podgrouppreemption_test.go, TestPodGroupPreemption)
run through a Simulation with GenericWorkload, GangScheduling and WorkloadAwarePreemption.

As upstream's: nodes, a PDB, PodGroups and the initial pods first, scheduled; then the
preemptors. Upstream's apiserver runs no disruption controller, so a PDB allows no disruption.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import pytest

from framework.api.node import Node
from framework.api.pod import Pod
from framework.api.pod_group import PodGroup
from framework.api.policy import PodDisruptionBudget
from framework.features import FeatureGates
from framework.metrics import (
    POD_GROUP_SCHEDULED,
    POD_GROUP_WAITING_ON_PREEMPTION,
    PODGROUP_SCHEDULE_ATTEMPTS_TOTAL,
)
from framework.simulator import Simulation

GATES = FeatureGates(
    {"GenericWorkload": True, "GangScheduling": True, "WorkloadAwarePreemption": True}
)
CONFIG = "apiVersion: kubescheduler.config.k8s.io/v1\nkind: KubeSchedulerConfiguration\n"


def node(name: str, cpu: str) -> Node:
    capacity = {"cpu": cpu, "memory": "4Gi", "pods": "32"}
    return Node.from_dict(
        {
            "apiVersion": "v1",
            "kind": "Node",
            "metadata": {"name": name},
            "status": {"capacity": capacity, "allocatable": capacity},
        }
    )


def group(
    name: str, priority: int, min_count: int | None = None, disruption_mode: str | None = None
) -> PodGroup:
    """A gang of ``min_count``, or a basic group without it."""
    policy = {"gang": {"minCount": min_count}} if min_count else {"basic": {}}
    spec: dict[str, Any] = {"schedulingPolicy": policy, "priority": priority}
    if disruption_mode:
        spec["disruptionMode"] = disruption_mode
    return PodGroup.from_dict(
        {
            "apiVersion": "scheduling.k8s.io/v1alpha2",
            "kind": "PodGroup",
            "metadata": {"name": name, "namespace": "default", "uid": f"uid-{name}"},
            "spec": spec,
        }
    )


def pod(
    name: str,
    cpu: str,
    priority: int,
    group_name: str | None = None,
    node_name: str = "",
    labels: dict[str, str] | None = None,
) -> Pod:
    spec: dict[str, Any] = {
        "containers": [{"name": "c", "image": "image", "resources": {"requests": {"cpu": cpu}}}],
        "priority": priority,
        "terminationGracePeriodSeconds": 0,
    }
    if group_name:
        spec["schedulingGroup"] = {"podGroupName": group_name}
    if node_name:
        spec["nodeName"] = node_name
    return Pod.from_dict(
        {
            "apiVersion": "v1",
            "kind": "Pod",
            "metadata": {"name": name, "namespace": "default", "labels": labels or {}},
            "spec": spec,
        }
    )


def foo_pdb() -> PodDisruptionBudget:
    return PodDisruptionBudget.from_dict(
        {
            "apiVersion": "policy/v1",
            "kind": "PodDisruptionBudget",
            "metadata": {"name": "foo-pdb", "namespace": "default"},
            "spec": {"minAvailable": 2, "selector": {"matchLabels": {"app": "foo"}}},
        }
    )


def high(n: int, cpu: str = "1", group_name: str | None = "pg1", priority: int = 100) -> list[Pod]:
    return [pod(f"high-{i}", cpu, priority, group_name) for i in range(1, n + 1)]


def low(n: int, group_name: str | None = None, priority: int = 10, **kwargs) -> list[Pod]:
    return [pod(f"low-{i}", "1", priority, group_name, **kwargs) for i in range(1, n + 1)]


@dataclass
class Case:
    name: str
    nodes: list[Node]
    groups: list[PodGroup]
    initial: list[Pod]
    preemptors: list[Pod]
    scheduled: list[str]
    preempted: list[str]
    unschedulable: list[str] = field(default_factory=list)
    preempted_by_wap: int = 0
    pdb: PodDisruptionBudget | None = None


def full_preemption(name: str, preemptor_group: PodGroup) -> Case:
    """Three low pods fill the node; the group's three pods take their places."""
    return Case(
        name,
        [node("node1", "3")],
        [preemptor_group],
        low(3),
        high(3),
        ["high-1", "high-2", "high-3"],
        ["low-1", "low-2", "low-3"],
        preempted_by_wap=3,
    )


def whole_group(name: str, victim_group: PodGroup) -> Case:
    """A group disrupted as a whole goes whole, though one of its pods would make room."""
    return Case(
        name,
        [node("node1", "3")],
        [group("pg1", 100, min_count=1), victim_group],
        low(3, group_name="pg2"),
        high(1),
        ["high-1"],
        ["low-1", "low-2", "low-3"],
        preempted_by_wap=3,
    )


CASES = [
    full_preemption("Full PodGroup Preemption", group("pg1", 100, min_count=3)),
    full_preemption("Full PodGroup Preemption for basic policy", group("pg1", 100)),
    Case(
        "Partial Preemption",
        [node("node1", "2"), node("node2", "2")],
        [group("pg1", 100, min_count=3)],
        [pod("low-1", "2", 10, node_name="node1"), pod("low-2", "1", 10, node_name="node2")],
        high(3),
        ["high-1", "high-2", "high-3", "low-2"],
        ["low-1"],
        preempted_by_wap=1,
    ),
    Case(
        "Partial Preemption with basic policy",
        [node("node1", "2"), node("node2", "2")],
        [group("pg1", 100)],
        [pod("low-1", "1", 10, node_name="node1"), pod("very-low-1", "2", 5, node_name="node2")],
        high(3),
        ["high-1", "high-2", "high-3", "low-1"],
        ["very-low-1"],
        preempted_by_wap=1,
    ),
    Case(
        "PDB Violation Handling (Reprieve)",
        [node("node1", "3")],
        [group("pg1", 100, min_count=2)],
        [
            pod("low-1", "1", 10, labels={"app": "foo"}),
            pod("low-2", "1", 10, labels={"app": "foo"}),
            pod("low-3", "1", 10),
        ],
        high(2, cpu="0.5"),
        ["high-1", "high-2"],
        ["low-3"],
        preempted_by_wap=1,
        pdb=foo_pdb(),
    ),
    Case(
        "Multi-node Preemption",
        [node("node1", "2"), node("node2", "2")],
        [group("pg1", 100, min_count=4)],
        [
            pod("low-1", "1", 10, node_name="node1"),
            pod("low-2", "1", 10, node_name="node1"),
            pod("low-3", "1", 10, node_name="node2"),
            pod("low-4", "1", 10, node_name="node2"),
        ],
        high(4),
        ["high-1", "high-2", "high-3", "high-4"],
        ["low-1", "low-2", "low-3", "low-4"],
        preempted_by_wap=4,
    ),
    Case(
        "Insufficient Resources (No Preemption)",
        [node("node1", "3")],
        [group("pg1", 100, min_count=3)],
        [pod("mid-1", "1", 500), *low(2)],
        high(3),
        ["mid-1", "low-1", "low-2"],
        [],
        unschedulable=["high-1", "high-2", "high-3"],
    ),
    Case(
        "Priority-based Victim Selection",
        [node("node1", "3")],
        [group("pg1", 100, min_count=2)],
        [pod("mid-1", "1", 50), *low(2)],
        high(2),
        ["high-1", "high-2", "mid-1"],
        ["low-1", "low-2"],
        preempted_by_wap=2,
    ),
    whole_group(
        "Preempt the whole PodGroup even if preempting a single Pod would suffice",
        group("pg2", 10, min_count=3, disruption_mode="PodGroup"),
    ),
    whole_group(
        "Preempt the whole basic PodGroup with a PodGroup disruption mode",
        group("pg2", 10, disruption_mode="PodGroup"),
    ),
    Case(
        "Priority divergence in PodGroups - preemptor PodGroup has higher priority than the "
        "victim candidate PodGroup",
        [node("node1", "3")],
        [group("pg1", 100, min_count=1), group("pg2", 10, min_count=3, disruption_mode="PodGroup")],
        high(3, group_name="pg2"),
        low(1, group_name="pg1"),
        ["low-1"],
        ["high-1", "high-2", "high-3"],
        preempted_by_wap=3,
    ),
    Case(
        "Priority divergence in PodGroups - preemptor PodGroup has too low priority",
        [node("node1", "3")],
        [group("pg1", 10, min_count=1), group("pg2", 100, min_count=3, disruption_mode="PodGroup")],
        low(3, group_name="pg2"),
        high(1),
        ["low-1", "low-2", "low-3"],
        [],
        unschedulable=["high-1"],
    ),
    Case(
        "Preemptor Pod without PodGroupName does not respect the PodGroup disruption mode",
        [node("node1", "3")],
        [group("pg1", 10, min_count=1)],
        [
            pod("low-1", "1", 30, "pg1"),
            pod("low-2", "1", 20, "pg1"),
            pod("low-3", "1", 10, "pg1"),
        ],
        high(1, group_name=None),
        ["high-1", "low-1", "low-2"],
        ["low-3"],
    ),
]


@pytest.mark.parametrize("case", CASES, ids=lambda c: c.name)
def test_pod_group_preemption(case: Case):
    simulation = Simulation(CONFIG, "", features=GATES)
    cluster = simulation.cluster
    simulation.create([*case.nodes, *([case.pdb] if case.pdb else []), *case.groups])
    simulation.create(case.initial)
    assert all(p.spec.node_name for p in cluster.list("Pod")), "initial pods not all bound"

    simulation.create(case.preemptors)

    pods = {p.name: p for p in cluster.list("Pod")}
    created = [p.name for p in [*case.initial, *case.preemptors]]
    assert sorted(n for n in created if n not in pods) == sorted(case.preempted)
    assert [n for n in case.scheduled if not pods[n].spec.node_name] == []
    for name in case.unschedulable:
        condition = pods[name].status.condition("PodScheduled")
        assert (pods[name].spec.node_name, condition.reason) == ("", "Unschedulable")
    by_wap = [
        e
        for e in cluster.events
        if e["reason"] == "Preempted" and e["note"].startswith("Preempted by podgroup")
    ]
    assert len(by_wap) == case.preempted_by_wap


def test_a_group_that_preempted_waits_on_preemption_then_is_scheduled():
    simulation = Simulation(CONFIG, "", features=GATES)
    simulation.create([node("node1", "3"), group("pg1", 100, min_count=3)])
    simulation.create(low(3))

    simulation.create(high(3))

    attempts = simulation.metrics.series(PODGROUP_SCHEDULE_ATTEMPTS_TOTAL)
    results = {dict(labels)["result"]: count for labels, count in attempts.items()}
    assert results == {POD_GROUP_WAITING_ON_PREEMPTION: 1, POD_GROUP_SCHEDULED: 1}
    (pg1,) = simulation.cluster.list("PodGroup")
    assert [(c.status, c.reason) for c in pg1.conditions] == [("True", "Scheduled")]


def unschedulable_gang(config: str = CONFIG, gates: FeatureGates = GATES, **group_spec) -> Any:
    """Three low pods fill the node; a gang of three needs their room."""
    simulation = Simulation(config, "", features=gates)
    pg1 = group("pg1", 100, min_count=3)
    if group_spec:
        pg1 = PodGroup.from_dict({**pg1.to_dict(), "spec": {**pg1.to_dict()["spec"], **group_spec}})
    simulation.create([node("node1", "3"), pg1])
    simulation.create(low(3))
    simulation.create(high(3))
    (condition,) = simulation.cluster.get("PodGroup", "pg1", "default").conditions
    return simulation, (condition.status, condition.reason, condition.message)


NO_PREEMPTION_CONFIG = CONFIG + (
    "profiles:\n"
    "- schedulerName: default-scheduler\n"
    "  plugins:\n"
    "    multiPoint:\n"
    "      disabled:\n"
    "      - name: DefaultPreemption\n"
)


@pytest.mark.parametrize(
    ("config", "gates", "group_spec", "message"),
    [
        (
            NO_PREEMPTION_CONFIG,
            GATES,
            {},
            "pod group is unschedulable, default preemption plugin is not registered, "
            "workload aware preemption is disabled",
        ),
        (
            CONFIG,
            GATES,
            {"schedulingConstraints": {"topology": [{"key": "topology.kubernetes.io/zone"}]}},
            "pod group is unschedulable, workload aware preemption is not supported for pod "
            "groups with scheduling constraints",
        ),
    ],
    ids=[
        "without DefaultPreemption the group does not preempt",
        "a group with scheduling constraints does not preempt",
    ],
)
def test_when_a_group_does_not_preempt(config, gates, group_spec, message):
    simulation, condition = unschedulable_gang(config, gates, **group_spec)

    assert condition == ("False", "Unschedulable", message)
    assert [p.name for p in simulation.cluster.list("Pod") if p.spec.node_name] == [
        "low-1",
        "low-2",
        "low-3",
    ]


def test_without_the_gate_members_preempt_one_by_one():
    gates = FeatureGates({"GenericWorkload": True, "GangScheduling": True})
    simulation, condition = unschedulable_gang(gates=gates)

    assert condition == ("True", "Scheduled", "")
    notes = [e["note"] for e in simulation.cluster.events if e["reason"] == "Preempted"]
    assert len(notes) == 3
    assert all(n.startswith("Preempted by pod ") and n.endswith(" on node node1") for n in notes)


def test_the_snapshot_is_restored_after_the_group_preempted():
    simulation, _ = unschedulable_gang()
    snapshot = simulation.scheduler.snapshot
    assert not snapshot.has_backup
    simulation.scheduler.cache.update_snapshot(snapshot)
    assert sorted(p.pod.name for p in snapshot.get("node1").pods) == ["high-1", "high-2", "high-3"]


def test_a_group_that_does_not_fit_even_without_its_victims_says_so_twice():
    """Upstream appends the failed trial's own status: the group's, once more."""
    simulation = Simulation(CONFIG, "", features=GATES)
    simulation.create([node("node1", "3"), group("pg1", 100, min_count=3)])
    simulation.create([pod("mid-1", "1", 500), *low(2)])
    simulation.create(high(3))

    (condition,) = simulation.cluster.get("PodGroup", "pg1", "default").conditions
    assert condition.message == "pod group is unschedulable, pod group is unschedulable"


def test_a_member_that_fitted_waits_for_the_victims_nominated_to_its_node():
    """The waitingOnPreemption path: a member placed in the group's trial fails with the
    group's status and keeps its node as nomination (upstream's recording shows the same
    message, wrapped by the placement algorithm)."""
    partial = CASES[2]
    simulation = Simulation(CONFIG, "", features=GATES)
    simulation.create([*partial.nodes, *partial.groups])
    simulation.create(partial.initial)
    nominations = []
    simulation.cluster.watch(
        lambda _, __, new: (
            nominations.append((new.name, new.status.nominated_node_name))
            if new is not None and new.kind == "Pod" and new.status.nominated_node_name
            else None
        )
    )

    simulation.create(partial.preemptors)

    failures = {
        e["regarding"]["name"]: e["note"]
        for e in simulation.cluster.events
        if e["reason"] == "FailedScheduling"
    }
    assert failures["high-1"] == "pod group is unschedulable"
    assert nominations[0] == ("high-1", "node2")
    assert simulation.cluster.get("Pod", "high-1", "default").spec.node_name == "node2"
