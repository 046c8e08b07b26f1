"""NodeTree: zone keys and the zone-interleaved node order, from upstream's node_tree tables."""

from __future__ import annotations

import pytest

from framework.api.node import Node
from framework.backend.cache.node_tree import (
    LABEL_FAILURE_DOMAIN_BETA_REGION,
    LABEL_FAILURE_DOMAIN_BETA_ZONE,
    LABEL_TOPOLOGY_REGION,
    LABEL_TOPOLOGY_ZONE,
    NodeTree,
    NodeTreeError,
    ZonesExhaustedError,
    get_zone_key,
)


def node(name: str, labels: dict[str, str] | None = None) -> Node:
    return Node.from_dict({"kind": "Node", "metadata": {"name": name, "labels": labels or {}}})


def region_zone(region: str, zone: str) -> dict[str, str]:
    return {LABEL_TOPOLOGY_REGION: region, LABEL_TOPOLOGY_ZONE: zone}


ALL_NODES = [
    node("node-0"),
    node("node-1", {LABEL_TOPOLOGY_REGION: "region-1"}),
    node("node-2", {LABEL_TOPOLOGY_ZONE: "zone-2"}),
    node("node-3", region_zone("region-1", "zone-2")),
    node("node-4", region_zone("region-1", "zone-2")),
    node("node-5", region_zone("region-1", "zone-3")),
    node("node-6", region_zone("region-2", "zone-2")),
    node("node-7", region_zone("region-2", "zone-2")),
    node("node-8", region_zone("region-2", "zone-2")),
    node(
        "node-9",
        {
            **region_zone("region-2", "zone-2"),
            LABEL_FAILURE_DOMAIN_BETA_REGION: "region-2",
            LABEL_FAILURE_DOMAIN_BETA_ZONE: "zone-2",
        },
    ),
    node(
        "node-10",
        {LABEL_FAILURE_DOMAIN_BETA_REGION: "region-2", LABEL_FAILURE_DOMAIN_BETA_ZONE: "zone-3"},
    ),
]


def assert_tree(tree: NodeTree, expected: dict[str, list[str]]) -> None:
    assert tree.tree == expected
    assert tree.num_nodes == sum(len(names) for names in expected.values())
    assert sorted(tree.zones) == sorted(expected)


@pytest.mark.parametrize(
    ("labels", "expected"),
    [
        ({}, ""),
        ({LABEL_TOPOLOGY_REGION: "r"}, "r:\x00:"),
        ({LABEL_TOPOLOGY_ZONE: "z"}, ":\x00:z"),
        ({LABEL_FAILURE_DOMAIN_BETA_REGION: "r", LABEL_FAILURE_DOMAIN_BETA_ZONE: "z"}, "r:\x00:z"),
        ({LABEL_TOPOLOGY_ZONE: "", LABEL_FAILURE_DOMAIN_BETA_ZONE: "z"}, ""),
    ],
    ids=[
        "a node without labels has the empty zone key",
        "a region alone makes a key",
        "a zone alone makes a key",
        "the deprecated beta labels are read when the stable ones are absent",
        "a present but empty stable label hides the beta label",
    ],
)
def test_it_builds_the_zone_key_from_region_and_zone(labels, expected):
    assert get_zone_key(node("n", labels)) == expected


@pytest.mark.parametrize(
    ("nodes_to_add", "expected"),
    [
        (ALL_NODES[:1], {"": ["node-0"]}),
        ([ALL_NODES[0], ALL_NODES[0]], {"": ["node-0"]}),
        (
            ALL_NODES[:4],
            {
                "": ["node-0"],
                "region-1:\x00:": ["node-1"],
                ":\x00:zone-2": ["node-2"],
                "region-1:\x00:zone-2": ["node-3"],
            },
        ),
        (
            ALL_NODES[:7],
            {
                "": ["node-0"],
                "region-1:\x00:": ["node-1"],
                ":\x00:zone-2": ["node-2"],
                "region-1:\x00:zone-2": ["node-3", "node-4"],
                "region-1:\x00:zone-3": ["node-5"],
                "region-2:\x00:zone-2": ["node-6"],
            },
        ),
        (
            ALL_NODES[9:],
            {"region-2:\x00:zone-2": ["node-9"], "region-2:\x00:zone-3": ["node-10"]},
        ),
    ],
    ids=[
        "single node no labels",
        "same node specified twice",
        "mix of nodes with and without proper labels",
        "mix of nodes with and without proper labels and some zones with multiple nodes",
        "nodes also using deprecated zone/region label",
    ],
)
def test_it_adds_nodes_to_their_zones(nodes_to_add, expected):
    tree = NodeTree()
    for n in nodes_to_add:
        tree.add_node(n)
    assert_tree(tree, expected)


