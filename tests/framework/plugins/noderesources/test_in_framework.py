"""NodeResourcesFit and NodeResourcesBalancedAllocation run by the framework, with their args."""

from __future__ import annotations

from framework.config.types import (
    LEAST_ALLOCATED,
    NodeResourcesBalancedAllocationArgs,
    NodeResourcesFitArgs,
    ResourceSpec,
    ScoringStrategy,
)
from framework.interface.cycle_state import CycleState
from framework.interface.status import Code
from framework.plugins import names
from framework.plugins.noderesources.balanced_allocation import BalancedAllocation
from framework.plugins.noderesources.fit import Fit
from framework.runtime.framework import Framework
from framework.runtime.registry import Registry
from framework.testing.fake_plugins import FakeBind, FakeQueueSort
from tests.framework.builders import StaticLister
from tests.framework.plugins.in_tree import InTree
from tests.framework.plugins.noderesources.builders import make_node, req_pod, snapshot
from tests.framework.runtime.helpers import minimal, profile

CPU_MEM = [ResourceSpec("cpu", 1), ResourceSpec("memory", 1)]


def framework(node_infos) -> Framework:
    registry = Registry()
    registry.register("QS", FakeQueueSort("QS").factory())
    registry.register("Binder", FakeBind("Binder").factory())
    registry.register(names.NODE_RESOURCES_FIT, InTree(Fit).factory())
    registry.register(
        names.NODE_RESOURCES_BALANCED_ALLOCATION, InTree(BalancedAllocation).factory()
    )
    fit_args = NodeResourcesFitArgs(
        scoring_strategy=ScoringStrategy(type=LEAST_ALLOCATED, resources=CPU_MEM)
    )
    balanced_args = NodeResourcesBalancedAllocationArgs(resources=list(CPU_MEM))
    both = [names.NODE_RESOURCES_FIT, names.NODE_RESOURCES_BALANCED_ALLOCATION]
    points = minimal(
        pre_filter=[names.NODE_RESOURCES_FIT],
        filter=[names.NODE_RESOURCES_FIT],
        pre_score=both,
        score=[(names.NODE_RESOURCES_FIT, 1), (names.NODE_RESOURCES_BALANCED_ALLOCATION, 1)],
    )
    plugin_config = {
        names.NODE_RESOURCES_FIT: fit_args,
        names.NODE_RESOURCES_BALANCED_ALLOCATION: balanced_args,
    }
    return Framework(
        registry,
        profile(plugin_config=plugin_config, **points),
        snapshot_shared_lister=StaticLister(node_infos),
    )


NODES = [
    make_node("small", {"cpu": "4", "memory": "10000"}),
    make_node("large", {"cpu": "6", "memory": "10000"}),
]


def test_the_framework_filters_out_a_node_without_room_and_says_what_is_missing():
    node_infos = snapshot([req_pod({"cpu": "3"}, node_name="small")], NODES)
    fwk = framework(node_infos)
    state = CycleState()
    pod = req_pod({"cpu": "2", "memory": "1000"})

    _, status, _ = fwk.run_pre_filter_plugins(state, pod)
    small = fwk.run_filter_plugins(state, pod, node_infos[0])
    large = fwk.run_filter_plugins(state, pod, node_infos[1])

    assert status is None
    assert (small.code, small.reasons, small.plugin) == (
        Code.UNSCHEDULABLE,
        ["Insufficient cpu"],
        names.NODE_RESOURCES_FIT,
    )
    assert large is None


def test_the_framework_adds_both_resource_scores_per_node():
    node_infos = snapshot([], NODES)
    fwk = framework(node_infos)
    state = CycleState()
    pod = req_pod({"cpu": "3", "memory": "5000"})

    assert fwk.run_pre_score_plugins(state, pod, node_infos) is None
    scores, status = fwk.run_score_plugins(state, pod, node_infos)

    assert status is None
    # small: least allocated (25 + 50) / 2 = 37, balance 87 vs 100 -> 68.
    # large: least allocated (50 + 50) / 2 = 50, balance 100 vs 100 -> 75.
    assert {s.name: [(p.name, p.score) for p in s.scores] for s in scores} == {
        "small": [(names.NODE_RESOURCES_FIT, 37), (names.NODE_RESOURCES_BALANCED_ALLOCATION, 68)],
        "large": [(names.NODE_RESOURCES_FIT, 50), (names.NODE_RESOURCES_BALANCED_ALLOCATION, 75)],
    }
    assert {s.name: s.total_score for s in scores} == {"small": 105, "large": 125}


def test_the_framework_skips_balanced_allocation_for_a_pod_that_requests_nothing():
    node_infos = snapshot([], NODES)
    fwk = framework(node_infos)
    state = CycleState()

    assert fwk.run_pre_score_plugins(state, req_pod({}), node_infos) is None

    assert state.skip_score_plugins == {names.NODE_RESOURCES_BALANCED_ALLOCATION}
