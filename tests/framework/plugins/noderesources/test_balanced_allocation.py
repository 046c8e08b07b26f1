"""NodeResourcesBalancedAllocation, ported from upstream's balanced_allocation_test.go (v1.36)."""

from __future__ import annotations

import pytest

from framework.api.pod import Pod
from framework.config.types import NodeResourcesBalancedAllocationArgs, ResourceSpec
from framework.interface.cycle_state import CycleState
from framework.interface.status import Code
from framework.plugins.feature import Features
from framework.plugins.noderesources.balanced_allocation import (
    BalancedAllocation,
    balanced_resource_score,
    balanced_resource_scorer,
)
from tests.framework.plugins.noderesources.builders import (
    make_node,
    make_pod,
    req_pod,
    score_nodes,
    snapshot,
)

DEFAULT_SET = [ResourceSpec("cpu", 1), ResourceSpec("memory", 1)]
GPU = "nvidia.com/gpu"
WITH_GPU = [*DEFAULT_SET, ResourceSpec(GPU, 1)]


def plugin(resources: list[ResourceSpec] = DEFAULT_SET, **features: bool) -> BalancedAllocation:
    args = NodeResourcesBalancedAllocationArgs(resources=list(resources))
    return BalancedAllocation(args, None, Features(**features))


def node(name: str, milli_cpu: int, memory: int, gpus: int | None = None):
    """Upstream's util_test ``makeNode``."""
    capacity = {"cpu": f"{milli_cpu}m", "memory": str(memory)}
    if gpus is not None:
        capacity[GPU] = str(gpus)
    return make_node(name, capacity)


def cpu(amount: str) -> dict[str, str]:
    return {"cpu": amount}


def cpu_mem(cpu_amount: str, memory: str, gpu: str | None = None) -> dict[str, str]:
    requests = {"cpu": cpu_amount, "memory": memory}
    if gpu is not None:
        requests[GPU] = gpu
    return requests


REQUESTED = req_pod(cpu_mem("1000m", "2000"), cpu_mem("2000m", "3000"))
CPU_ONLY_PODS = [cpu("1000m"), cpu("2000m")]
CPU_MEM_PODS = [cpu_mem("1000m", "2000"), cpu_mem("2000m", "3000")]

CASES = [
    (
        # node1: CPU 0 -> 75%, memory 0 -> 50%: 100 -> 87. node2: 50% and 50%: 100 -> 100.
        "nothing scheduled, resources requested, differently sized nodes",
        REQUESTED,
        [node("node1", 4000, 10000), node("node2", 6000, 10000)],
        [],
        DEFAULT_SET,
        True,
        [("node1", 68), ("node2", 75)],
    ),
    (
        # node1: CPU 30% -> 60%, memory 0 -> 25%: 85 -> 82.
        # node2: CPU 30% -> 60%, memory 25% -> 50%: 97 -> 95.
        "resources requested, pods scheduled with resources",
        REQUESTED,
        [node("node1", 10000, 20000), node("node2", 10000, 20000)],
        [req_pod(*CPU_ONLY_PODS, node_name="node1"), req_pod(*CPU_MEM_PODS, node_name="node2")],
        DEFAULT_SET,
        True,
        [("node1", 73), ("node2", 74)],
    ),
    (
        "resources requested, pods scheduled with resources, differently sized nodes",
        REQUESTED,
        [node("node1", 10000, 20000), node("node2", 10000, 50000)],
        [req_pod(*CPU_ONLY_PODS, node_name="node1"), req_pod(*CPU_MEM_PODS, node_name="node2")],
        DEFAULT_SET,
        True,
        [("node1", 73), ("node2", 70)],
    ),
    (
        "resources requested, pods scheduled with resources, nodes to reach min/max score",
        req_pod({"memory": "2000"}, {"memory": "3000"}),
        [node("node1", 3000, 5000), node("node2", 3000, 5000)],
        [req_pod(*CPU_ONLY_PODS, node_name="node1")],
        DEFAULT_SET,
        True,
        [("node1", 100), ("node2", 50)],
    ),
    (
        "requested resources at node capacity",
        req_pod(*CPU_ONLY_PODS),
        [node("node1", 6000, 10000), node("node2", 6000, 10000)],
        [req_pod(*CPU_ONLY_PODS, node_name="node1"), req_pod(*CPU_MEM_PODS, node_name="node2")],
        DEFAULT_SET,
        True,
        [("node1", 62), ("node2", 62)],
    ),
    (
        "scalar resource is included in the score computation if pod requests the scalar resource",
        req_pod(cpu_mem("0", "0", "1")),
        [node("node1", 3500, 40000, gpus=8), node("node2", 3500, 40000, gpus=8)],
        [
            req_pod(cpu_mem("1000m", "2000"), cpu_mem("2000m", "3000", "3"), node_name="node1"),
            req_pod(*CPU_MEM_PODS, node_name="node2"),
        ],
        WITH_GPU,
        True,
        [("node1", 75), ("node2", 76)],
    ),
    (
        "scalar resource is not included in the score computation if pod doesn't request the "
        "scalar resource",
        REQUESTED,
        [node("node1", 3500, 40000, gpus=8), node("node2", 3500, 40000)],
        [],
        WITH_GPU,
        True,
        [("node1", 56), ("node2", 56)],
    ),
    (
        "resources requested, pods scheduled with resources if PreScore not called",
        REQUESTED,
        [node("node1", 10000, 20000), node("node2", 10000, 20000)],
        [req_pod(*CPU_ONLY_PODS, node_name="node1"), req_pod(*CPU_MEM_PODS, node_name="node2")],
        DEFAULT_SET,
        False,
        [("node1", 73), ("node2", 74)],
    ),
]


