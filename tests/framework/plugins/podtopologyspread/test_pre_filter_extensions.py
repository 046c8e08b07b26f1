"""AddPod and RemovePod keep PreFilter's counts and critical paths right during preemption.

Ported from upstream's TestPreFilterStateAddPod and TestPreFilterStateRemovePod.
"""

from __future__ import annotations

from typing import Any

import pytest

from framework.interface.cycle_state import CycleState
from framework.interface.node_info import PodInfo
from framework.plugins.podtopologyspread.filtering import get_pre_filter_state
from tests.framework.plugins.podtopologyspread.helpers import (
    BAR_SELECTOR,
    DO_NOT_SCHEDULE,
    FOO_SELECTOR,
    UNSCHEDULABLE_TAINTS,
    constraint,
    new_plugin,
    node,
    paths_view,
    pod_on,
    zone_node,
)
from tests.framework.plugins.wrappers import make_pod

MAX_INT32 = (1 << 31) - 1
FOO = {"foo": ""}
BAR = {"bar": ""}
FOO_BAR = {"foo": "", "bar": ""}
NODE_CONSTRAINT = constraint(1, "node", FOO_SELECTOR)
ZONE_CONSTRAINT = constraint(1, "zone", FOO_SELECTOR)


def preemptor(*keys: str, labels: dict[str, str] | None = None, **kw: Any) -> Any:
    wrapper = make_pod().name("p").labels(labels or FOO)
    if "node_affinity_not_in" in kw:
        wrapper.node_affinity_not_in(*kw["node_affinity_not_in"])
    for key in kw.get("tolerations", ()):
        wrapper.toleration(key)
    selectors = kw.get("selectors", [FOO_SELECTOR] * len(keys))
    for key, label_selector in zip(keys, selectors, strict=True):
        wrapper.spread_constraint(1, key, DO_NOT_SCHEDULE, label_selector)
    return wrapper.obj()


TWO_NODES = [zone_node("node-a", "zone1"), zone_node("node-b", "zone1")]
ZONE_A_X = [zone_node("node-a", "zone1"), zone_node("node-x", "zone2")]
THREE_NODES = [
    zone_node("node-a", "zone1"),
    zone_node("node-b", "zone1"),
    zone_node("node-x", "zone2"),
]
AFFINITY_NODES = [
    node("node-a", {"zone": "zone1", "node": "node-a", "foo": "bar"}),
    node("node-b", {"zone": "zone2", "node": "node-b", "foo": ""}),
]
TAINTED_A_NODES = [
    node("node-a", {"zone": "zone1", "node": "node-a"}, UNSCHEDULABLE_TAINTS),
    node("node-b", {"zone": "zone2", "node": "node-b"}),
]
A1_B2 = [
    pod_on("p-a1", "node-a", {"foo": "", "zone": "zone1"}),
    pod_on("p-b2", "node-b", {"foo": "", "zone": "zone2"}),
]
A2_B1 = [
    pod_on("p-a2", "node-a", {"foo": "", "zone": "zone1"}),
    pod_on("p-b1", "node-b", {"foo": "", "zone": "zone2"}),
]
NOT_BAR = ("foo", ["bar"])

