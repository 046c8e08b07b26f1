"""Topology-aware placement of pod groups end to end on the engine: upstream's integration
tables (test/integration/scheduler/podgroup/topology_aware_scheduling/tas_test.go,
TestTopologyAwareSchedulingWithGangPolicy and TestTopologyAwareSchedulingWithBasicPolicy) run
step by step through a Simulation with GenericWorkload and TopologyAwareWorkloadScheduling.

The clusters are nodes of 2 CPUs labelled with a rack and a zone; the groups ask for one rack
or one zone. Gang cases run with GangScheduling; basic cases, as upstream's, with it on and off.
The steps are the integration table's (test_pod_group_integration.py), plus two checks of
where the pods landed.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import pytest

from framework.api.node import Node
from framework.api.pod import Pod
from framework.api.pod_group import PodGroup
from framework.features import FeatureGates
from framework.simulator import Simulation
from tests.framework.scheduler.test_pod_group_integration import (
    CONFIG,
    Case,
    Create,
    Delete,
    Scheduled,
    Unschedulable,
    group,
    pod,
    run_step,
)


def rack(rack_name: str, zone: str, *names: str) -> list[Node]:
    """Nodes of 2 CPUs in this rack of this zone."""
    capacity = {"cpu": "2", "pods": "32"}
    return [
        Node.from_dict(
            {
                "apiVersion": "v1",
                "kind": "Node",
                "metadata": {"name": name, "labels": {"rack": rack_name, "zone": zone}},
                "status": {"capacity": capacity, "allocatable": capacity},
            }
        )
        for name in names
    ]


def gang(name: str, topology_key: str, min_count: int) -> PodGroup:
    return group(name, min_count=min_count, topology_key=topology_key)


def basic(name: str, topology_key: str) -> PodGroup:
    return group(name, topology_key=topology_key)


def member(name: str, group_name: str) -> Pod:
    return pod(name, "1", 100, group_name)


def large(name: str, group_name: str) -> Pod:
    """Takes a whole node."""
    return pod(name, "2", 100, group_name)


def unfittable(name: str, group_name: str) -> Pod:
    """Fits no node."""
    return pod(name, "3", 100, group_name)


def assigned(name: str, node_name: str, cpu: str) -> Pod:
    """A pod already bound, outside any group."""
    return pod(name, cpu, 100, node_name=node_name)


@dataclass
class On:
    """Every pod bound to one of these nodes (upstream's verifyAssignments)."""

    pods: list[str]
    nodes: list[str]


@dataclass
class OneDomain:
    """Every pod bound, all in one domain of the key (verifyAssignedInOneDomain)."""

    pods: list[str]
    topology_key: str


def check_placement(simulation: Simulation, step: Any) -> None:
    cluster = simulation.cluster
    bound = {p.name: p.spec.node_name for p in cluster.list("Pod")}
    match step:
        case On(pods, nodes):
            assert {n: bound.get(n) for n in pods if bound.get(n) not in nodes} == {}
        case OneDomain(pods, key):
            domains = {cluster.get("Node", bound[n]).labels.get(key) for n in pods if bound[n]}
            assert [n for n in pods if not bound[n]] == []
            assert len(domains) == 1 and None not in domains
        case _:
            run_step(simulation, step)


def run(case: Case, gang_scheduling: bool) -> None:
    gates = FeatureGates(
        {
            "GenericWorkload": True,
            "GangScheduling": gang_scheduling,
            "TopologyAwareWorkloadScheduling": True,
        }
    )
    simulation = Simulation(CONFIG, "", features=gates)
    for step in case.steps:
        check_placement(simulation, step)


GANG_CASES = [
    Case(
        "gang schedules on a single rack, when only one feasible rack is available",
        [
            Create(
                [
                    *rack("rack-1", "zone-1", "node1-rack1", "node2-rack1", "node3-rack1"),
                    *rack("rack-2", "zone-1", "node4-rack2", "node5-rack2"),
                    *rack("rack-3", "zone-2", "node6-zone2"),
                ]
            ),
            Create([assigned("existing1", "node4-rack2", "2")]),
            Create([gang("pg1", "rack", 3)]),
            Create([member("p1", "pg1"), member("p2", "pg1"), member("p3", "pg1")]),
            Scheduled(["p1", "p2", "p3"]),
            On(["p1", "p2", "p3"], ["node1-rack1", "node2-rack1", "node3-rack1"]),
        ],
    ),
    Case(
        "gang remains pending when no feasible resources are found",
        [
            Create(
                [
                    *rack("rack-1", "zone-1", "node1-rack1", "node2-rack1"),
                    *rack("rack-2", "zone-1", "node3-rack2"),
                    *rack("rack-3", "zone-2", "node4-zone2"),
                ]
            ),
            Create([gang("pg1", "rack", 3)]),
            Create([large("p1", "pg1"), large("p2", "pg1"), large("p3", "pg1")]),
            Unschedulable(["p1", "p2", "p3"]),
        ],
    ),
    Case(
        "gang remains pending when resources are consumed by existing pods",
        [
            Create([*rack("rack-1", "zone-1", "node1-rack1", "node2-rack1", "node3-rack1")]),
            Create(
                [
                    assigned("existing1", "node1-rack1", "2"),
                    assigned("existing2", "node3-rack1", "2"),
                ]
            ),
            Create([gang("pg1", "rack", 3)]),
            Create([member("p1", "pg1"), member("p2", "pg1"), member("p3", "pg1")]),
            Unschedulable(["p1", "p2", "p3"]),
            Delete(["existing1"]),
            Scheduled(["p1", "p2", "p3"]),
        ],
    ),
    Case(
        "gang schedules on a single rack, choosing placement with the highest score in default "
        "placement scoring algorithm",
        [
            Create(
                [
                    *rack("rack-1", "zone-1", "node1-rack1", "node2-rack1"),
                    *rack("rack-2", "zone-2", "node3-rack2", "node4-rack2", "node5-rack2"),
                    *rack("rack-3", "zone-2", "node6-rack3"),
                ]
            ),
            Create([gang("pg1", "rack", 3)]),
            Create([member("p1", "pg1"), member("p2", "pg1"), member("p3", "pg1")]),
            Scheduled(["p1", "p2", "p3"]),
            On(["p1", "p2", "p3"], ["node1-rack1", "node2-rack1"]),
        ],
    ),
    Case(
        "gang schedules on a single rack, choosing placement with highest allocation percentage "
        "(default placement scoring algorithm) with pre-existing pods in cluster",
        [
            Create(
                [
                    *rack("rack-1", "zone-1", "node1-rack1", "node2-rack1"),
                    *rack("rack-2", "zone-2", "node3-rack2", "node4-rack2", "node5-rack2"),
                    *rack("rack-3", "zone-2", "node6-rack3", "node7-rack3", "node8-rack3"),
                    *rack("rack-4", "zone-2", "node9-rack4"),
                ]
            ),
            Create(
                [
                    assigned("existing1", "node3-rack2", "2"),
                    assigned("existing2", "node8-rack3", "1"),
                ]
            ),
            Create([gang("pg1", "rack", 3)]),
            Create([member("p1", "pg1"), member("p2", "pg1"), member("p3", "pg1")]),
            Scheduled(["p1", "p2", "p3"]),
            On(["p1", "p2", "p3"], ["node3-rack2", "node4-rack2", "node5-rack2"]),
        ],
    ),
    Case(
        "two gangs schedule consecutively, each on a separate rack",
        [
            Create(
                [
                    *rack("rack-1", "zone-1", "node1-rack1", "node2-rack1", "node3-rack1"),
                    *rack("rack-2", "zone-1", "node4-rack2", "node5-rack2"),
                ]
            ),
            Create([gang("pg1", "rack", 3)]),
            Create([large("p1", "pg1"), large("p2", "pg1"), large("p3", "pg1")]),
            Scheduled(["p1", "p2", "p3"]),
            Create([gang("pg2", "rack", 2)]),
            Create([member("p4", "pg2"), member("p5", "pg2")]),
            Scheduled(["p4", "p5"]),
            On(["p1", "p2", "p3"], ["node1-rack1", "node2-rack1", "node3-rack1"]),
            On(["p4", "p5"], ["node4-rack2", "node5-rack2"]),
        ],
    ),
    Case(
        "two gangs schedule consecutively, both on the same rack",
        [
            Create(
                [
                    *rack("rack-1", "zone-1", "node1-rack1", "node2-rack1", "node3-rack1"),
                    *rack("rack-2", "zone-1", "node4-rack2"),
                ]
            ),
            Create([gang("pg1", "rack", 2)]),
            Create([large("p1", "pg1"), member("p2", "pg1")]),
            Create([gang("pg2", "rack", 3)]),
            Create([member("p3", "pg2"), member("p4", "pg2"), member("p5", "pg2")]),
            Scheduled(["p1", "p2"]),
            On(["p1", "p2"], ["node1-rack1", "node2-rack1", "node3-rack1"]),
            Scheduled(["p3", "p4", "p5"]),
            On(["p3", "p4", "p5"], ["node1-rack1", "node2-rack1", "node3-rack1"]),
        ],
    ),
    Case(
        "two gangs schedule consecutively, different topology keys",
        [
            Create(
                [
                    *rack("rack-1", "zone-1", "node1-rack1", "node2-rack1"),
                    *rack("rack-2", "zone-1", "node3-rack2"),
                    *rack("rack-3", "zone-2", "node4-zone2", "node5-zone2", "node6-zone2"),
                ]
            ),
            Create([gang("pg1", "rack", 3)]),
            Create([large("p1", "pg1"), large("p2", "pg1"), large("p3", "pg1")]),
            Scheduled(["p1", "p2", "p3"]),
            Create([gang("pg2", "zone", 3)]),
            Create([large("p4", "pg2"), large("p5", "pg2"), large("p6", "pg2")]),
            Scheduled(["p4", "p5", "p6"]),
            On(["p1", "p2", "p3"], ["node4-zone2", "node5-zone2", "node6-zone2"]),
            On(["p4", "p5", "p6"], ["node1-rack1", "node2-rack1", "node3-rack2"]),
        ],
    ),
    Case(
        "two gangs schedule consecutively, only one fits in the cluster",
        [
            Create([*rack("rack-1", "zone-1", "node1-rack1", "node2-rack1")]),
            Create([gang("pg1", "rack", 3)]),
            Create([member("p1", "pg1"), member("p2", "pg1"), member("p3", "pg1")]),
            Scheduled(["p1", "p2", "p3"]),
            Create([gang("pg2", "rack", 2)]),
            Create([member("p4", "pg2"), member("p5", "pg2")]),
            On(["p1", "p2", "p3"], ["node1-rack1", "node2-rack1"]),
            Unschedulable(["p4", "p5"]),
        ],
    ),
    Case(
        "gang with minCount < pod count schedules on a single rack",
        [
            Create(
                [
                    *rack("rack-1", "zone-1", "node1-rack1", "node2-rack1"),
                    *rack("rack-2", "zone-1", "node3-rack2", "node4-rack2"),
                ]
            ),
            Create([gang("pg1", "rack", 2)]),
            Create([member("p1", "pg1"), member("p2", "pg1"), member("p3", "pg1")]),
            Scheduled(["p1", "p2", "p3"]),
            OneDomain(["p1", "p2", "p3"], "rack"),
        ],
    ),
    Case(
        "gang with minCount < pod count schedules on a single rack, choosing smaller rack",
        [
            Create(
                [
                    *rack("rack-1", "zone-1", "node1-rack1", "node2-rack1", "node3-rack1"),
                    *rack("rack-2", "zone-1", "node4-rack2", "node5-rack2"),
                    *rack("rack-3", "zone-2", "node6-rack3"),
                ]
            ),
            Create([gang("pg1", "rack", 3)]),
            Create([member("p1", "pg1"), member("p2", "pg1"), member("p3", "pg1")]),
            Scheduled(["p1", "p2", "p3"]),
            Create([member("p4", "pg1")]),
            Scheduled(["p4"]),
            On(["p1", "p2", "p3", "p4"], ["node4-rack2", "node5-rack2"]),
            Create([member("p5", "pg1")]),
            Unschedulable(["p5"]),
        ],
    ),
    Case(
        "gang does not schedule on a single rack when preemption could free up enough resources",
        [
            Create([*rack("rack-1", "zone-1", "node1-rack1", "node2-rack1")]),
            Create([assigned("existing1", "node2-rack1", "2")]),
            Create([gang("pg1", "rack", 3)]),
            Create([member("p1", "pg1"), member("p2", "pg1"), member("p3", "pg1")]),
            Unschedulable(["p1", "p2", "p3"]),
        ],
    ),
]


BASIC_CASES = [
    Case(
        "basic podgroup schedules on the only rack in the cluster",
        [
            Create([*rack("rack-1", "zone-1", "node1-rack1", "node2-rack1")]),
            Create([basic("pg1", "rack")]),
            Create([member("p1", "pg1"), member("p2", "pg1"), member("p3", "pg1")]),
            Scheduled(["p1", "p2", "p3"]),
            On(["p1", "p2", "p3"], ["node1-rack1", "node2-rack1"]),
        ],
    ),
    Case(
        "basic podgroup schedules all pods on a single rack, when there are multiple racks "
        "fitting in the cluster",
        [
            Create(
                [
                    *rack("rack-1", "zone-1", "node1-rack1", "node2-rack1"),
                    *rack("rack-2", "zone-1", "node3-rack2", "node4-rack2"),
                    *rack("rack-3", "zone-2", "node5-zone2", "node6-zone2"),
                ]
            ),
            Create([basic("pg1", "rack")]),
            Create([member("p1", "pg1"), member("p2", "pg1"), member("p3", "pg1")]),
            Scheduled(["p1", "p2", "p3"]),
            OneDomain(["p1", "p2", "p3"], "rack"),
        ],
    ),
    Case(
        "basic podgroup cannot fit on a single rack, no pods get scheduled on a different rack",
        [
            Create(
                [*rack("rack-1", "zone-1", "node1-rack1"), *rack("rack-2", "zone-1", "node2-rack2")]
            ),
            Create([basic("pg1", "rack")]),
            Create([member("p1", "pg1"), member("p2", "pg1"), member("p3", "pg1")]),
            Scheduled(["p1", "p2"]),
            Unschedulable(["p3"]),
            OneDomain(["p1", "p2"], "rack"),
        ],
    ),
    Case(
        "basic podgroup does not schedule at all when no pods fit",
        [
            Create(
                [*rack("rack-1", "zone-1", "node1-rack1"), *rack("rack-2", "zone-1", "node2-rack2")]
            ),
            Create([basic("pg1", "rack")]),
            Create([unfittable("p1", "pg1"), unfittable("p2", "pg1")]),
            Unschedulable(["p1", "p2"]),
        ],
    ),
    Case(
        "basic podgroup schedules only some pods when others don't fit on any node",
        [
            Create(
                [*rack("rack-1", "zone-1", "node1-rack1"), *rack("rack-2", "zone-1", "node2-rack2")]
            ),
            Create([basic("pg1", "rack")]),
            Create([unfittable("p1", "pg1"), member("p2", "pg1")]),
            Scheduled(["p2"]),
            Unschedulable(["p1"]),
        ],
    ),
    Case(
        "basic podgroup schedules on a single rack, choosing placement with highest allocation "
        "percentage (default placement scoring algorithm)",
        [
            Create(
                [
                    *rack("rack-1", "zone-1", "node1-rack1", "node2-rack1"),
                    *rack("rack-2", "zone-2", "node3-rack2", "node4-rack2", "node5-rack2"),
                ]
            ),
            Create([basic("pg1", "rack")]),
            Create([member("p1", "pg1"), member("p2", "pg1"), member("p3", "pg1")]),
            Scheduled(["p1", "p2", "p3"]),
            On(["p1", "p2", "p3"], ["node1-rack1", "node2-rack1"]),
        ],
    ),
    Case(
        "basic podgroup schedules on a single rack, choosing placement with highest allocation "
        "percentage with pre-existing pods",
        [
            Create(
                [
                    *rack("rack-1", "zone-1", "node1-rack1", "node2-rack1", "node3-rack1"),
                    *rack("rack-2", "zone-2", "node4-rack2", "node5-rack2", "node6-rack2"),
                    *rack(
                        "rack-3",
                        "zone-2",
                        "node7-rack3",
                        "node8-rack3",
                        "node9-rack3",
                        "node10-rack3",
                    ),
                ]
            ),
            Create(
                [
                    assigned("existing1", "node1-rack1", "1"),
                    assigned("existing2", "node5-rack2", "1"),
                    assigned("existing3", "node6-rack2", "1"),
                ]
            ),
            Create([basic("pg1", "rack")]),
            Create([member("p1", "pg1"), member("p2", "pg1"), member("p3", "pg1")]),
            Scheduled(["p1", "p2", "p3"]),
            On(["p1", "p2", "p3"], ["node4-rack2", "node5-rack2", "node6-rack2"]),
        ],
    ),
    Case(
        "basic podgroup schedules on a single rack, choosing best scoring placement that will "
        "not fit all podgroup",
        [
            Create(
                [
                    *rack(
                        "rack-1",
                        "zone-1",
                        "node1-rack1",
                        "node2-rack1",
                        "node3-rack1",
                        "node4-rack1",
                    ),
                    *rack("rack-2", "zone-1", "node5-rack2"),
                ]
            ),
            Create([assigned("existing1", "node1-rack1", "2")]),
            Create([basic("pg1", "rack")]),
            Create([member("p1", "pg1")]),
            Scheduled(["p1"]),
            Create([member("p2", "pg1"), member("p3", "pg1")]),
            Scheduled(["p2"]),
            On(["p1", "p2"], ["node5-rack2"]),
            Unschedulable(["p3"]),
        ],
    ),
    Case(
        "two basic podgroups schedule consecutively, each on a single rack",
        [
            Create(
                [
                    *rack("rack-1", "zone-1", "node1-rack1", "node2-rack1", "node3-rack1"),
                    *rack("rack-2", "zone-1", "node4-rack2"),
                ]
            ),
            Create([basic("pg1", "rack")]),
            Create([member("p1", "pg1"), member("p2", "pg1")]),
            Create([basic("pg2", "rack")]),
            Create([member("p3", "pg2"), member("p4", "pg2")]),
            Scheduled(["p1", "p2"]),
            On(["p1", "p2"], ["node4-rack2"]),
            Scheduled(["p3", "p4"]),
            On(["p3", "p4"], ["node1-rack1", "node2-rack1", "node3-rack1"]),
        ],
    ),
    Case(
        "two basic podgroups schedule consecutively on the only rack",
        [
            Create([*rack("rack-1", "zone-1", "node1-rack1", "node2-rack1", "node3-rack1")]),
            Create([basic("pg1", "rack")]),
            Create([member("p1", "pg1"), member("p2", "pg1")]),
            Create([basic("pg2", "rack")]),
            Create([member("p3", "pg2"), member("p4", "pg2"), member("p5", "pg2")]),
            Scheduled(["p1", "p2", "p3", "p4", "p5"]),
        ],
    ),
    Case(
        "two basic podgroups schedule consecutively, different topology keys",
        [
            Create(
                [
                    *rack("rack-1", "zone-1", "node1-rack1"),
                    *rack("rack-2", "zone-2", "node2-zone2", "node3-zone2"),
                    *rack("rack-3", "zone-2", "node4-zone2", "node5-zone2"),
                ]
            ),
            Create([basic("pg1", "rack")]),
            Create([member("p1", "pg1"), member("p2", "pg1")]),
            Create([basic("pg2", "zone")]),
            Create([large("p3", "pg2"), large("p4", "pg2"), large("p5", "pg2")]),
            Scheduled(["p1", "p2", "p3", "p4", "p5"]),
            On(["p1", "p2"], ["node1-rack1"]),
            On(["p3", "p4", "p5"], ["node2-zone2", "node3-zone2", "node4-zone2", "node5-zone2"]),
        ],
    ),
    Case(
        "two basic podgroups schedule consecutively, one does not fit in the assigned rack",
        [
            Create(
                [
                    *rack("rack-1", "zone-1", "node1-rack1", "node2-rack1"),
                    *rack("rack-2", "zone-1", "node3-rack2"),
                ]
            ),
            Create([basic("pg1", "rack")]),
            Create([member("p1", "pg1")]),
            Scheduled(["p1"]),
            Create([member("p2", "pg1"), member("p3", "pg1")]),
            Scheduled(["p2"]),
            Unschedulable(["p3"]),
            On(["p1", "p2"], ["node3-rack2"]),
            Create([basic("pg2", "rack")]),
            Create([member("p4", "pg2"), member("p5", "pg2"), member("p6", "pg2")]),
            Scheduled(["p4", "p5", "p6"]),
            On(["p4", "p5", "p6"], ["node1-rack1", "node2-rack1"]),
        ],
    ),
    Case(
        "basic podgroup continues to schedule pods when more resources become available",
        [
            Create(
                [*rack("rack-1", "zone-1", "node1-rack1"), *rack("rack-2", "zone-1", "node2-rack2")]
            ),
            Create([assigned("existing1", "node1-rack1", "1")]),
            Scheduled(["existing1"]),
            Create([basic("pg1", "rack")]),
            Create([member("p1", "pg1")]),
            Scheduled(["p1"]),
            Create([member("p2", "pg1")]),
            On(["p1"], ["node1-rack1"]),
            Unschedulable(["p2"]),
            Delete(["existing1"]),
            Scheduled(["p1", "p2"]),
            On(["p1", "p2"], ["node1-rack1"]),
        ],
    ),
]


@pytest.mark.parametrize("case", GANG_CASES, ids=lambda c: c.name)
def test_topology_aware_scheduling_with_gang_policy(case: Case):
    run(case, gang_scheduling=True)


@pytest.mark.parametrize(
    ("case", "gang_scheduling"),
    [
        pytest.param(case, gang, id=f"{case.name} (GangScheduling enabled: {gang})")
        for gang in (True, False)
        for case in BASIC_CASES
    ],
)
def test_topology_aware_scheduling_with_basic_policy(case: Case, gang_scheduling: bool):
    run(case, gang_scheduling)
