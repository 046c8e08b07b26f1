"""NodeResourcesFit's PlacementScore (TopologyAwareWorkloadScheduling): MostAllocated over a
placement's nodes taken as one, ported from upstream's TestScorePlacement_Resources table."""

from __future__ import annotations

import pytest

from framework.config.types import LEAST_ALLOCATED, NodeResourcesFitArgs, ResourceSpec
from framework.config.types import ScoringStrategy as Strategy
from framework.interface.cycle_state import CycleState
from framework.interface.placement import Placement, PodGroupAssignments
from framework.interface.pod_group_info import PodGroupInfo
from framework.plugins.feature import Features
from framework.plugins.noderesources.fit import Fit
from framework.testing.fake_plugins import FakeProposedAssignment
from tests.framework.plugins.noderesources.builders import make_node, req_pod, snapshot

TWO = [ResourceSpec("cpu", 1), ResourceSpec("memory", 1)]
WEIGHTED = [ResourceSpec("cpu", 4), ResourceSpec("memory", 1)]
WITH_GPU = [*TWO, ResourceSpec("nvidia.com/gpu", 1)]


def res(cpu: str, memory: str, gpu: str | None = None) -> dict[str, str]:
    amounts = {"cpu": cpu, "memory": memory}
    if gpu is not None:
        amounts["nvidia.com/gpu"] = gpu
    return amounts


def nodes(count: int, gpu: str | None = None):
    return [make_node(f"node{i}", res("5000m", "5000", gpu)) for i in range(1, count + 1)]


FOO, BAR = req_pod(res("1000m", "0")), req_pod(res("2000m", "2000"))
ON_TWO_NODES = [(FOO, "node1"), (BAR, "node2")]

CASES = {
    "Computes score based on total requests": (nodes(2), 2, ON_TWO_NODES, [], TWO, 25),
    "Computes score using weights": (nodes(2), 2, ON_TWO_NODES, [], WEIGHTED, 28),
    "Handles multiple pods per node": (
        nodes(2),
        2,
        [(FOO, "node1"), (BAR, "node1")],
        [],
        WEIGHTED,
        28,
    ),
    "Does not include nodes from outside of placement": (nodes(3), 2, ON_TWO_NODES, [], TWO, 25),
    "Includes pre-existing pods from outside of pod group": (
        nodes(2),
        2,
        ON_TWO_NODES,
        [req_pod(res("1000m", "0"), node_name="node1")],
        TWO,
        30,
    ),
    "Includes scalar resources if any pod in pod group has nonzero requests": (
        nodes(2, gpu="5"),
        2,
        [(req_pod(res("1000m", "0", "0")), "node1"), (req_pod(res("1000m", "2000", "1")), "node2")],
        [req_pod(res("1000m", "0", "0"), node_name="node1")],
        WITH_GPU,
        20,
    ),
    "Does not include scalar resources if all pods in pod group have zero requests": (
        nodes(2, gpu="5"),
        2,
        [(req_pod(res("1000m", "0", "0")), "node1"), (req_pod(res("1000m", "2000", "0")), "node2")],
        [req_pod(res("1000m", "0", "1"), node_name="node1")],
        WITH_GPU,
        25,
    ),
}


@pytest.mark.parametrize(
    ("all_nodes", "in_placement", "proposed", "existing", "resources", "want"),
    CASES.values(),
    ids=CASES.keys(),
)
def test_a_placement_scores_how_full_its_nodes_would_be(
    all_nodes, in_placement, proposed, existing, resources, want
):
    # Whatever the node scoring strategy, placements are scored as MostAllocated.
    args = NodeResourcesFitArgs(scoring_strategy=Strategy(LEAST_ALLOCATED, resources))
    plugin = Fit(args, None, Features(enable_topology_aware_workload_scheduling=True))
    placement = Placement(nodes=snapshot(existing, all_nodes)[:in_placement])
    assignments = PodGroupAssignments(
        placement, [FakeProposedAssignment(p, n) for p, n in proposed]
    )

    score, status = plugin.score_placement(CycleState(), PodGroupInfo("", ""), assignments)
    assert (score, status) == (want, None)