@pytest.mark.parametrize(
    ("existing", "to_remove", "expected", "expect_error"),
    [
        (
            ALL_NODES[:7],
            ALL_NODES[:1],
            {
                "region-1:\x00:": ["node-1"],
                ":\x00:zone-2": ["node-2"],
                "region-1:\x00:zone-2": ["node-3", "node-4"],
                "region-1:\x00:zone-3": ["node-5"],
                "region-2:\x00:zone-2": ["node-6"],
            },
            False,
        ),
        (
            ALL_NODES[:7],
            ALL_NODES[1:4],
            {
                "": ["node-0"],
                "region-1:\x00:zone-2": ["node-4"],
                "region-1:\x00:zone-3": ["node-5"],
                "region-2:\x00:zone-2": ["node-6"],
            },
            False,
        ),
        (ALL_NODES[:7], ALL_NODES[:7], {}, False),
        ([], ALL_NODES[:5], {}, True),
    ],
    ids=[
        "remove a single node with no labels",
        "remove a few nodes including one from a zone with multiple nodes",
        "remove all nodes",
        "remove non-existing node",
    ],
)
def test_it_removes_nodes_and_empty_zones(existing, to_remove, expected, expect_error):
    tree = NodeTree(existing)
    for n in to_remove:
        if expect_error:
            with pytest.raises(NodeTreeError, match=f'node "{n.name}" in group .* was not found'):
                tree.remove_node(n)
        else:
            tree.remove_node(n)
    assert_tree(tree, expected)


@pytest.mark.parametrize(
    ("existing", "updated", "expected"),
    [
        (
            ALL_NODES[:7],
            node("node-0", region_zone("region-1", "zone-2")),
            {
                "region-1:\x00:": ["node-1"],
                ":\x00:zone-2": ["node-2"],
                "region-1:\x00:zone-2": ["node-3", "node-4", "node-0"],
                "region-1:\x00:zone-3": ["node-5"],
                "region-2:\x00:zone-2": ["node-6"],
            },
        ),
        (
            ALL_NODES[:1],
            node("node-0", region_zone("region-1", "zone-2")),
            {"region-1:\x00:zone-2": ["node-0"]},
        ),
        (
            ALL_NODES[:1],
            node("node-new", region_zone("region-1", "zone-2")),
            {"": ["node-0"], "region-1:\x00:zone-2": ["node-new"]},
        ),
    ],
    ids=[
        "update a node without label",
        "update the only existing node",
        "update non-existing node",
    ],
)
def test_it_moves_a_node_whose_zone_changed(existing, updated, expected):
    tree = NodeTree(existing)
    old = next((n for n in ALL_NODES if n.name == updated.name), node("nonexisting-node"))
    tree.update_node(old, updated)
    assert_tree(tree, expected)


@pytest.mark.parametrize(
    ("nodes_to_add", "expected"),
    [
        ([], []),
        (ALL_NODES[:1], ["node-0"]),
        (ALL_NODES[:4], ["node-0", "node-1", "node-2", "node-3"]),
        (
            ALL_NODES[:9],
            [
                "node-0",
                "node-1",
                "node-2",
                "node-3",
                "node-5",
                "node-6",
                "node-4",
                "node-7",
                "node-8",
            ],
        ),
    ],
    ids=["empty tree", "one node", "four nodes", "all nodes"],
)
def test_it_lists_nodes_round_robin_over_zones(nodes_to_add, expected):
    assert NodeTree(nodes_to_add).list() == expected


def test_it_fails_to_list_when_the_zones_hold_fewer_nodes_than_counted():
    tree = NodeTree(ALL_NODES[:9])
    tree.num_nodes += 1
    with pytest.raises(ZonesExhaustedError, match="all zones exhausted") as raised:
        tree.list()
    assert len(raised.value.partial) == 9


@pytest.mark.parametrize(
    ("to_add", "to_remove", "operations", "expected"),
    [
        (ALL_NODES[2:9], ALL_NODES[2:9], "add add add remove remove remove", []),
        (ALL_NODES[2:9], ALL_NODES[2:9], "add add add remove", ["node-3", "node-4"]),
        (ALL_NODES[2:9], ALL_NODES[2:9], "add add add remove remove remove add", ["node-5"]),
        (
            [*ALL_NODES[4:9], ALL_NODES[3]],
            [],
            "add add add add add add",
            ["node-4", "node-5", "node-6", "node-3", "node-7", "node-8"],
        ),
        (
            [*ALL_NODES[3:5], *ALL_NODES[6:8]],
            ALL_NODES[3:5],
            "add add remove add add remove",
            ["node-6", "node-7"],
        ),
    ],
    ids=[
        "add and remove all nodes",
        "add and remove some nodes",
        "remove three nodes",
        "add more nodes to an exhausted zone",
        "remove zone and add new",
    ],
)
def test_it_keeps_the_order_through_mixed_adds_and_removes(to_add, to_remove, operations, expected):
    tree = NodeTree()
    adds, removes = iter(to_add), iter(to_remove)
    for operation in operations.split():
        if operation == "add":
            tree.add_node(next(adds))
        else:
            tree.remove_node(next(removes))
    assert tree.list() == expected
