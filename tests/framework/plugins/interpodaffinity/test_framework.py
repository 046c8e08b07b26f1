"""InterPodAffinity run by the framework runtime, as a profile configures it."""

from __future__ import annotations

from typing import Any

from framework.backend.cache.snapshot import new_snapshot
from framework.cluster.memory import InMemoryCluster
from framework.config.types import InterPodAffinityArgs
from framework.interface.cycle_state import CycleState
from framework.interface.node_info import PodInfo
from framework.interface.status import Code, Status
from framework.plugins import names
from framework.plugins.interpodaffinity.plugin import InterPodAffinity
from framework.runtime.framework import Framework
from framework.runtime.registry import Registry
from framework.testing.fake_plugins import FakeBind, FakeQueueSort
from tests.framework.plugins.in_tree import InTree
from tests.framework.plugins.interpodaffinity.helpers import NAMESPACES, node
from tests.framework.plugins.wrappers import PodAffinityKind, make_pod
from tests.framework.runtime.helpers import minimal, profile

NODES = [
    node("node-a", {"zone": "z1"}),
    node("node-b", {"zone": "z1"}),
    node("node-c", {"zone": "z2"}),
]
WEB = {"app": "web"}


class Nominator:
    def __init__(self, nominated: dict[str, list[Any]]) -> None:
        self._nominated = nominated

    def nominated_pods_for_node(self, node_name: str) -> list[PodInfo]:
        return [PodInfo(p) for p in self._nominated.get(node_name, [])]


def framework(pods: list[Any], nominated: dict[str, list[Any]] | None = None) -> Framework:
    registry = Registry()
    registry.register("QS", FakeQueueSort("QS").factory())
    registry.register("Binder", FakeBind("Binder").factory())
    registry.register(names.INTER_POD_AFFINITY, InTree(InterPodAffinity).factory())
    name = names.INTER_POD_AFFINITY
    points = minimal(pre_filter=[name], filter=[name], pre_score=[name], score=[(name, 2)])
    args = InterPodAffinityArgs(hard_pod_affinity_weight=1)
    return Framework(
        registry,
        profile(plugin_config={name: args}, **points),
        snapshot_shared_lister=new_snapshot(pods, NODES),
        cluster=InMemoryCluster(NAMESPACES),
        pod_nominator=Nominator(nominated or {}),
    )


def anti_affinity_pod() -> Any:
    return (
        make_pod()
        .name("p")
        .labels(WEB)
        .pod_anti_affinity_in("app", "zone", ["web"], PodAffinityKind.REQUIRED)
        .obj()
    )


def test_the_runtime_reports_the_conflicting_zone_with_the_plugin_name() -> None:
    fwk = framework([make_pod().name("w1").labels(WEB).node("node-a").obj()])
    pod = anti_affinity_pod()
    state = CycleState()

    fwk.run_pre_filter_plugins(state, pod)
    statuses = [fwk.run_filter_plugins(state, pod, n) for n in fwk.snapshot_shared_lister().list()]

    rejected = Status(Code.UNSCHEDULABLE, "node(s) didn't match pod anti-affinity rules")
    rejected.with_plugin(names.INTER_POD_AFFINITY)
    assert statuses == [rejected, rejected, None]


def test_a_nominated_pod_counts_through_add_pod() -> None:
    fwk = framework([], {"node-c": [make_pod().name("w2").labels(WEB).node("node-c").obj()]})
    pod = anti_affinity_pod()
    state = CycleState()
    fwk.run_pre_filter_plugins(state, pod)
    node_c = fwk.snapshot_shared_lister().get("node-c")

    assert fwk.run_filter_plugins(state, pod, node_c) is None
    status = fwk.run_filter_plugins_with_nominated_pods(state, pod, node_c)
    assert status is not None and status.code == Code.UNSCHEDULABLE


def test_the_runtime_weights_the_normalized_scores() -> None:
    pod = (
        make_pod()
        .name("p")
        .labels(WEB)
        .pod_affinity_in("app", "zone", ["web"], PodAffinityKind.PREFERRED)
        .obj()
    )
    fwk = framework([make_pod().name("w1").labels(WEB).node("node-a").obj()])
    state = CycleState()
    nodes = fwk.snapshot_shared_lister().list()

    assert fwk.run_pre_score_plugins(state, pod, nodes) is None
    scores, status = fwk.run_score_plugins(state, pod, nodes)

    assert status is None
    assert {s.name: s.total_score for s in scores} == {"node-a": 200, "node-b": 200, "node-c": 0}
