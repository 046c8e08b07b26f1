"""RequestedToCapacityRatio scoring, ported from upstream's requested_to_capacity_ratio_test.go."""

from __future__ import annotations

import pytest

from framework.config.types import (
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
    make_node,
    make_pod,
    req_pod,
    score_nodes,
    snapshot,
)

DEFAULT_RESOURCES = [ResourceSpec("cpu", 1), ResourceSpec("memory", 1)]
MEMORY = str(10000 * 1024 * 1024)


def fit(resources: list[ResourceSpec], *shape: tuple[int, int]) -> Fit:
    ratio = RequestedToCapacityRatioParam([UtilizationShapePoint(u, s) for u, s in shape])
    strategy = ScoringStrategy(
        type=REQUESTED_TO_CAPACITY_RATIO, resources=resources, requested_to_capacity_ratio=ratio
    )
    return Fit(NodeResourcesFitArgs(scoring_strategy=strategy), None, Features())


def cap(cpu: str, memory: str, **extra: str) -> dict[str, str]:
    return {"cpu": cpu, "memory": memory, **extra}


SMALL_NODES = [make_node("node1", cap("4000", "10000")), make_node("node2", cap("6000", "10000"))]

DEFAULT_SHAPE_CASES = [
    (
        "nothing scheduled, nothing requested (default - least requested nodes have priority)",
        make_pod(),
        [make_node("node1", cap("4000", "10000")), make_node("node2", cap("4000", "10000"))],
        [make_pod(node_name="node1"), make_pod(node_name="node1")],
        [("node1", 100), ("node2", 100)],
    ),
    (
        "nothing scheduled, resources requested, differently sized nodes (default - least "
        "requested nodes have priority)",
        req_pod(cap("1000", "2000"), cap("2000", "3000")),
        SMALL_NODES,
        [make_pod(node_name="node1"), make_pod(node_name="node1")],
        [("node1", 38), ("node2", 50)],
    ),
    (
        "no resources requested, pods scheduled with resources (default - least requested "
        "nodes have priority)",
        make_pod(),
        SMALL_NODES,
        [
            req_pod(cap("3000", "5000"), node_name="node1"),
            req_pod(cap("3000", "5000"), node_name="node2"),
        ],
        [("node1", 38), ("node2", 50)],
    ),
]


@pytest.mark.parametrize(
    ("pod", "nodes", "existing", "want"),
    [case[1:] for case in DEFAULT_SHAPE_CASES],
    ids=[case[0] for case in DEFAULT_SHAPE_CASES],
)
def test_it_scores_utilization_through_a_decreasing_shape(pod, nodes, existing, want):
    plugin = fit(DEFAULT_RESOURCES, (0, 10), (100, 0))

    assert score_nodes(plugin, pod, snapshot(existing, nodes)) == want


FOO, BAR = "intel.com/foo", "intel.com/bar"

SINGLE_EXTENDED_NODES = [
    make_node("node1", cap("4000m", MEMORY, **{FOO: "8"})),
    make_node("node2", cap("4000m", MEMORY, **{FOO: "4"})),
]

SINGLE_EXTENDED_CASES = [
    ("nothing scheduled, nothing requested", make_pod(), [], [("node1", 0), ("node2", 0)]),
    (
        "resources requested, pods scheduled with less resources",
        req_pod({FOO: "2"}),
        [make_pod()],
        [("node1", 2), ("node2", 5)],
    ),
    (
        "resources requested, pods scheduled with resources, on node with existing pod running",
        req_pod({FOO: "2"}),
        [req_pod({FOO: "2"}, node_name="node2")],
        [("node1", 2), ("node2", 10)],
    ),
    (
        "resources requested, pods scheduled with more resources",
        req_pod({FOO: "4"}),
        [make_pod()],
        [("node1", 5), ("node2", 10)],
    ),
]


@pytest.mark.parametrize(
    ("pod", "existing", "want"),
    [case[1:] for case in SINGLE_EXTENDED_CASES],
    ids=[case[0] for case in SINGLE_EXTENDED_CASES],
)
def test_it_bin_packs_one_extended_resource(pod, existing, want):
    plugin = fit([ResourceSpec(FOO, 1)], (0, 0), (100, 1))

    assert score_nodes(plugin, pod, snapshot(existing, SINGLE_EXTENDED_NODES)) == want


MULTIPLE_EXTENDED_NODES = [
    make_node("node1", cap("4000m", MEMORY, **{FOO: "8", BAR: "4"})),
    make_node("node2", cap("4000m", MEMORY, **{FOO: "4", BAR: "8"})),
]

MULTIPLE_EXTENDED_CASES = [
    ("nothing scheduled, nothing requested", make_pod(), [], [("node1", 0), ("node2", 0)]),
    (
        "resources requested, pods scheduled with less resources",
        req_pod({FOO: "2", BAR: "2"}),
        [make_pod()],
        [("node1", 4), ("node2", 3)],
    ),
    (
        "resources requested, pods scheduled with resources, on node with existing pod running",
        req_pod({FOO: "2", BAR: "2"}),
        [req_pod({FOO: "4", BAR: "2"}, node_name="node2")],
        [("node1", 4), ("node2", 7)],
    ),
    (
        "resources requested, pods scheduled with more resources",
        req_pod({FOO: "4", BAR: "2"}),
        [make_pod()],
        [("node1", 5), ("node2", 5)],
    ),
]


@pytest.mark.parametrize(
    ("pod", "existing", "want"),
    [case[1:] for case in MULTIPLE_EXTENDED_CASES],
    ids=[case[0] for case in MULTIPLE_EXTENDED_CASES],
)
def test_it_bin_packs_several_weighted_extended_resources(pod, existing, want):
    plugin = fit([ResourceSpec(FOO, 3), ResourceSpec(BAR, 5)], (0, 0), (100, 1))

    assert score_nodes(plugin, pod, snapshot(existing, MULTIPLE_EXTENDED_NODES)) == want


def test_it_rounds_a_weighted_mean_ending_in_a_half_away_from_zero():
    # With shape (0, 0) -> (100, 10) a resource scores its utilization: foo 1/4 scores 25,
    # bar 7/25 scores 28, and (25 + 28) / 2 = 26.5 becomes 27 as in Go (Python's round()
    # would give 26).
    plugin = fit([ResourceSpec(FOO, 1), ResourceSpec(BAR, 1)], (0, 0), (100, 10))
    node = make_node("node1", {FOO: "4", BAR: "25"})

    scores = score_nodes(plugin, req_pod({FOO: "1", BAR: "7"}), snapshot([], [node]))

    assert scores == [("node1", 27)]