@pytest.mark.parametrize(
    ("pod", "nodes", "existing", "resources", "pre_score", "want"),
    [case[1:] for case in CASES],
    ids=[case[0] for case in CASES],
)
def test_it_rewards_nodes_whose_balance_the_pod_improves(
    pod, nodes, existing, resources, pre_score, want
):
    scores = score_nodes(plugin(resources), pod, snapshot(existing, nodes), pre_score=pre_score)

    assert scores == want


def test_it_skips_scoring_pods_that_request_nothing():
    node_infos = snapshot([], [node("node1", 4000, 10000), node("node2", 4000, 10000)])

    status = plugin().pre_score(CycleState(), make_pod(), node_infos)

    assert status is not None and status.code == Code.SKIP


def test_it_scores_a_best_effort_pod_zero_when_pre_score_did_not_run():
    node_infos = snapshot([], [node("node1", 4000, 10000)])

    assert score_nodes(plugin(), make_pod(), node_infos, pre_score=False) == [("node1", 0)]


def test_it_reads_in_place_resize_status_of_the_incoming_pod():
    # The container asks for 2 CPUs but runs with 3 while a resize is pending: the larger
    # counts (the Fit plugin's scores would not read the status at all).
    resized = Pod.from_dict(
        {
            "metadata": {"name": "resized"},
            "spec": {
                "containers": [
                    {"name": "c", "resources": {"requests": {"cpu": "2", "memory": "1000"}}}
                ]
            },
            "status": {
                "containerStatuses": [
                    {
                        "name": "c",
                        "allocatedResources": {"cpu": "3"},
                        "resources": {"requests": {"cpu": "3", "memory": "1000"}},
                    }
                ]
            },
        }
    )
    with_resize = plugin(enable_in_place_pod_vertical_scaling=True).scorer
    without_resize = plugin(enable_in_place_pod_vertical_scaling=False).scorer

    assert with_resize.calculate_pod_resource_request_list(resized) == [3000, 1000]
    assert without_resize.calculate_pod_resource_request_list(resized) == [2000, 1000]


FRACTION_CASES = [
    ("no resource counts as perfectly balanced", [], [], 100),
    ("one resource counts as perfectly balanced", [1], [4], 100),
    ("two resources use half their difference", [3000, 5000], [4000, 10000], 87),
    ("a fraction above one is capped", [8000, 0], [4000, 10000], 50),
    (
        "three resources use the population standard deviation",
        [3000, 5000, 4],
        [3500, 40000, 8],
        70,
    ),
]


@pytest.mark.parametrize(
    ("requested", "allocatable", "want"),
    [case[1:] for case in FRACTION_CASES],
    ids=[case[0] for case in FRACTION_CASES],
)
def test_it_scores_balance_as_one_minus_the_standard_deviation(requested, allocatable, want):
    assert balanced_resource_score(requested, allocatable) == want


def test_it_lands_at_75_when_the_pod_leaves_the_balance_unchanged():
    assert balanced_resource_scorer([2, 2], [1, 1], [4, 4]) == 75


def test_it_refuses_weights_other_than_one():
    args = NodeResourcesBalancedAllocationArgs(resources=[ResourceSpec("cpu", 2)])

    with pytest.raises(ValueError) as raised:
        BalancedAllocation(args, None, Features())

    assert str(raised.value) == "resources[0].weight: Invalid value: 2: must be 1"


def test_it_refuses_args_of_another_kind():
    with pytest.raises(ValueError) as raised:
        BalancedAllocation(None, None, Features())

    assert str(raised.value) == (
        "want args to be of type NodeResourcesBalancedAllocationArgs, got <nil>"
    )
