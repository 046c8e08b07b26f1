"""LeastAllocated scoring, ported from upstream's least_allocated_test.go."""

from __future__ import annotations

import pytest

from framework.config.types import (
    LEAST_ALLOCATED,
    NodeResourcesFitArgs,
    ResourceSpec,
    ScoringStrategy,
)
from framework.interface.cycle_state import CycleState
from framework.interface.status import Code
from framework.plugins.feature import Features
from framework.plugins.noderesources.fit import Fit
from tests.framework.plugins.noderesources.builders import (
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
    strategy = ScoringStrategy(type=LEAST_ALLOCATED, resources=resources)
    return Fit(NodeResourcesFitArgs(scoring_strategy=strategy), None, Features())


TWO_CONTAINERS = req_pod(cap("1000", "2000"), cap("2000", "3000"))

CASES = [
    (
        "nothing scheduled, nothing requested",
        make_pod(),
        [make_node("node1", cap("4000", "10000")), make_node("node2", cap("4000", "10000"))],
        [],
        DEFAULT_RESOURCES,
        [("node1", 100), ("node2", 100)],
    ),
    (
        "nothing scheduled, resources requested, differently sized nodes",
        TWO_CONTAINERS,
        [make_node("node1", cap("4000", "10000")), make_node("node2", cap("6000", "10000"))],
        [],
        DEFAULT_RESOURCES,
        [("node1", 37), ("node2", 50)],
    ),
    (
        "no resources requested, pods scheduled",
        make_pod(),
        [make_node("node1", cap("4000", "10000")), make_node("node2", cap("4000", "10000"))],
        [
            make_pod(node_name="node1"),
            make_pod(node_name="node1"),
            make_pod(node_name="node2"),
            make_pod(node_name="node2"),
        ],
        DEFAULT_RESOURCES,
        [("node1", 100), ("node2", 100)],
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
        [("node1", 70), ("node2", 57)],
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
        [("node1", 57), ("node2", 45)],
    ),
    (
        "resources requested, pods scheduled with resources, differently sized nodes",
        TWO_CONTAINERS,
        [make_node("node1", cap("10000", "20000")), make_node("node2", cap("10000", "50000"))],
        [
            req_pod(cap("3000", "0"), node_name="node1"),
            req_pod(cap("3000", "5000"), node_name="node2"),
        ],
        DEFAULT_RESOURCES,
        [("node1", 57), ("node2", 60)],
    ),
    (
        "requested resources exceed node capacity",
        req_pod(cap("3000", "0")),
        [make_node("node1", cap("4000", "10000")), make_node("node2", cap("4000", "10000"))],
        [
            req_pod(cap("3000", "0"), node_name="node1"),
            req_pod(cap("3000", "5000"), node_name="node2"),
        ],
        DEFAULT_RESOURCES,
        [("node1", 50), ("node2", 25)],
    ),
    (
        "zero node resources, pods scheduled with resources",
        make_pod(),
        [make_node("node1"), make_node("node2")],
        [
            req_pod(cap("3000", "0"), node_name="node1"),
            req_pod(cap("3000", "5000"), node_name="node2"),
        ],
        DEFAULT_RESOURCES,
        [("node1", 0), ("node2", 0)],
    ),
    (
        "nothing scheduled, resources requested with different weight on CPU and memory, "
        "differently sized nodes",
        req_pod(cap("1000", "2000"), cap("2000", "3000"), node_name="node1"),
        [make_node("node1", cap("4000", "10000")), make_node("node2", cap("6000", "10000"))],
        [],
        [ResourceSpec("memory", 2), ResourceSpec("cpu", 1)],
        [("node1", 41), ("node2", 50)],
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
        "honor extended resource if the pod requests",
        req_pod(cap("3000", "5000", **{EXTENDED_RES: "2"})),
        [
            make_node("node1", cap("6000", "10000", **{EXTENDED_RES: "4"})),
            make_node("node2", cap("6000", "10000", **{EXTENDED_RES: "10"})),
        ],
        [],
        EXTENDED_RESOURCE_SET,
        [("node1", 50), ("node2", 60)],
    ),
    (
        "if the node doesn't have a resource",
        req_pod(cap("3000", "4000")),
        [
            make_node("node1", cap("6000", "10000")),
            make_node("node2", cap("6000", "10000", **{EXTENDED_RES: "4"})),
        ],
        [],
        [ResourceSpec(EXTENDED_RES, 2), *DEFAULT_RESOURCES],
        [("node1", 55), ("node2", 55)],
    ),
]


@pytest.mark.parametrize(
    ("pod", "nodes", "existing", "resources", "want"),
    [case[1:] for case in CASES],
    ids=[case[0] for case in CASES],
)
def test_it_favours_nodes_with_the_most_room_left(pod, nodes, existing, resources, want):
    assert score_nodes(fit(resources), pod, snapshot(existing, nodes)) == want


def test_it_reports_an_error_when_no_resources_are_configured():
    plugin = fit([])
    state = CycleState()
    node_infos = snapshot([], [make_node("node1", cap("4000", "10000"))])
    plugin.pre_score(state, TWO_CONTAINERS, node_infos)

    score, status = plugin.score(state, TWO_CONTAINERS, node_infos[0])

    assert (score, status.code, status.message()) == (0, Code.ERROR, "resources not found")


WEIGHT_ERRORS = [
    (
        "resource with negative weight",
        [ResourceSpec("memory", -1), ResourceSpec("cpu", 1)],
        "scoringStrategy.resources[0].weight: Invalid value: -1: resource weight of memory not "
        "in valid range (0, 100]",
    ),
    (
        "resource with zero weight",
        [ResourceSpec("memory", 1), ResourceSpec("cpu", 0)],
        "scoringStrategy.resources[1].weight: Invalid value: 0: resource weight of cpu not in "
        "valid range (0, 100]",
    ),
    (
        "resource weight larger than MaxNodeScore",
        [ResourceSpec("memory", 1), ResourceSpec("cpu", 101)],
        "scoringStrategy.resources[1].weight: Invalid value: 101: resource weight of cpu not in "
        "valid range (0, 100]",
    ),
]


@pytest.mark.parametrize(
    ("resources", "message"),
    [case[1:] for case in WEIGHT_ERRORS],
    ids=[case[0] for case in WEIGHT_ERRORS],
)
def test_it_refuses_resource_weights_outside_one_to_a_hundred(resources, message):
    with pytest.raises(ValueError) as raised:
        fit(resources)

    assert str(raised.value) == message
