"""MostAllocated scoring, ported from upstream's most_allocated_test.go."""

from __future__ import annotations

import pytest

from framework.config.types import (
    MOST_ALLOCATED,
    NodeResourcesFitArgs,
    ResourceSpec,
    ScoringStrategy,
)
from framework.plugins.feature import Features
from framework.plugins.noderesources.fit import Fit
from tests.framework.plugins.noderesources.builders import (
    container,
    make_node,
    make_pod,
    req_pod,
    score_nodes,
    snapshot,
)

EXTENDED_RES = "abc.com/xyz"
DEFAULT_RESOURCES = [ResourceSpec("cpu", 1), ResourceSpec("memory", 1)]
EXTENDED_RESOURCE_SET = [*DEFAULT_RESOURCES, ResourceSpec(EXTENDED_RES, 1)]


def cap(cpu: str, memory: str, **extra: str) -> dict[str, str]:
    return {"cpu": cpu, "memory": memory, **extra}


def fit(resources: list[ResourceSpec]) -> Fit:
    strategy = ScoringStrategy(type=MOST_ALLOCATED, resources=resources)
    return Fit(NodeResourcesFitArgs(scoring_strategy=strategy), None, Features())


TWO_CONTAINERS = req_pod(cap("1000", "2000"), cap("2000", "3000"))

CASES = [
    (
        "nothing scheduled, nothing requested",
        make_pod(),
        [make_node("node1", cap("4000", "10000")), make_node("node2", cap("4000", "10000"))],
        [],
        DEFAULT_RESOURCES,
        [("node1", 0), ("node2", 0)],
    ),
    (
        "nothing scheduled, resources requested, differently sized nodes",
        TWO_CONTAINERS,
        [make_node("node1", cap("4000", "10000")), make_node("node2", cap("6000", "10000"))],
        [],
        DEFAULT_RESOURCES,
        [("node1", 62), ("node2", 50)],
    ),
    (
        "no resources requested, pods scheduled with resources",
        make_pod(),
        [make_node("node1", cap("10000", "20000")), make_node("node2", cap("10000", "20000"))],
        [
            req_pod(cap("3000", "0"), node_name="node1"),
            req_pod(cap("3000", "0"), node_name="node1"),
            req_pod(cap("3000", "0"), node_name="node2"),
            req_pod(cap("3000", "5000"), node_name="node2"),
        ],
        DEFAULT_RESOURCES,
        [("node1", 30), ("node2", 42)],
    ),
    (
        "resources requested, pods scheduled with resources",
        TWO_CONTAINERS,
        [make_node("node1", cap("10000", "20000")), make_node("node2", cap("10000", "20000"))],
        [
            req_pod(cap("3000", "0"), node_name="node1"),
            req_pod(cap("3000", "5000"), node_name="node2"),
        ],
        DEFAULT_RESOURCES,
        [("node1", 42), ("node2", 55)],
    ),
    (
        "resources requested equal node capacity",
        req_pod(cap("2000", "4000"), cap("3000", "5000")),
        [make_node("node1", cap("5000", "10000")), make_node("node2", cap("10000", "9000"))],
        [],
        DEFAULT_RESOURCES,
        [("node1", 95), ("node2", 75)],
    ),
    (
        "nothing scheduled, resources requested with different weight on CPU and memory, "
        "differently sized nodes",
        TWO_CONTAINERS,
        [make_node("node1", cap("4000", "10000")), make_node("node2", cap("6000", "10000"))],
        [],
        [ResourceSpec("memory", 2), ResourceSpec("cpu", 1)],
        [("node1", 58), ("node2", 50)],
    ),
    (
        "no resources requested, pods scheduled, nonzero request for resource",
        make_pod(containers=[container(name="container")]),
        [make_node("node1", cap("250m", "1000Mi")), make_node("node2", cap("250m", "1000Mi"))],
        [
            make_pod(node_name="node1", containers=[container(name="container")]),
            make_pod(node_name="node1", containers=[container(name="container")]),
        ],
        DEFAULT_RESOURCES,
        [("node1", 80), ("node2", 30)],
    ),
    (
        "bypass extended resource if the pod does not request",
        TWO_CONTAINERS,
        [
            make_node("node1", cap("6000", "10000")),
            make_node("node2", cap("6000", "10000", **{EXTENDED_RES: "4"})),
        ],
        [],
        EXTENDED_RESOURCE_SET,
        [("node1", 50), ("node2", 50)],
    ),
    (
        "honor extended resource if the pod request",
        req_pod(cap("3000", "5000", **{EXTENDED_RES: "2"}), node_name="node1"),
        [
            make_node("node1", cap("6000", "10000", **{EXTENDED_RES: "4"})),
            make_node("node2", cap("6000", "10000", **{EXTENDED_RES: "10"})),
        ],
        [],
        EXTENDED_RESOURCE_SET,
        [("node1", 50), ("node2", 40)],
    ),
    (
        "if the node doesn't have a resource",
        req_pod(cap("3000", "4000"), node_name="node1"),
        [
            make_node("node1", cap("6000", "10000")),
            make_node("node2", cap("6000", "10000", **{EXTENDED_RES: "4"})),
        ],
        [],
        [ResourceSpec(EXTENDED_RES, 2), *DEFAULT_RESOURCES],
        [("node1", 45), ("node2", 45)],
    ),
]


@pytest.mark.parametrize(
    ("pod", "nodes", "existing", "resources", "want"),
    [case[1:] for case in CASES],
    ids=[case[0] for case in CASES],
)
def test_it_favours_the_busiest_nodes(pod, nodes, existing, resources, want):
    assert score_nodes(fit(resources), pod, snapshot(existing, nodes)) == want


def test_it_refuses_a_weight_above_a_hundred():
    with pytest.raises(ValueError, match=r"scoringStrategy\.resources\[0\]\.weight"):
        fit([ResourceSpec("memory", 101)])
