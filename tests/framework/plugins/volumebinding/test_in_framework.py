"""VolumeBinding run by the framework: a pod's claim bound to a static PV through a cycle."""

from __future__ import annotations

from framework.config.types import VolumeBindingArgs
from framework.interface.cycle_state import CycleState
from framework.interface.status import Code
from framework.plugins import names
from framework.plugins.volumebinding.volume_binding import VolumeBinding
from framework.runtime.framework import Framework
from framework.runtime.registry import Registry
from framework.testing.fake_plugins import FakeBind, FakeQueueSort
from tests.framework.builders import StaticLister
from tests.framework.plugins.in_tree import InTree
from tests.framework.plugins.volumebinding.env import NODE_1, NODE_2
from tests.framework.runtime.helpers import minimal, profile
from tests.framework.storage.builders import (
    LABEL_HOSTNAME,
    WAIT,
    WritableCluster,
    make_pv,
    make_pvc,
    make_storage_class,
    node_infos_of,
    pod_with_volumes,
    pvc_volume,
)


def framework(cluster: WritableCluster) -> Framework:
    registry = Registry()
    registry.register("QS", FakeQueueSort("QS").factory())
    registry.register("Binder", FakeBind("Binder").factory())
    registry.register(names.VOLUME_BINDING, InTree(VolumeBinding).factory())
    point = [names.VOLUME_BINDING]
    points = minimal(pre_filter=point, filter=point, reserve=point, pre_bind=point)
    return Framework(
        registry,
        profile(
            plugin_config={names.VOLUME_BINDING: VolumeBindingArgs(bind_timeout_seconds=600)},
            **points,
        ),
        snapshot_shared_lister=StaticLister(node_infos_of(NODE_1, NODE_2)),
        cluster=cluster,
    )


def test_a_waiting_claim_is_bound_to_the_local_pv_of_the_node_chosen():
    pod = pod_with_volumes("web", pvc_volume("data"))
    claim = make_pvc("data", "local", request="1Gi")
    pv = make_pv(
        "pv-node2",
        "local",
        phase="Available",
        capacity="5Gi",
        node_affinity={LABEL_HOSTNAME: ["node2"]},
    )
    cluster = WritableCluster([make_storage_class("local", WAIT), claim, pv, NODE_1, NODE_2, pod])
    fwk = framework(cluster)
    state = CycleState()
    _, status, _ = fwk.run_pre_filter_plugins(state, pod)
    assert status is None or status.is_success()
    node_infos = node_infos_of(NODE_1, NODE_2)
    verdicts = {info.node_name: fwk.run_filter_plugins(state, pod, info) for info in node_infos}
    assert verdicts["node1"].code == Code.UNSCHEDULABLE_AND_UNRESOLVABLE
    assert verdicts["node1"].reasons == ["node(s) didn't find available persistent volumes to bind"]
    assert verdicts["node2"] is None or verdicts["node2"].is_success()
    assert fwk.run_reserve_plugins_reserve(state, pod, "node2") is None
    assert fwk.run_pre_bind_pre_flights(state, pod, "node2") is None
    status = fwk.run_pre_bind_plugins(state, pod, "node2")
    # No PV controller completes the binding in the simulator: PreBind times out as upstream
    # would, after writing the PV's claimRef.
    assert status.code == Code.ERROR
    assert status.message() == (
        'running PreBind plugin "VolumeBinding": binding volumes: context deadline exceeded'
    )
    assert cluster.get("PersistentVolume", "pv-node2").spec.claim_ref.name == "data"
    fwk.run_reserve_plugins_unreserve(state, pod, "node2")


def test_a_pod_without_claims_skips_every_volume_binding_point():
    pod = pod_with_volumes("web", {"name": "tmp", "emptyDir": {}})
    fwk = framework(WritableCluster([NODE_1, NODE_2, pod]))
    state = CycleState()
    fwk.run_pre_filter_plugins(state, pod)
    assert names.VOLUME_BINDING in state.skip_filter_plugins
    assert fwk.run_reserve_plugins_reserve(state, pod, "node1") is None
    assert fwk.run_pre_bind_pre_flights(state, pod, "node1").is_skip()