ADD_CASES = [
    pytest.param(
        preemptor("node"),
        pod_on("p-a1", "node-a", FOO),
        [],
        "node-a",
        TWO_NODES,
        False,
        [NODE_CONSTRAINT],
        [(("node-b", 0), ("node-a", 1))],
        [{"node-a": 1, "node-b": 0}],
        id="adding to one of two empty nodes moves the minimum to the other",
    ),
    pytest.param(
        preemptor("node"),
        pod_on("p-a1", "node-a", FOO),
        [pod_on("p-b1", "node-b", FOO)],
        "node-a",
        TWO_NODES,
        False,
        [NODE_CONSTRAINT],
        [(("node-a", 1), ("node-b", 1))],
        [{"node-a": 1, "node-b": 1}],
        id="adding to the only critical node raises the minimum",
    ),
    pytest.param(
        preemptor("node"),
        make_pod().name("p-a1").namespace("ns1").node("node-a").labels(FOO).obj(),
        [pod_on("p-b1", "node-b", FOO)],
        "node-a",
        TWO_NODES,
        False,
        [NODE_CONSTRAINT],
        [(("node-a", 0), ("node-b", 1))],
        [{"node-a": 0, "node-b": 1}],
        id="a pod of another namespace changes nothing",
    ),
    pytest.param(
        preemptor("node"),
        pod_on("p-b2", "node-b", FOO),
        [pod_on("p-b1", "node-b", FOO)],
        "node-b",
        TWO_NODES,
        False,
        [NODE_CONSTRAINT],
        [(("node-a", 0), ("node-b", 2))],
        [{"node-a": 0, "node-b": 2}],
        id="adding to a non-critical node keeps the minimum",
    ),
    pytest.param(
        preemptor("zone", "node"),
        pod_on("p-a1", "node-a", FOO),
        [],
        "node-a",
        ZONE_A_X,
        False,
        [ZONE_CONSTRAINT, NODE_CONSTRAINT],
        [(("zone2", 0), ("zone1", 1)), (("node-x", 0), ("node-a", 1))],
        [{"zone1": 1, "zone2": 0}, {"node-a": 1, "node-x": 0}],
        id="adding updates both the zone and the node constraint",
    ),
    pytest.param(
        preemptor("zone", "node"),
        pod_on("p-a1", "node-a", FOO),
        [pod_on("p-x1", "node-x", FOO)],
        "node-a",
        ZONE_A_X,
        False,
        [ZONE_CONSTRAINT, NODE_CONSTRAINT],
        [(("zone1", 1), ("zone2", 1)), (("node-a", 1), ("node-x", 1))],
        [{"zone1": 1, "zone2": 1}, {"node-a": 1, "node-x": 1}],
        id="adding evens out zones and nodes",
    ),
    pytest.param(
        preemptor("zone", "node"),
        pod_on("p-a1", "node-a", FOO),
        [
            pod_on("p-b1", "node-b", FOO),
            pod_on("p-b2", "node-b", FOO),
            pod_on("p-x1", "node-x", FOO),
        ],
        "node-a",
        THREE_NODES,
        False,
        [ZONE_CONSTRAINT, NODE_CONSTRAINT],
        [(("zone2", 1), ("zone1", 3)), (("node-a", 1), ("node-x", 1))],
        [{"zone1": 3, "zone2": 1}, {"node-a": 1, "node-b": 2, "node-x": 1}],
        id="adding raises the node minimum while another zone stays the zone minimum",
    ),
    pytest.param(
        preemptor("zone", "node", labels=FOO_BAR, selectors=[FOO_SELECTOR, BAR_SELECTOR]),
        pod_on("p-a1", "node-a", FOO),
        [
            pod_on("p-b1", "node-b", FOO_BAR),
            pod_on("p-x1", "node-x", FOO_BAR),
            pod_on("p-x2", "node-x", BAR),
        ],
        "node-a",
        THREE_NODES,
        False,
        [ZONE_CONSTRAINT, constraint(1, "node", BAR_SELECTOR)],
        [(("zone2", 1), ("zone1", 2)), (("node-a", 0), ("node-b", 1))],
        [{"zone1": 2, "zone2": 1}, {"node-a": 0, "node-b": 1, "node-x": 2}],
        id="a pod matching only the zone selector only counts for the zone",
    ),
    pytest.param(
        preemptor("zone", "node", labels=FOO_BAR, selectors=[FOO_SELECTOR, BAR_SELECTOR]),
        pod_on("p-a1", "node-a", FOO_BAR),
        [
            pod_on("p-b1", "node-b", BAR),
            pod_on("p-x1", "node-x", FOO_BAR),
            pod_on("p-x2", "node-x", BAR),
        ],
        "node-a",
        THREE_NODES,
        False,
        [ZONE_CONSTRAINT, constraint(1, "node", BAR_SELECTOR)],
        [(("zone1", 1), ("zone2", 1)), (("node-a", 1), ("node-b", 1))],
        [{"zone1": 1, "zone2": 1}, {"node-a": 1, "node-b": 1, "node-x": 2}],
        id="a pod matching both selectors counts for both",
    ),
    pytest.param(
        preemptor("zone", node_affinity_not_in=NOT_BAR),
        pod_on("p-a1", "node-a", {"foo": "", "zone": "zone1"}),
        A2_B1,
        "node-a",
        AFFINITY_NODES,
        False,
        [ZONE_CONSTRAINT],
        [(("zone2", 1), ("", MAX_INT32))],
        [{"zone2": 1}],
        id="without inclusion policies a node the affinity rejects is not counted",
    ),
    pytest.param(
        preemptor("zone", node_affinity_not_in=NOT_BAR),
        pod_on("p-a1", "node-a", {"foo": "", "zone": "zone1"}),
        A2_B1,
        "node-a",
        AFFINITY_NODES,
        True,
        [ZONE_CONSTRAINT],
        [(("zone2", 1), ("", MAX_INT32))],
        [{"zone2": 1}],
        id="node affinity policy honor does not count a node the affinity rejects",
    ),
    pytest.param(
        preemptor("zone"),
        pod_on("p-b1", "node-b", {"foo": "", "zone": "zone2"}),
        A1_B2,
        "node-b",
        AFFINITY_NODES,
        False,
        [ZONE_CONSTRAINT],
        [(("zone1", 1), ("zone2", 2))],
        [{"zone1": 1, "zone2": 2}],
        id="without inclusion policies a pod on an accepted node counts",
    ),
    pytest.param(
        preemptor("zone"),
        pod_on("p-b1", "node-b", {"foo": "", "zone": "zone2"}),
        A1_B2,
        "node-b",
        AFFINITY_NODES,
        True,
        [ZONE_CONSTRAINT],
        [(("zone1", 1), ("zone2", 2))],
        [{"zone1": 1, "zone2": 2}],
        id="with inclusion policies a pod on an accepted node counts",
    ),
    pytest.param(
        preemptor("zone"),
        pod_on("p-b1", "node-b", {"zone": "zone2"}),
        A1_B2,
        "node-b",
        AFFINITY_NODES,
        True,
        [ZONE_CONSTRAINT],
        [(("zone1", 1), ("zone2", 1))],
        [{"zone1": 1, "zone2": 1}],
        id="a pod the selector does not match changes nothing",
    ),
    pytest.param(
        preemptor("zone"),
        pod_on("p-b1", "node-b", {"foo": "", "zone": "zone2"}),
        A1_B2,
        "node-b",
        TAINTED_A_NODES,
        False,
        [ZONE_CONSTRAINT],
        [(("zone1", 1), ("zone2", 2))],
        [{"zone1": 1, "zone2": 2}],
        id="without inclusion policies taints do not matter",
    ),
    pytest.param(
        preemptor("zone", tolerations=["node.kubernetes.io/unschedulable"]),
        pod_on("p-b1", "node-b", {"foo": "", "zone": "zone2"}),
        A1_B2,
        "node-b",
        TAINTED_A_NODES,
        True,
        [ZONE_CONSTRAINT],
        [(("zone1", 1), ("zone2", 2))],
        [{"zone1": 1, "zone2": 2}],
        id="with inclusion policies a tolerated taint does not matter",
    ),
]


