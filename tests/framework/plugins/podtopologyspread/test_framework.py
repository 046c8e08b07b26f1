"""PodTopologySpread run by the framework runtime, as a profile configures it."""

from __future__ import annotations

from typing import Any

from framework.backend.cache.snapshot import new_snapshot
from framework.cluster.memory import InMemoryCluster
from framework.config.types import PodTopologySpreadArgs
from framework.interface.cycle_state import CycleState
from framework.interface.node_info import PodInfo
from framework.interface.status import Code, Status
from framework.plugins import names
from framework.plugins.podtopologyspread.plugin import PodTopologySpread
from framework.runtime.framework import Framework
from framework.runtime.registry import Registry
from framework.testing.fake_plugins import FakeBind, FakeQueueSort
from tests.framework.plugins.in_tree import InTree
from tests.framework.plugins.podtopologyspread.helpers import (
    DO_NOT_SCHEDULE,
    FOO_SELECTOR,
    SCHEDULE_ANYWAY,
    pod_on,
    zone_node,
)
from tests.framework.plugins.wrappers import make_pod
from tests.framework.runtime.helpers import minimal, profile

NODES = [zone_node("node-a", "zone1"), zone_node("node-b", "zone2"), zone_node("node-c", "zone3")]
PODS = [pod_on("p-a1", "node-a", {"foo": ""}), pod_on("p-a2", "node-a", {"foo": ""})]


class Nominator:
    """Pods nominated to nodes, as the scheduling queue would hand them out."""

    def __init__(self, nominated: dict[str, list[Any]]) -> None:
        self._nominated = nominated

    def nominated_pods_for_node(self, node_name: str) -> list[PodInfo]:
        return [PodInfo(p) for p in self._nominated.get(node_name, [])]


def framework(nominated: dict[str, list[Any]] | None = None) -> Framework:
    registry = Registry()
    registry.register("QS", FakeQueueSort("QS").factory())
    registry.register("Binder", FakeBind("Binder").factory())
    registry.register(names.POD_TOPOLOGY_SPREAD, InTree(PodTopologySpread).factory())
    name = names.POD_TOPOLOGY_SPREAD
    points = minimal(pre_filter=[name], filter=[name], pre_score=[name], score=[(name, 2)])
    return Framework(
        registry,
        profile(plugin_config={name: PodTopologySpreadArgs(defaulting_type="List")}, **points),
        snapshot_shared_lister=new_snapshot(PODS, NODES),
        cluster=InMemoryCluster(),
        pod_nominator=Nominator(nominated or {}),
    )


def spread_pod(when: str) -> Any:
    return (
        make_pod().name("p").label("foo", "").spread_constraint(1, "zone", when, FOO_SELECTOR).obj()
    )


def node_infos(fwk: Framework) -> list[Any]:
    return fwk.snapshot_shared_lister().node_infos().list()


def test_the_runtime_reports_the_skewed_zone_with_the_plugin_name() -> None:
    fwk = framework()
    pod = spread_pod(DO_NOT_SCHEDULE)
    state = CycleState()

    result, status, _ = fwk.run_pre_filter_plugins(state, pod)
    statuses = [fwk.run_filter_plugins(state, pod, n) for n in node_infos(fwk)]

    assert (result, status) == (None, None)
    rejected = Status(Code.UNSCHEDULABLE, "node(s) didn't match pod topology spread constraints")
    assert statuses == [rejected.with_plugin(names.POD_TOPOLOGY_SPREAD), None, None]


def test_a_nominated_pod_counts_through_add_pod() -> None:
    fwk = framework({"node-b": [pod_on("nominated", "node-b", {"foo": ""})]})
    pod = spread_pod(DO_NOT_SCHEDULE)
    state = CycleState()
    fwk.run_pre_filter_plugins(state, pod)
    node_b = node_infos(fwk)[1]

    plain = fwk.run_filter_plugins(state, pod, node_b)
    with_nominated = fwk.run_filter_plugins_with_nominated_pods(state, pod, node_b)

    assert plain is None
    assert with_nominated is not None and with_nominated.code == Code.UNSCHEDULABLE


def test_the_runtime_weights_the_normalized_scores() -> None:
    fwk = framework()
    pod = spread_pod(SCHEDULE_ANYWAY)
    state = CycleState()
    nodes = node_infos(fwk)

    assert fwk.run_pre_score_plugins(state, pod, nodes) is None
    scores, status = fwk.run_score_plugins(state, pod, nodes)

    assert status is None
    # Raw: round(2 * log(5)) = 3 for node-a, 0 elsewhere; normalized 100 * (3 + 0 - s) / 3.
    assert {s.name: s.total_score for s in scores} == {"node-a": 0, "node-b": 200, "node-c": 200}
