"""NodeAffinity run by the framework: PreFilter narrowing, Filter and normalized scores."""

from __future__ import annotations

from framework.config.corev1 import PreferredSchedulingTerm
from framework.interface.cycle_state import CycleState
from framework.interface.types import PreFilterResult
from framework.plugins import names
from framework.plugins.nodeaffinity.node_affinity import NodeAffinity
from framework.runtime.framework import Framework
from framework.runtime.registry import Registry
from framework.testing.fake_plugins import FakeBind, FakeQueueSort
from tests.framework.builders import StaticLister
from tests.framework.plugins.in_tree import InTree
from tests.framework.plugins.nodeaffinity.builders import (
    args,
    config_term,
    make_node_info,
    make_pod,
    requirement,
    term,
)
from tests.framework.runtime.helpers import minimal, profile


def framework(node_infos, plugin_args=None) -> Framework:
    registry = Registry()
    registry.register("QS", FakeQueueSort("QS").factory())
    registry.register("Binder", FakeBind("Binder").factory())
    registry.register(names.NODE_AFFINITY, InTree(NodeAffinity).factory())
    every_point = [names.NODE_AFFINITY]
    points = minimal(
        pre_filter=every_point,
        filter=every_point,
        pre_score=every_point,
        score=[(names.NODE_AFFINITY, 2)],
    )
    return Framework(
        registry,
        profile(plugin_config={names.NODE_AFFINITY: plugin_args or args()}, **points),
        snapshot_shared_lister=StaticLister(node_infos),
    )


NODE_INFOS = [
    make_node_info("node1", {"zone": "a"}),
    make_node_info("node2", {"zone": "b"}),
    make_node_info("node3", {"zone": "a"}),
]


def test_the_framework_narrows_the_cycle_to_the_nodes_a_pod_names():
    fwk = framework(NODE_INFOS)
    pod = make_pod(
        required=[
            term(fields=[requirement("metadata.name", "In", "node1", "node2")]),
            term(fields=[requirement("metadata.name", "In", "node3")]),
        ]
    )

    result, status, narrowed_by = fwk.run_pre_filter_plugins(CycleState(), pod)

    assert status is None
    assert result == PreFilterResult({"node1", "node2", "node3"})
    assert narrowed_by == {names.NODE_AFFINITY}


def test_the_framework_skips_the_filter_for_a_pod_without_selectors():
    fwk = framework(NODE_INFOS)
    state = CycleState()

    fwk.run_pre_filter_plugins(state, make_pod())

    assert state.skip_filter_plugins == {names.NODE_AFFINITY}


def test_the_framework_weights_normalized_preferences():
    preferred = [PreferredSchedulingTerm(1, config_term([("zone", "In", ["a"])]))]
    fwk = framework(NODE_INFOS, args(preferred=preferred))
    state = CycleState()
    pod = make_pod(preferred=[(3, term([requirement("zone", "In", "b")]))])

    assert fwk.run_pre_score_plugins(state, pod, NODE_INFOS) is None
    scores, status = fwk.run_score_plugins(state, pod, NODE_INFOS)

    assert status is None
    # Raw 1, 3, 1 -> normalized 33, 100, 33 -> weight 2.
    assert {s.name: s.total_score for s in scores} == {"node1": 66, "node2": 200, "node3": 66}