@pytest.mark.parametrize(
    (
        "pod",
        "added",
        "existing",
        "node_name",
        "nodes",
        "node_inclusion_policy",
        "want_constraints",
        "want_paths",
        "want_counts",
    ),
    ADD_CASES,
)
def test_add_pod_updates_the_pre_filter_state(
    pod: Any,
    added: Any,
    existing: list[Any],
    node_name: str,
    nodes: list[Any],
    node_inclusion_policy: bool,
    want_constraints: list[Any],
    want_paths: list[Any],
    want_counts: list[Any],
) -> None:
    plugin = new_plugin(
        existing, nodes, enable_node_inclusion_policy_in_pod_topology_spread=node_inclusion_policy
    )
    snapshot = plugin.handle.snapshot_shared_lister()
    state = CycleState()
    assert plugin.pre_filter(state, pod, snapshot.list()) == (None, None)

    assert plugin.add_pod(state, pod, PodInfo(added), snapshot.get(node_name)) is None

    got = get_pre_filter_state(state)
    assert got.constraints == want_constraints
    assert paths_view(got) == want_paths
    assert got.tp_value_to_match_num == want_counts


FOUR_ZONE_NODES = [*THREE_NODES, zone_node("node-y", "zone2")]

REMOVE_CASES = [
    pytest.param(
        preemptor("zone"),
        [
            pod_on("p-a1", "node-a", FOO),
            pod_on("p-b1", "node-b", FOO),
            pod_on("p-x1", "node-x", FOO),
        ],
        0,
        "node-a",
        THREE_NODES,
        False,
        [ZONE_CONSTRAINT],
        [(("zone1", 1), ("zone2", 1))],
        [{"zone1": 1, "zone2": 1}],
        id="removing from the larger zone evens out the zones",
    ),
    pytest.param(
        preemptor("zone"),
        [
            pod_on("p-a1", "node-a", FOO),
            pod_on("p-b1", "node-b", FOO),
            pod_on("p-x1", "node-x", FOO),
            pod_on("p-y1", "node-y", FOO),
        ],
        0,
        "node-a",
        FOUR_ZONE_NODES,
        False,
        [ZONE_CONSTRAINT],
        [(("zone1", 1), ("zone2", 2))],
        [{"zone1": 1, "zone2": 2}],
        id="removing lowers the minimum",
    ),
    pytest.param(
        preemptor("zone"),
        [
            pod_on("p-a0", "node-a", BAR),
            pod_on("p-a1", "node-a", FOO),
            pod_on("p-b1", "node-b", FOO),
            pod_on("p-x1", "node-x", FOO),
            pod_on("p-y1", "node-y", FOO),
        ],
        0,
        "node-a",
        FOUR_ZONE_NODES,
        False,
        [ZONE_CONSTRAINT],
        [(("zone1", 2), ("zone2", 2))],
        [{"zone1": 2, "zone2": 2}],
        id="removing a pod the selector does not match does not help",
    ),
    pytest.param(
        preemptor("zone"),
        [
            pod_on("p-a1", "node-a", FOO),
            pod_on("p-b1", "node-b", FOO),
            pod_on("p-x1", "node-x", FOO),
            pod_on("p-y1", "node-y", FOO),
        ],
        pod_on("p-a0", "node-a", BAR),
        "node-a",
        FOUR_ZONE_NODES,
        False,
        [ZONE_CONSTRAINT],
        [(("zone1", 2), ("zone2", 2))],
        [{"zone1": 2, "zone2": 2}],
        id="removing a pod that is not there does not help",
    ),
    pytest.param(
        preemptor("zone", "node"),
        [
            pod_on("p-a1", "node-a", FOO),
            pod_on("p-a2", "node-a", FOO),
            pod_on("p-b1", "node-b", FOO),
            pod_on("p-x1", "node-x", FOO),
            pod_on("p-x2", "node-x", FOO),
        ],
        3,
        "node-x",
        THREE_NODES,
        False,
        [ZONE_CONSTRAINT, NODE_CONSTRAINT],
        [(("zone2", 1), ("zone1", 3)), (("node-b", 1), ("node-x", 1))],
        [{"zone1": 3, "zone2": 1}, {"node-a": 2, "node-b": 1, "node-x": 1}],
        id="removing updates both constraints",
    ),
    # Upstream's table leaves the index at 0 in the next four cases, so the first existing
    # pod is the one removed.
    pytest.param(
        preemptor("zone", node_affinity_not_in=NOT_BAR),
        A2_B1,
        0,
        "node-a",
        AFFINITY_NODES,
        False,
        [ZONE_CONSTRAINT],
        [(("zone2", 1), ("", MAX_INT32))],
        [{"zone2": 1}],
        id="without inclusion policies removing from a rejected node changes nothing",
    ),
    pytest.param(
        preemptor("zone", node_affinity_not_in=NOT_BAR),
        A2_B1,
        0,
        "node-a",
        AFFINITY_NODES,
        True,
        [ZONE_CONSTRAINT],
        [(("zone2", 1), ("", MAX_INT32))],
        [{"zone2": 1}],
        id="node affinity policy honor ignores removals from a rejected node",
    ),
    pytest.param(
        preemptor("zone"),
        A1_B2,
        0,
        "node-b",
        AFFINITY_NODES,
        False,
        [ZONE_CONSTRAINT],
        [(("zone2", 0), ("zone1", 1))],
        [{"zone1": 1, "zone2": 0}],
        id="without inclusion policies removing from an accepted node counts",
    ),
    pytest.param(
        preemptor("zone"),
        A1_B2,
        0,
        "node-b",
        AFFINITY_NODES,
        True,
        [ZONE_CONSTRAINT],
        [(("zone2", 0), ("zone1", 1))],
        [{"zone1": 1, "zone2": 0}],
        id="with inclusion policies removing from an accepted node counts",
    ),
]


