"""Snapshot on its own: new_snapshot for tests, its listers, and pods assumed in it only.

Tables from upstream's snapshot_test.go.
"""

from __future__ import annotations

import pytest

from framework.backend.cache.errors import CacheError, NodeInfoNotFoundError
from framework.backend.cache.snapshot import (
    create_image_existence_map,
    create_used_pvc_set,
    get_node_image_states,
    new_snapshot,
)
from framework.interface.node_info import ImageStateSummary, NodeInfo, PodInfo
from framework.interface.placement import Placement

from .helpers import MB, node, pod, pod_with_anti_affinity


@pytest.mark.parametrize(
    ("images", "existence", "expected"),
    [
        (
            {"gcr.io/10:v1": 10 * MB, "gcr.io/200:v1": 200 * MB},
            {"gcr.io/10:v1": {"node-0", "node-1"}, "gcr.io/200:v1": {"node-0"}},
            {
                "gcr.io/10:v1": ImageStateSummary(10 * MB, 2),
                "gcr.io/200:v1": ImageStateSummary(200 * MB, 1),
            },
        ),
        (
            None,
            {"gcr.io/10:v1": {"node-1"}, "gcr.io/200:v1": set()},
            {},
        ),
    ],
    ids=["a node with two images", "a node without images"],
)
def test_it_summarises_a_nodes_images_with_their_node_counts(images, existence, expected):
    assert get_node_image_states(node("node-0", images=images), existence) == expected


@pytest.mark.parametrize(
    ("nodes", "expected"),
    [
        (
            [
                node("node-0", images={"gcr.io/10:v1": 10 * MB}),
                node("node-1", images={"gcr.io/10:v1": 10 * MB, "gcr.io/200:v1": 200 * MB}),
            ],
            {"gcr.io/10:v1": {"node-0", "node-1"}, "gcr.io/200:v1": {"node-1"}},
        ),
        (
            [
                node("node-0"),
                node("node-1", images={"gcr.io/10:v1": 10 * MB, "gcr.io/200:v1": 200 * MB}),
            ],
            {"gcr.io/10:v1": {"node-1"}, "gcr.io/200:v1": {"node-1"}},
        ),
    ],
    ids=["two nodes sharing an image", "one node without images"],
)
def test_it_maps_each_image_to_the_nodes_that_have_it(nodes, expected):
    assert create_image_existence_map(nodes) == expected


def pvc_volume(claim: str) -> list[dict]:
    return [{"name": "v", "persistentVolumeClaim": {"claimName": claim}}]


@pytest.mark.parametrize(
    ("pods", "expected"),
    [
        ([], set()),
        ([pod("foo", namespace="foo"), pod("bar", namespace="bar")], set()),
        (
            [pod("foo", "node-1", namespace="foo"), pod("bar", "node-2", namespace="bar")],
            set(),
        ),
        (
            [
                pod("foo", "node-1", namespace="foo", volumes=pvc_volume("pvc1")),
                pod("bar", "node-2", namespace="bar", volumes=pvc_volume("pvc2")),
            ],
            {"foo/pvc1", "bar/pvc2"},
        ),
    ],
    ids=[
        "empty pods list",
        "pods not scheduled",
        "scheduled pods that do not use any PVC",
        "scheduled pods that use PVC",
    ],
)
def test_it_collects_the_pvcs_of_scheduled_pods(pods, expected):
    assert create_used_pvc_set(pods) == expected


def required_affinity(key: str, value: str, anti: bool = False) -> dict:
    term = {"labelSelector": {"matchLabels": {key: value}}, "topologyKey": key}
    kind = "podAntiAffinity" if anti else "podAffinity"
    return {kind: {"requiredDuringSchedulingIgnoredDuringExecution": [term]}}


PLAIN_POD = pod("foo", "node-1", namespace="ns")
POD_WITH_PORT = pod(
    "foo",
    "node-0",
    namespace="foo",
    containers=[{"name": "c", "image": "i", "ports": [{"containerPort": 0, "hostPort": 8080}]}],
)
POD_WITH_ANTI_AFFINITY = pod(
    "baz", "node-0", namespace="ns", affinity=required_affinity("another", "label", anti=True)
)
PODS_WITH_AFFINITY = [
    pod("bar", "node-2", namespace="ns", affinity=required_affinity("baz", "qux")),
    pod("bar", "node-0", namespace="ns", affinity=required_affinity("key", "value")),
]
PODS_WITH_PVCS = [
    pod("foo", "node-0", namespace="foo", volumes=pvc_volume("pvc0")),
    pod("bar", "node-1", namespace="bar", volumes=pvc_volume("pvc1")),
    pod("baz", "node-2", namespace="baz", volumes=pvc_volume("pvc2")),
]


