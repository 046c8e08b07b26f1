"""PreFilter's pair counts, their AddPod/RemovePod updates and cloning.

Ported from upstream's TestPreFilterStateAddRemovePod, TestPreFilterStateClone and
TestGetTPMapMatchingIncomingAffinityAntiAffinity.
"""

from __future__ import annotations

from typing import Any

import pytest

from framework.interface.cycle_state import CycleState
from framework.interface.node_info import PodInfo
from framework.plugins.interpodaffinity.filtering import (
    PreFilterState,
    get_incoming_affinity_anti_affinity_counts,
    get_pre_filter_state,
)
from tests.framework.plugins.interpodaffinity.helpers import expressions, new_plugin, node, term
from tests.framework.plugins.wrappers import PodAffinityKind, make_pod

REQUIRED = PodAffinityKind.REQUIRED
FOO_BAR = {"foo": "bar"}
NODES = [
    node("nodeA", {"region": "r1", "zone": "z11"}),
    node("nodeB", {"region": "r1", "zone": "z12"}),
    node("nodeC", {"region": "r2", "zone": "z21"}),
]
ANTI_FOO_BAR = [term(expressions(("foo", "In", ["bar"])), "region")]
COMPLEX = [
    term(expressions(("foo", "In", ["bar", "buzz"])), "region"),
    term(expressions(("service", "NotIn", ["bar", "security", "test"])), "zone"),
]


def pod(
    name: str,
    labels: dict[str, str] | None = None,
    node_name: str = "",
    affinity: list[dict[str, Any]] | None = None,
    anti_affinity: list[dict[str, Any]] | None = None,
) -> Any:
    wrapper = make_pod().name(name).labels(labels or {})
    if node_name:
        wrapper.node(node_name)
    if affinity is not None:
        wrapper.pod_affinity_terms("podAffinity", required=affinity)
    if anti_affinity is not None:
        wrapper.pod_affinity_terms("podAntiAffinity", required=anti_affinity)
    return wrapper.obj()


def counts_of(s: PreFilterState) -> tuple[dict[Any, int], dict[Any, int], dict[Any, int]]:
    return (
        dict(s.existing_anti_affinity_counts),
        dict(s.affinity_counts),
        dict(s.anti_affinity_counts),
    )


def pre_filtered(pending: Any, pods: list[Any]) -> tuple[Any, CycleState]:
    plugin = new_plugin(pods, NODES, [])
    state = CycleState()
    result = plugin.pre_filter(state, pending, plugin.handle.snapshot_shared_lister().list())
    assert result == (None, None)
    return plugin, state


@pytest.mark.parametrize(
    ("pending", "existing", "added", "want_anti_affinity", "want_affinity"),
    [
        pytest.param(
            pod("pending", FOO_BAR, anti_affinity=ANTI_FOO_BAR),
            [pod("p1", FOO_BAR, "nodeA"), pod("p2", node_name="nodeC", anti_affinity=ANTI_FOO_BAR)],
            pod("addedPod", FOO_BAR, "nodeB", anti_affinity=ANTI_FOO_BAR),
            {("region", "r1"): 2},
            {},
            id="anti-affinity counts follow an added and removed pod",
        ),
        pytest.param(
            pod("pending", FOO_BAR, anti_affinity=COMPLEX),
            [pod("p1", FOO_BAR, "nodeA"), pod("p2", node_name="nodeC", anti_affinity=ANTI_FOO_BAR)],
            pod("addedPod", FOO_BAR, "nodeA", anti_affinity=COMPLEX),
            {("region", "r1"): 2, ("zone", "z11"): 2, ("zone", "z21"): 1},
            {},
            id="several anti-affinity terms follow an added and removed pod",
        ),
        pytest.param(
            pod("pending", FOO_BAR, affinity=COMPLEX),
            [
                pod("p1", FOO_BAR, "nodeA"),
                pod("p2", node_name="nodeC", affinity=COMPLEX, anti_affinity=ANTI_FOO_BAR),
            ],
            pod("addedPod", FOO_BAR, "nodeA", anti_affinity=COMPLEX),
            {},
            {("region", "r1"): 2, ("zone", "z11"): 2},
            id="affinity and anti-affinity counts follow an added and removed pod",
        ),
    ],
)
def test_add_and_remove_pod_keep_the_counts_of_a_full_pre_filter(
    pending: Any, existing: list[Any], added: Any, want_anti_affinity: Any, want_affinity: Any
) -> None:
    _, all_pods_state = pre_filtered(pending, [*existing, added])
    plugin, state = pre_filtered(pending, existing)
    original = get_pre_filter_state(state).clone()
    node_info = plugin.handle.snapshot_shared_lister().get(added.spec.node_name)

    assert plugin.add_pod(state, pending, PodInfo(added), node_info) is None

    after_add = get_pre_filter_state(state)
    assert after_add.anti_affinity_counts == want_anti_affinity
    assert after_add.affinity_counts == want_affinity
    assert counts_of(after_add) == counts_of(get_pre_filter_state(all_pods_state))

    assert plugin.remove_pod(state, pending, PodInfo(added), node_info) is None

    assert counts_of(get_pre_filter_state(state)) == counts_of(original)