@pytest.mark.parametrize(
    (
        "pod",
        "existing",
        "deleted",
        "node_name",
        "nodes",
        "node_inclusion_policy",
        "want_constraints",
        "want_paths",
        "want_counts",
    ),
    REMOVE_CASES,
)
def test_remove_pod_updates_the_pre_filter_state(
    pod: Any,
    existing: list[Any],
    deleted: Any,
    node_name: str,
    nodes: list[Any],
    node_inclusion_policy: bool,
    want_constraints: list[Any],
    want_paths: list[Any],
    want_counts: list[Any],
) -> None:
    plugin = new_plugin(
        existing, nodes, enable_node_inclusion_policy_in_pod_topology_spread=node_inclusion_policy
    )
    snapshot = plugin.handle.snapshot_shared_lister()
    state = CycleState()
    assert plugin.pre_filter(state, pod, snapshot.list()) == (None, None)
    deleted_pod = existing[deleted] if isinstance(deleted, int) else deleted

    assert plugin.remove_pod(state, pod, PodInfo(deleted_pod), snapshot.get(node_name)) is None

    got = get_pre_filter_state(state)
    assert got.constraints == want_constraints
    assert paths_view(got) == want_paths
    assert got.tp_value_to_match_num == want_counts


def test_a_cloned_state_is_not_changed_by_add_pod_on_the_original() -> None:
    pod = preemptor("node")
    plugin = new_plugin([], TWO_NODES)
    snapshot = plugin.handle.snapshot_shared_lister()
    state = CycleState()
    plugin.pre_filter(state, pod, snapshot.list())
    copy = state.clone()

    plugin.add_pod(state, pod, PodInfo(pod_on("p-a1", "node-a", FOO)), snapshot.get("node-a"))

    assert get_pre_filter_state(copy).tp_value_to_match_num == [{"node-a": 0, "node-b": 0}]
    assert paths_view(get_pre_filter_state(copy)) == [(("node-a", 0), ("node-b", 0))]
    assert get_pre_filter_state(state).tp_value_to_match_num == [{"node-a": 1, "node-b": 0}]


def test_add_pod_without_pre_filter_state_is_an_error() -> None:
    pod = preemptor("node")
    plugin = new_plugin([], TWO_NODES)
    node_info = plugin.handle.snapshot_shared_lister().get("node-a")

    status = plugin.add_pod(CycleState(), pod, PodInfo(pod), node_info)

    assert status is not None and status.is_error()
    assert status.message() == ('reading "PreFilterPodTopologySpread" from cycleState: not found')