@pytest.mark.parametrize(
    ("pods", "nodes", "expected_pods", "with_affinity", "with_anti_affinity", "used_pvcs"),
    [
        ([], [], [], 0, 0, set()),
        ([POD_WITH_PORT], [node("node-0")], [[POD_WITH_PORT]], 0, 0, set()),
        (
            PODS_WITH_PVCS,
            [node("node-0"), node("node-1"), node("node-2")],
            [[p] for p in PODS_WITH_PVCS],
            0,
            0,
            {"foo/pvc0", "bar/pvc1", "baz/pvc2"},
        ),
        (
            [PLAIN_POD, PODS_WITH_AFFINITY[0]],
            [node("node-0"), node("node-1"), node("node-2", labels={"baz": "qux"})],
            [[], [PLAIN_POD], [PODS_WITH_AFFINITY[0]]],
            1,
            0,
            set(),
        ),
        (
            [PODS_WITH_AFFINITY[1], POD_WITH_ANTI_AFFINITY],
            [node("node-0", labels={"key": "value"}), node("node-1", labels={"another": "label"})],
            [[PODS_WITH_AFFINITY[1], POD_WITH_ANTI_AFFINITY], []],
            1,
            1,
            set(),
        ),
    ],
    ids=[
        "no pods no nodes",
        "single pod single node",
        "multiple nodes, pods with PVCs",
        "multiple nodes, pod with affinity",
        "multiple nodes, pod with affinity, pod with anti-affinity",
    ],
)
def test_it_builds_a_snapshot_from_pods_and_nodes(
    pods, nodes, expected_pods, with_affinity, with_anti_affinity, used_pvcs
):
    snapshot = new_snapshot(pods, nodes)

    assert snapshot.num_nodes_in_placement() == len(nodes)
    for n, want in zip(nodes, expected_pods, strict=True):
        assert [p.pod for p in snapshot.get(n.name).pods] == want
    assert len(snapshot.have_pods_with_affinity_list()) == with_affinity
    assert len(snapshot.have_pods_with_required_anti_affinity_list()) == with_anti_affinity
    assert snapshot.used_pvc_set == used_pvcs
    for key in used_pvcs:
        assert snapshot.is_pvc_used_by_pods(key)


def test_it_parses_the_affinity_terms_of_snapshot_pods():
    snapshot = new_snapshot(
        [PODS_WITH_AFFINITY[1], POD_WITH_ANTI_AFFINITY],
        [node("node-0", labels={"key": "value"})],
    )
    affinity, anti_affinity = snapshot.get("node-0").pods
    (term,) = affinity.required_affinity_terms
    assert (term.namespaces, term.topology_key) == (frozenset({"ns"}), "key")
    assert term.selector.matches({"key": "value"})
    assert not term.namespace_selector.matches({})
    (anti_term,) = anti_affinity.required_anti_affinity_terms
    assert (anti_term.namespaces, anti_term.topology_key) == (frozenset({"ns"}), "another")


def test_it_lists_snapshot_nodes_in_the_order_given():
    nodes = [node(name) for name in ("c", "a", "b")]
    snapshot = new_snapshot([pod("p", "b")], nodes)
    assert [n.node_name for n in snapshot.node_infos().list()] == ["c", "a", "b"]


def test_it_lists_a_node_info_for_pods_whose_node_is_unknown_as_upstream():
    snapshot = new_snapshot([pod("p", "missing")], [node("n")])
    assert [n.node_name for n in snapshot.list()] == ["n", ""]
    with pytest.raises(NodeInfoNotFoundError):
        snapshot.get("missing")


def test_it_gives_image_summaries_counted_over_all_nodes():
    snapshot = new_snapshot(
        [], [node("a", images={"img": 5}), node("b", images={"img": 5, "other": 7})]
    )
    assert snapshot.get("a").image_states == {"img": ImageStateSummary(5, 2)}
    assert snapshot.get("b").image_states["other"] == ImageStateSummary(7, 1)


def test_it_serves_every_node_when_no_placement_is_set():
    snapshot = new_snapshot([], [node("n1"), node("n2")])
    assert snapshot.list_nodes_in_placement() is snapshot.list()
    assert snapshot.get_node_in_placement("n2") is snapshot.get("n2")


NODE_1, NODE_2 = node("node-1"), node("node-2")
POD_1 = pod("pod-1", "node-1")
POD_2 = pod("pod-2", "node-1")
POD_3 = pod("pod-3", "node-2")
POD_ON_WRONG_NODE = pod("pod-x", "node-x")


@pytest.mark.parametrize(
    ("nodes", "to_assume", "to_forget", "forget_all", "expected"),
    [
        (
            [NODE_1, NODE_2],
            [POD_2, POD_3],
            [],
            False,
            {"node-1": {"pod-1", "pod-2"}, "node-2": {"pod-3"}},
        ),
        ([NODE_1], [POD_ON_WRONG_NODE], [], False, {"node-1": {"pod-1"}}),
        (
            [NODE_1, NODE_2],
            [POD_2, POD_3],
            [POD_2],
            False,
            {"node-1": {"pod-1"}, "node-2": {"pod-3"}},
        ),
        ([NODE_1, NODE_2], [POD_2, POD_3], [], True, {"node-1": {"pod-1"}, "node-2": set()}),
    ],
    ids=[
        "assume a pod successfully",
        "assume a pod on a non-existing node",
        "forget a pod successfully",
        "forget all assumed pods",
    ],
)
def test_it_assumes_and_forgets_pods_in_the_snapshot_only(
    nodes, to_assume, to_forget, forget_all, expected
):
    snapshot = new_snapshot([POD_1], nodes)
    generations = {n.name: snapshot.get(n.name).generation for n in nodes}
    for p in to_assume:
        snapshot.assume_pod(PodInfo(p))
    if forget_all:
        snapshot.forget_all_assumed_pods()
        assert snapshot.assumed_pods == {}
    for p in to_forget:
        snapshot.forget_pod(p)

    listed = {info.node_name: info for info in snapshot.list()}
    for name, pod_names in expected.items():
        info = snapshot.get(name)
        assert {p.pod.name for p in info.pods} == pod_names
        assert listed[name] is info
        assert info.generation == generations[name]


