"""Pod groups end to end on the engine: upstream's integration table
(test/integration/scheduler/podgroup/podgroup_test.go, TestPodGroupScheduling) run step by
step through a Simulation with GenericWorkload and GangScheduling.

Each upstream case is a list of steps: create pods or a PodGroup, delete pods, or check what
the scheduler made of them. Upstream polls until a check holds; a Simulation schedules until
the queue settles after each change, so each check here reads the settled state once. As
upstream's, every case runs with TopologyAwareWorkloadScheduling on and off (the cases that
need it only on), on one node of 4 CPUs in zone1. Upstream also creates the Workloads its
PodGroups' templateRefs name; the engine schedules a PodGroup without them.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import pytest

from framework.api.node import Node
from framework.api.pod import Pod
from framework.api.pod_group import PodGroup
from framework.features import FeatureGates
from framework.interface.plugins import PostFilterPlugin
from framework.interface.status import Code, Status
from framework.plugins.registry import in_tree_registry
from framework.runtime.registry import Registry
from framework.simulator import Simulation

CONFIG = "apiVersion: kubescheduler.config.k8s.io/v1\nkind: KubeSchedulerConfiguration\n"
ZONE = "topology.kubernetes.io/zone"


def the_node() -> Node:
    capacity = {"cpu": "4", "pods": "32"}
    return Node.from_dict(
        {
            "apiVersion": "v1",
            "kind": "Node",
            "metadata": {"name": "node", "labels": {ZONE: "zone1"}},
            "status": {"capacity": capacity, "allocatable": capacity},
        }
    )


def group(
    name: str, priority: int | None = None, min_count: int | None = None, topology_key: str = ""
) -> PodGroup:
    """A gang of ``min_count``, or a basic group without it."""
    policy = {"gang": {"minCount": min_count}} if min_count else {"basic": {}}
    spec: dict[str, Any] = {"schedulingPolicy": policy}
    if priority is not None:
        spec["priority"] = priority
    if topology_key:
        spec["schedulingConstraints"] = {"topology": [{"key": topology_key}]}
    return PodGroup.from_dict(
        {
            "apiVersion": "scheduling.k8s.io/v1alpha2",
            "kind": "PodGroup",
            "metadata": {"name": name, "namespace": "default", "uid": f"uid-{name}"},
            "spec": spec,
        }
    )


def pod(name: str, cpu: str, priority: int, group_name: str = "", node_name: str = "") -> Pod:
    spec: dict[str, Any] = {
        "containers": [{"name": "c", "image": "image", "resources": {"requests": {"cpu": cpu}}}],
        "priority": priority,
    }
    if node_name:
        spec["nodeName"] = node_name
    if group_name:
        spec["schedulingGroup"] = {"podGroupName": group_name}
    else:
        spec["terminationGracePeriodSeconds"] = 0
    return Pod.from_dict(
        {
            "apiVersion": "v1",
            "kind": "Pod",
            "metadata": {"name": name, "namespace": "default"},
            "spec": spec,
        }
    )


# Upstream's objects, by their names there.
GANG = group("pg1", 100, min_count=3)
OTHER_GANG = group("pg2", 100, min_count=3)
BASIC = group("pg1")
MID = group("mid-pg", 50, min_count=2)
MID_WITH_CONSTRAINT = group("mid-pg", 50, min_count=2, topology_key=ZONE)
P1, P2, P3, P4 = (pod(f"p{i}", "1", 100, "pg1") for i in range(1, 5))
OTHER_P1, OTHER_P2, OTHER_P3 = (pod(f"other-p{i}", "1", 100, "pg2") for i in range(1, 4))
MID_P1, MID_P2 = (pod(f"mid-p{i}", "1", 50, "mid-pg") for i in range(1, 3))
BLOCKER = pod("blocker", "2", 100)
SMALL_BLOCKER = pod("small-blocker", "1", 100)
LOW_PRIORITY_BLOCKER = pod("low-priority-blocker", "2", 10)
LOW_P1, LOW_P2, LOW_P3, LOW_P4 = (pod(f"low-p{i}", "1", 10) for i in range(1, 5))
VERY_LOW_P1, VERY_LOW_P2 = (pod(f"very-low-p{i}", "1", 5) for i in range(1, 3))


# The steps, as upstream's step fields.
@dataclass
class Create:
    objects: list[Any]


@dataclass
class Delete:
    pods: list[str]


@dataclass
class Gated:
    """In the unschedulable pool (upstream's waitForPodsGatedOnPreEnqueue)."""

    pods: list[str]


@dataclass
class Scheduled:
    pods: list[str]


@dataclass
class Unschedulable:
    pods: list[str]


@dataclass
class Removed:
    pods: list[str]


@dataclass
class Some:
    """So many of the pods scheduled and so many unschedulable (waitForAnyPodsScheduled)."""

    pods: list[str]
    scheduled: int
    unschedulable: int


@dataclass
class Condition:
    group: str
    status: str
    reason: str


@dataclass
class Case:
    name: str
    steps: list[Any]
    workload_aware_preemption: bool = False
    requires_tas: bool = False


def is_scheduled(pod_: Pod | None) -> bool:
    return pod_ is not None and bool(pod_.spec.node_name)


def is_unschedulable(pod_: Pod | None) -> bool:
    """As upstream's testutils.PodUnschedulable: unbound, PodScheduled False/Unschedulable."""
    if pod_ is None or pod_.spec.node_name:
        return False
    condition = pod_.status.condition("PodScheduled")
    return condition is not None and (condition.status, condition.reason) == (
        "False",
        "Unschedulable",
    )


def run_step(simulation: Simulation, step: Any) -> None:
    cluster = simulation.cluster

    def get(name: str) -> Pod | None:
        return cluster.get("Pod", name, "default")

    match step:
        case Create(objects):
            simulation.create(objects)
        case Delete(pods):
            for name in pods:
                cluster.delete(get(name))
            simulation.create([])  # schedules until the queue settles again
        case Gated(pods):
            pool = {p.name for p in simulation.scheduler.queue.unschedulable_pod_list()}
            assert [n for n in pods if n not in pool] == []
        case Scheduled(pods):
            assert [n for n in pods if not is_scheduled(get(n))] == []
        case Unschedulable(pods):
            assert [n for n in pods if not is_unschedulable(get(n))] == []
        case Removed(pods):
            assert [n for n in pods if get(n) is not None] == []
        case Some(pods, scheduled, unschedulable):
            current = [get(n) for n in pods]
            counts = (sum(map(is_scheduled, current)), sum(map(is_unschedulable, current)))
            assert counts == (scheduled, unschedulable)
        case Condition(name, status, reason):
            pod_group = cluster.get("PodGroup", name, "default")
            scheduled = [
                (c.status, c.reason) for c in pod_group.conditions if c.type == "PodGroupScheduled"
            ]
            assert (status, reason) in scheduled


def preempted_by(blockers: list[Pod], group_: PodGroup, members: list[Pod]) -> list[Any]:
    """The blockers take all room; the group's higher-priority members take it from them."""
    victims = [b.name for b in blockers]
    return [
        Create(blockers),
        Scheduled(victims),
        Create([group_]),
        Create(members),
        Scheduled([m.name for m in members]),
        Removed(victims),
    ]


BLOCKED_THEN_GATED = [
    Create([BLOCKER]),
    Scheduled(["blocker"]),
    Create([P1, P2, P3]),
    Gated(["p1", "p2", "p3"]),
]
"""The blocker takes half the node, then the group's pods come before their PodGroup."""


def competing_gangs(name: str, pods: list[Pod]) -> Case:
    """Two gangs of three on a node for four: the one whose pod comes first wins whole."""
    winner, loser = ("", "other-") if pods[0] is P1 else ("other-", "")
    return Case(
        name,
        [
            Create([GANG]),
            Create([OTHER_GANG]),
            Create(pods),
            Scheduled([f"{winner}p{i}" for i in range(1, 4)]),
            Unschedulable([f"{loser}p{i}" for i in range(1, 4)]),
        ],
    )


CASES = [
    Case(
        "gang schedules when pod group and resources are available",
        [
            Create([GANG]),
            Create([P1, P2, P3]),
            Scheduled(["p1", "p2", "p3"]),
            Condition("pg1", "True", "Scheduled"),
        ],
    ),
    Case(
        "gang waits for quorum to start, then schedules",
        [
            Create([GANG]),
            Create([P1, P2]),
            Gated(["p1", "p2"]),
            Create([P3]),
            Scheduled(["p1", "p2", "p3"]),
        ],
    ),
    Case(
        "gang waits for pod group, then for resources, then schedules",
        [
            *BLOCKED_THEN_GATED,
            Create([GANG]),
            Unschedulable(["p1", "p2", "p3"]),
            Condition("pg1", "False", "Unschedulable"),
            Delete(["blocker"]),
            Scheduled(["p1", "p2", "p3"]),
            Condition("pg1", "True", "Scheduled"),
        ],
    ),
    Case(
        "minCount is scheduled, but one pod from a gang remain unschedulable until the blocked "
        "resources are released",
        [
            Create([SMALL_BLOCKER]),
            Scheduled(["small-blocker"]),
            Create([P1, P2, P3, P4]),
            Create([GANG]),
            Some(["p1", "p2", "p3", "p4"], scheduled=3, unschedulable=1),
            Delete(["small-blocker"]),
            Scheduled(["p1", "p2", "p3", "p4"]),
        ],
    ),
    competing_gangs(
        "two gangs competing for the same resources shouldn't deadlock, reversed order",
        [OTHER_P3, P3, OTHER_P2, P2, OTHER_P1, P1],
    ),
    competing_gangs(
        "two gangs competing for the same resources shouldn't deadlock",
        [P1, OTHER_P1, P2, OTHER_P2, P3, OTHER_P3],
    ),
    Case(
        "gang schedules with preemption",
        [
            Create([LOW_PRIORITY_BLOCKER]),
            Scheduled(["low-priority-blocker"]),
            Create([GANG]),
            Create([P1, P2, P3, P4]),
            Scheduled(["p1", "p2", "p3", "p4"]),
            Condition("pg1", "True", "Scheduled"),
            Removed(["low-priority-blocker"]),
        ],
    ),
    Case(
        "basic group schedules when pod group and resources are available, without gang "
        "enforcement",
        [
            Create([BASIC]),
            Create([P1]),
            Scheduled(["p1"]),
            Create([P2, P3]),
            Scheduled(["p1", "p2", "p3"]),
        ],
    ),
    Case(
        "basic group waits for pod group, part of it waits for resources, then schedules",
        [
            *BLOCKED_THEN_GATED,
            Create([BASIC]),
            Some(["p1", "p2", "p3"], scheduled=2, unschedulable=1),
            Delete(["blocker"]),
            Scheduled(["p1", "p2", "p3"]),
        ],
    ),
    # Upstream's "workload-aware" basic case runs without the gate, as the one before it.
    *(
        Case(name, preempted_by([LOW_PRIORITY_BLOCKER], BASIC, [P1, P2, P3, P4]))
        for name in (
            "basic group schedules with preemption",
            "basic group schedules with workload-aware preemption",
        )
    ),
    Case(
        "gang schedules with workload-aware preemption",
        preempted_by([LOW_P1, LOW_P2, LOW_P3, LOW_P4], GANG, [P1, P2, P3, P4]),
        workload_aware_preemption=True,
    ),
    Case(
        "gang schedules with partial workload-aware preemption",
        [
            Create([VERY_LOW_P1, VERY_LOW_P2, LOW_P1, LOW_P2]),
            Scheduled(["very-low-p1", "very-low-p2", "low-p1", "low-p2"]),
            Create([MID]),
            Create([MID_P1, MID_P2]),
            Scheduled(["mid-p1", "mid-p2", "low-p1", "low-p2"]),
            Removed(["very-low-p1", "very-low-p2"]),
        ],
        workload_aware_preemption=True,
    ),
    *(
        Case(
            name,
            [
                Create([VERY_LOW_P1, VERY_LOW_P2, LOW_P1, LOW_P2]),
                Scheduled(["very-low-p1", "very-low-p2", "low-p1", "low-p2"]),
                Create([MID_WITH_CONSTRAINT]),
                Create([MID_P1, MID_P2]),
                Unschedulable(["mid-p1", "mid-p2"]),
            ],
            workload_aware_preemption=wap,
            requires_tas=True,
        )
        for name, wap in (
            ("tas gang with constraint does not use pod by pod preemption", False),
            ("tas gang with constraint does not use workload preemption", True),
        )
    ),
]

RUNS = [
    pytest.param(case, tas, id=f"{case.name} (TopologyAwareWorkloadScheduling enabled: {tas})")
    for case in CASES
    for tas in (True, False)
    if tas or not case.requires_tas
]


@pytest.mark.parametrize(("case", "tas"), RUNS)
def test_pod_group_scheduling(case: Case, tas: bool):
    gates = FeatureGates(
        {
            "GenericWorkload": True,
            "GangScheduling": True,
            "TopologyAwareWorkloadScheduling": tas,
            "WorkloadAwarePreemption": case.workload_aware_preemption,
        }
    )
    simulation = Simulation(CONFIG, "", features=gates)
    simulation.create([the_node()])
    for step in case.steps:
        run_step(simulation, step)


# Upstream's two invocation tests beside the table: a gang of three (disrupted as a whole)
# preempts four low pods that fill the node, with WorkloadAwarePreemption on.
WAP_GATES = FeatureGates(
    {"GenericWorkload": True, "GangScheduling": True, "WorkloadAwarePreemption": True}
)


def preempting_gang(config: str = CONFIG, registry: Registry | None = None) -> Simulation:
    simulation = Simulation(config, "", features=WAP_GATES, registry=registry)
    node_ = Node.from_dict({**the_node().to_dict(), "metadata": {"name": "node"}})
    simulation.create([node_, *(pod(f"low-{i}", "1", 10) for i in range(1, 5))])
    pg1 = group("pg1", 100, min_count=3).to_dict()
    pg1["spec"]["disruptionMode"] = "PodGroup"
    simulation.create([PodGroup.from_dict(pg1)])
    simulation.create([pod(f"high-{i}", "1", 100, "pg1") for i in range(1, 4)])
    return simulation


def test_workload_aware_preemption_invocation():
    simulation = preempting_gang()

    assert any(
        e["reason"] == "Preempted" and e["note"].startswith("Preempted by podgroup")
        for e in simulation.cluster.events
        if e["regarding"]["name"].startswith("low-")
    )


class MockPostFilter(PostFilterPlugin):
    """Counts its calls and never helps."""

    name = "MockPostFilter"

    def __init__(self) -> None:
        self.count = 0

    def post_filter(self, state, pod_, filtered_node_status_map):
        self.count += 1
        return None, Status(Code.UNSCHEDULABLE)


def test_post_filter_invocation_count():
    """Once for each member in the pod group cycle, never inside workload-aware preemption."""
    mock = MockPostFilter()
    registry = in_tree_registry(WAP_GATES)
    registry.register(mock.name, lambda args, handle: mock)
    config = CONFIG + (
        "profiles:\n"
        "- schedulerName: default-scheduler\n"
        "  plugins:\n"
        "    postFilter:\n"
        "      enabled:\n"
        "      - name: MockPostFilter\n"
        "      - name: DefaultPreemption\n"
    )

    preempting_gang(config, registry)

    assert mock.count == 3