def test_a_clone_copies_the_counts() -> None:
    source = PreFilterState(make_pod().obj(), [], [], {})
    source.existing_anti_affinity_counts = {("name", "node1"): 1, ("name", "node2"): 1}
    source.affinity_counts = {("name", "nodeA"): 1, ("name", "nodeC"): 2}
    source.anti_affinity_counts = {("name", "nodeN"): 3, ("name", "nodeM"): 1}

    clone = source.clone()
    source.affinity_counts[("name", "nodeA")] = 5

    assert clone is not source
    assert clone.affinity_counts == {("name", "nodeA"): 1, ("name", "nodeC"): 2}
    assert clone.existing_anti_affinity_counts == source.existing_anti_affinity_counts
    assert clone.anti_affinity_counts == source.anti_affinity_counts


def normal(*labels: str) -> Any:
    return make_pod().name("normal").node("nodeA").labels(dict.fromkeys(labels, "")).obj()


def incoming(affinity: tuple[str, ...] = (), anti_affinity: tuple[str, ...] = ()) -> Any:
    wrapper = make_pod().name("incoming")
    for key in affinity:
        wrapper.pod_affinity_exists(key, "hostname", REQUIRED)
    for key in anti_affinity:
        wrapper.pod_anti_affinity_exists(key, "hostname", REQUIRED)
    return wrapper.obj()


NODE_A = {("hostname", "nodeA"): 1}


@pytest.mark.parametrize(
    ("existing", "pod", "want_affinity", "want_anti_affinity"),
    [
        pytest.param([], incoming(), {}, {}, id="no pods and no terms count nothing"),
        pytest.param([normal("aaa")], incoming(), {}, {}, id="a pod without terms counts nothing"),
        pytest.param(
            [normal("bbb")],
            incoming(("aaa",), ("aaa",)),
            {},
            {},
            id="no pod matches the terms",
        ),
        pytest.param(
            [normal("aaa")],
            incoming(("aaa",), ("aaa",)),
            NODE_A,
            NODE_A,
            id="one pod matches one affinity and one anti-affinity term",
        ),
        pytest.param(
            [normal("aaa", "bbb")],
            incoming(("aaa", "bbb"), ("aaa",)),
            {("hostname", "nodeA"): 2},
            NODE_A,
            id="a pod matching every affinity term counts once per term",
        ),
        pytest.param(
            [normal("aaa")],
            incoming(("aaa", "bbb"), ("aaa", "bbb")),
            {},
            NODE_A,
            id="a pod matching only some affinity terms does not count for affinity",
        ),
        pytest.param(
            [normal("aaa", "bbb")],
            incoming(("aaa", "ccc"), ("aaa", "ccc")),
            {},
            NODE_A,
            id="anti-affinity counts each matching term: case 1",
        ),
        pytest.param(
            [normal("bbb")],
            incoming(("aaa", "bbb"), ("aaa", "bbb")),
            {},
            NODE_A,
            id="anti-affinity counts each matching term: case 2",
        ),
    ],
)
def test_incoming_affinity_and_anti_affinity_counts(
    existing: list[Any], pod: Any, want_affinity: Any, want_anti_affinity: Any
) -> None:
    snapshot = new_plugin(existing, [node("nodeA", {"hostname": "nodeA"})], []).handle
    pod_info = PodInfo(pod)

    got = get_incoming_affinity_anti_affinity_counts(
        pod_info.required_affinity_terms,
        pod_info.required_anti_affinity_terms,
        snapshot.snapshot_shared_lister().list(),
    )

    assert got == (want_affinity, want_anti_affinity)