def test_it_refuses_to_forget_a_pod_not_assumed_in_the_snapshot():
    snapshot = new_snapshot([POD_1], [NODE_1, NODE_2])
    with pytest.raises(CacheError) as raised:
        snapshot.forget_pod(POD_2)
    assert str(raised.value) == 'assumed pod "pod-2" not found in the snapshot'


def test_it_drops_the_node_info_of_a_forgotten_pod_on_an_unknown_node():
    snapshot = new_snapshot([], [NODE_1])
    snapshot.assume_pod(PodInfo(POD_ON_WRONG_NODE))
    assert "node-x" in snapshot.node_info_map
    snapshot.forget_pod(POD_ON_WRONG_NODE)
    assert "node-x" not in snapshot.node_info_map


def test_it_implements_the_shared_lister_protocols():
    snapshot = new_snapshot([pod_with_anti_affinity("a", "n")], [node("n")])
    assert snapshot.node_infos() is snapshot
    assert snapshot.storage_infos() is snapshot
    assert snapshot.node_infos().have_pods_with_required_anti_affinity_list() == [snapshot.get("n")]


# -- placements (upstream TestSnapshot_Placement) ---------------------------------------------


def node_info_of(n) -> NodeInfo:
    info = NodeInfo()
    info.set_node(n)
    return info


def snapshot_and_placement(*placed: str):
    snapshot = new_snapshot([], [node("n1"), node("n2"), node("n3")])
    return snapshot, Placement(nodes=[snapshot.node_info_map[name] for name in placed])


def in_placement(snapshot) -> tuple[int, list[str]]:
    listed = snapshot.list_nodes_in_placement()
    return snapshot.num_nodes_in_placement(), [info.node_name for info in listed]


def test_without_a_placement_every_node_is_in_it():
    snapshot, _ = snapshot_and_placement()
    assert in_placement(snapshot) == (3, ["n1", "n2", "n3"])
    assert snapshot.get_node_in_placement("n1") is snapshot.get("n1")


def test_an_assumed_placement_limits_the_nodes_in_placement_only():
    snapshot, placement = snapshot_and_placement("n2", "n3")
    snapshot.assume_placement(placement)

    assert in_placement(snapshot) == (2, ["n2", "n3"])
    with pytest.raises(NodeInfoNotFoundError):
        snapshot.get_node_in_placement("n1")
    assert snapshot.get_node_in_placement("n3") is snapshot.get("n3")
    assert len(snapshot.list()) == 3  # List and Get still see every node
    assert snapshot.get("n1").node_name == "n1"


def test_a_forgotten_placement_leaves_every_node_in_it():
    snapshot, placement = snapshot_and_placement("n2", "n3")
    snapshot.assume_placement(placement)
    snapshot.forget_placement()

    assert in_placement(snapshot) == (3, ["n1", "n2", "n3"])
    assert snapshot.get_node_in_placement("n1") is snapshot.get("n1")


@pytest.mark.parametrize(
    ("stranger", "message"),
    [
        (
            lambda info: info.clone(),
            "node n2 in placement is not the same instance as in the snapshot",
        ),
        (lambda info: node_info_of(node("n9")), "node n9 in placement is not present in snapshot"),
    ],
    ids=["a copy of a snapshot node", "a node the snapshot lacks"],
)
def test_a_placement_of_other_node_infos_is_refused_and_none_is_set(stranger, message):
    snapshot, placement = snapshot_and_placement("n2")
    snapshot.assume_placement(Placement(nodes=[snapshot.node_info_map["n1"]]))
    placement.nodes[0] = stranger(placement.nodes[0])

    with pytest.raises(CacheError) as raised:
        snapshot.assume_placement(placement)
    assert str(raised.value) == message
    assert in_placement(snapshot) == (3, ["n1", "n2", "n3"])


def test_pods_assumed_in_the_snapshot_show_through_the_placement():
    snapshot, placement = snapshot_and_placement("n2")
    snapshot.assume_placement(placement)
    snapshot.assume_pod(PodInfo(pod("pod-1", "n2", uid="pod-1")))

    [listed] = snapshot.list_nodes_in_placement()
    assert listed is snapshot.get_node_in_placement("n2") is snapshot.get("n2")
    assert [p.pod.name for p in listed.pods] == ["pod-1"]
