"""TopologyPlacementGenerator: the facts of upstream's topology_placement_test.go
(TestGeneratePlacements)."""

from __future__ import annotations

from dataclasses import dataclass, field

import pytest

from framework.api.pod_group import PodGroup
from framework.backend.cache.snapshot import new_snapshot
from framework.cluster.memory import InMemoryCluster
from framework.interface.cycle_state import CycleState
from framework.interface.node_info import NodeInfo
from framework.interface.placement import Placement
from framework.interface.pod_group_info import PodGroupInfo
from framework.interface.status import Code
from framework.plugins.feature import Features
from framework.plugins.topologyaware.topology_placement import TopologyPlacement
from framework.runtime.framework import Framework
from framework.runtime.registry import Registry
from tests.framework.builders import make_basic_pod_group, make_node, make_pod

INITIAL_PLACEMENT = "test-placement"


def pod_group(topology_key: str | None) -> PodGroup:
    return make_basic_pod_group("pg1", topology_key=topology_key)


def labelled(name: str, **labels: str):
    return make_node(name, labels=labels)


@dataclass
class Case:
    topology_key: str | None
    placement_nodes: list
    other_nodes: list = field(default_factory=list)
    scheduled: dict[str, str] = field(default_factory=dict)
    want: dict[str, list[str]] | None = None
    """Placement name -> its nodes; None when the plugin fails with an Error."""


CASES = {
    "without constraint returns placement matching all nodes": Case(
        None,
        [labelled("node1"), labelled("node2", foo="bar")],
        [labelled("node3")],
        want={INITIAL_PLACEMENT: ["node1", "node2"]},
    ),
    "with topology key constraint, returns placement for each topology domain": Case(
        "topology1",
        [
            labelled("node0", topology2="d1"),
            labelled("node1", topology2="d4"),
            labelled("node2", topology1="d1"),
            labelled("node3", topology1="d2"),
            labelled("node4", topology1="d1"),
            labelled("node5", topology1="d3"),
        ],
        want={"d1": ["node2", "node4"], "d2": ["node3"], "d3": ["node5"]},
    ),
    "without matching topology label, returns empty": Case(
        "topology3",
        [
            labelled("node0", topology2="d1"),
            labelled("node2", topology1="d1"),
        ],
        want={},
    ),
    "with pods already scheduled in a single domain, returns that domain": Case(
        "topology",
        [labelled("node0", topology="d2"), labelled("node1", topology="d1")],
        [labelled("node2", topology="d1"), labelled("node3", topology="d1")],
        scheduled={"pod1": "node2", "pod2": "node3"},
        want={"d1": ["node1"]},
    ),
    "with pods already scheduled in a single domain not present in current placement, "
    "returns empty": Case(
        "topology",
        [labelled("node0", topology="d2")],
        [labelled("node2", topology="d1"), labelled("node3", topology="d1")],
        scheduled={"pod1": "node2", "pod2": "node3"},
        want={},
    ),
    "with pods already scheduled in conflicting domains, returns error": Case(
        "topology",
        [labelled("node0", topology="d2"), labelled("node1", topology="d1")],
        [labelled("node2", topology="d0"), labelled("node3", topology="d1")],
        scheduled={"pod1": "node2", "pod2": "node3"},
    ),
    "with already scheduled pod on node outside of snapshot, returns error": Case(
        "topology",
        [labelled("node0", topology="d2"), labelled("node1", topology="d1")],
        [labelled("node2", topology="d1"), labelled("node3", topology="d1")],
        scheduled={"pod1": "node2", "pod2": "node4"},
    ),
    "with already scheduled pod on node without topology label, returns error": Case(
        "topology",
        [labelled("node1", topology="d2")],
        [labelled("node2", foo="bar")],
        scheduled={"pod1": "node2"},
    ),
}


def member(name: str, node_name: str = ""):
    pod = make_pod(name, "default", uid=name, schedulingGroup={"podGroupName": "pg1"})
    pod.spec.node_name = node_name
    return pod


def generate(case: Case):
    pods = [member("unscheduled")]
    pods += [member(name, node_name) for name, node_name in case.scheduled.items()]
    snapshot = new_snapshot(
        pods, [*case.placement_nodes, *case.other_nodes], generic_workload_enabled=True
    )
    handle = Framework(
        Registry(),
        None,
        cluster=InMemoryCluster([pod_group(case.topology_key)]),
        snapshot_shared_lister=snapshot,
    )
    plugin = TopologyPlacement(None, handle, Features())
    parent = Placement(INITIAL_PLACEMENT, [fresh_node_info(n) for n in case.placement_nodes])
    return plugin.generate_placements(CycleState(), PodGroupInfo("default", "pg1"), parent)


def fresh_node_info(node) -> NodeInfo:
    info = NodeInfo()
    info.set_node(node)
    return info


@pytest.mark.parametrize("case", CASES.values(), ids=CASES.keys())
def test_it_generates_one_placement_per_topology_domain(case):
    result, status = generate(case)
    if case.want is None:
        assert status is not None and status.code == Code.ERROR
        return
    assert status is None
    got = {p.name: [info.node_name for info in p.nodes] for p in result.placements}
    assert got == case.want


def test_the_errors_say_what_was_found():
    cases = list(CASES.values())
    messages = [generate(case)[1].message() for case in cases[5:]]
    assert messages[0] == (
        "cannot determine domain for already scheduled pods: "
        "more than 1 domain found for pod group: d0, d1"
    )
    assert messages[1] == (
        "cannot determine domain for already scheduled pods: getting node for pod default/pod2: "
        'nodeinfo not found for node name "node4"'
    )
    assert messages[2] == (
        "cannot determine domain for already scheduled pods: "
        "no topology domain found for pod default/pod1"
    )


def test_a_missing_pod_group_is_an_error():
    handle = Framework(Registry(), None, cluster=InMemoryCluster(), snapshot_shared_lister=None)
    plugin = TopologyPlacement(None, handle, Features())
    result, status = plugin.generate_placements(
        CycleState(), PodGroupInfo("default", "pg1"), Placement(INITIAL_PLACEMENT, [])
    )
    assert result is None
    assert status.code == Code.ERROR
    assert status.message() == 'podgroup.scheduling.k8s.io "pg1" not found'
