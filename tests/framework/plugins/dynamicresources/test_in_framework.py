"""DynamicResources run by the framework for a pod without claims, as in every default profile."""

from __future__ import annotations

from framework.config.types import DynamicResourcesArgs
from framework.interface.cycle_state import CycleState
from framework.interface.status import Code
from framework.interface.types import NodeToStatus
from framework.plugins import names
from framework.plugins.dynamicresources.dynamicresources import DynamicResources
from framework.runtime.framework import Framework
from framework.runtime.registry import Registry
from framework.testing.fake_plugins import FakeBind, FakeQueueSort
from tests.framework.builders import StaticLister, make_node_info, make_pod
from tests.framework.plugins.in_tree import InTree
from tests.framework.runtime.helpers import minimal, profile
from tests.framework.storage.builders import WritableCluster

NODES = [make_node_info("node-a"), make_node_info("node-b")]


def framework() -> Framework:
    registry = Registry()
    registry.register("QS", FakeQueueSort("QS").factory())
    registry.register("Binder", FakeBind("Binder").factory())
    registry.register(names.DYNAMIC_RESOURCES, InTree(DynamicResources).factory())
    point = [names.DYNAMIC_RESOURCES]
    points = minimal(
        pre_enqueue=point,
        pre_filter=point,
        filter=point,
        post_filter=point,
        score=[(names.DYNAMIC_RESOURCES, 1)],
        reserve=point,
        pre_bind=point,
    )
    return Framework(
        registry,
        profile(plugin_config={names.DYNAMIC_RESOURCES: DynamicResourcesArgs()}, **points),
        snapshot_shared_lister=StaticLister(NODES),
        cluster=WritableCluster(),
    )


def test_a_pod_without_claims_passes_through_with_zero_scores():
    fwk = framework()
    pod = make_pod("web")
    state = CycleState()
    assert fwk.run_pre_enqueue_plugins(pod) is None
    _, status, _ = fwk.run_pre_filter_plugins(state, pod)
    assert status is None or status.is_success()
    assert names.DYNAMIC_RESOURCES in state.skip_filter_plugins
    scores = fwk.run_score_plugins(state, pod, NODES)
    assert [node.total_score for node in scores[0]] == [0, 0]
    assert fwk.run_pre_bind_pre_flights(state, pod, "node-a").is_skip()


def test_post_filter_adds_no_new_claims_to_deallocate_to_the_failure():
    fwk = framework()
    pod = make_pod("web")
    state = CycleState()
    fwk.run_pre_filter_plugins(state, pod)
    _, status = fwk.run_post_filter_plugins(state, pod, NodeToStatus())
    assert status.code == Code.UNSCHEDULABLE
    assert status.reasons == ["no new claims to deallocate"]
