"""NodeResourcesFit scores per strategy, ported from upstream's TestFitScore table."""

from __future__ import annotations

import pytest

from framework.config.types import (
    LEAST_ALLOCATED,
    MOST_ALLOCATED,
    REQUESTED_TO_CAPACITY_RATIO,
    NodeResourcesFitArgs,
    RequestedToCapacityRatioParam,
    ResourceSpec,
    ScoringStrategy,
    UtilizationShapePoint,
)
from framework.plugins.feature import Features
from framework.plugins.noderesources.fit import Fit
from tests.framework.plugins.noderesources.builders import (
    container,
    make_node,
    make_pod,
    req_pod,
    score_nodes,
    sidecar,
    snapshot,
)

DEFAULT_RESOURCES = [ResourceSpec("cpu", 1), ResourceSpec("memory", 1)]


def strategy(kind: str, *shape: tuple[int, int]) -> ScoringStrategy:
    ratio = None
    if shape:
        points = [UtilizationShapePoint(u, s) for u, s in shape]
        ratio = RequestedToCapacityRatioParam(shape=points)
    return ScoringStrategy(
        type=kind, resources=list(DEFAULT_RESOURCES), requested_to_capacity_ratio=ratio
    )


def cpu_mem(cpu: str, memory: str) -> dict[str, str]:
    return {"cpu": cpu, "memory": memory}


NODES = [
    make_node("node1", cpu_mem("4000", "10000")),
    make_node("node2", cpu_mem("6000", "10000")),
]
EXISTING = [
    req_pod(cpu_mem("2000", "4000"), node_name="node1"),
    req_pod(cpu_mem("1000", "2000"), node_name="node2"),
]
SAME_NODES = [
    make_node("node1", cpu_mem("4000", "10000")),
    make_node("node2", cpu_mem("4000", "10000")),
]
WITH_SIDECAR = [
    make_pod(
        node_name="node1",
        containers=[container(cpu_mem("1000", "2000"))],
        init_containers=[sidecar(cpu_mem("1000", "2000"))],
    ),
    req_pod(cpu_mem("1000", "2000"), node_name="node2"),
]

RATIO_DECREASING = strategy(REQUESTED_TO_CAPACITY_RATIO, (0, 10), (100, 0))
RATIO_INCREASING = strategy(REQUESTED_TO_CAPACITY_RATIO, (0, 0), (100, 10))

CASES = [
    (
        "test case for ScoringStrategy RequestedToCapacityRatio case1",
        req_pod(cpu_mem("3000", "5000")),
        NODES,
        EXISTING,
        RATIO_DECREASING,
        True,
        [("node1", 10), ("node2", 32)],
    ),
    (
        "test case for ScoringStrategy RequestedToCapacityRatio case2",
        req_pod(cpu_mem("3000", "5000")),
        NODES,
        EXISTING,
        RATIO_INCREASING,
        True,
        [("node1", 95), ("node2", 68)],
    ),
    (
        "test case for ScoringStrategy MostAllocated",
        req_pod(cpu_mem("1000", "2000")),
        NODES,
        EXISTING,
        strategy(MOST_ALLOCATED),
        True,
        [("node1", 67), ("node2", 36)],
    ),
    (
        "test case for ScoringStrategy LeastAllocated",
        req_pod(cpu_mem("1000", "2000")),
        NODES,
        EXISTING,
        strategy(LEAST_ALLOCATED),
        True,
        [("node1", 32), ("node2", 63)],
    ),
    (
        "test case for ScoringStrategy RequestedToCapacityRatio case1 if PreScore is not called",
        req_pod(cpu_mem("3000", "5000")),
        NODES,
        EXISTING,
        RATIO_DECREASING,
        False,
        [("node1", 10), ("node2", 32)],
    ),
    (
        "test case for ScoringStrategy MostAllocated if PreScore is not called",
        req_pod(cpu_mem("1000", "2000")),
        NODES,
        EXISTING,
        strategy(MOST_ALLOCATED),
        False,
        [("node1", 67), ("node2", 36)],
    ),
    (
        "test case for ScoringStrategy LeastAllocated if PreScore is not called",
        req_pod(cpu_mem("1000", "2000")),
        NODES,
        EXISTING,
        strategy(LEAST_ALLOCATED),
        False,
        [("node1", 32), ("node2", 63)],
    ),
    (
        "test case for ScoringStrategy MostAllocated with sidecar container",
        req_pod(cpu_mem("1000", "2000")),
        SAME_NODES,
        WITH_SIDECAR,
        strategy(MOST_ALLOCATED),
        True,
        [("node1", 67), ("node2", 45)],
    ),
    (
        "test case for ScoringStrategy LeastAllocated with sidecar container",
        req_pod(cpu_mem("1000", "2000")),
        SAME_NODES,
        WITH_SIDECAR,
        strategy(LEAST_ALLOCATED),
        True,
        [("node1", 32), ("node2", 55)],
    ),
]


@pytest.mark.parametrize(
    ("pod", "nodes", "existing", "scoring", "pre_score", "want"),
    [case[1:] for case in CASES],
    ids=[case[0] for case in CASES],
)
def test_it_scores_nodes_with_the_configured_strategy(
    pod, nodes, existing, scoring, pre_score, want
):
    plugin = Fit(NodeResourcesFitArgs(scoring_strategy=scoring), None, Features())

    assert score_nodes(plugin, pod, snapshot(existing, nodes), pre_score=pre_score) == want


def test_it_ignores_pod_level_requests_when_scoring_as_upstream_does():
    # Upstream builds the strategy's scorer without the plugin's feature switches, so the
    # pod-level 3 CPUs do not count: only the container's 1 CPU does.
    pod = make_pod(
        containers=[container(cpu_mem("1000", "2000"))],
        pod_requests=cpu_mem("3000", "2000"),
    )
    features = Features(enable_pod_level_resources=True)
    plugin = Fit(NodeResourcesFitArgs(scoring_strategy=strategy(MOST_ALLOCATED)), None, features)

    assert score_nodes(plugin, pod, snapshot(EXISTING, NODES)) == [("node1", 67), ("node2", 36)]
