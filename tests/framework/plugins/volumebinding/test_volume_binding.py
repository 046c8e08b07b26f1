"""VolumeBinding's extension points against upstream's table (volume_binding_test.go)."""

from __future__ import annotations

from typing import Any

import pytest

from framework.config.types import UtilizationShapePoint, VolumeBindingArgs
from framework.interface.cycle_state import CycleState
from framework.interface.node_info import NodeInfo
from framework.interface.status import Code, Status
from framework.interface.types import PreBindPreFlightResult
from framework.plugins.feature import Features
from framework.plugins.volumebinding.binder import PodVolumes
from framework.plugins.volumebinding.volume_binding import STATE_KEY, VolumeBinding, _StateData
from tests.framework.builders import make_node, make_pod
from tests.framework.storage.builders import (
    IMMEDIATE,
    LABEL_HOSTNAME,
    WAIT,
    FakeHandle,
    make_capacity,
    make_csi_driver,
    make_pv,
    make_pvc,
    make_storage_class,
    pod_with_volumes,
    pvc_volume,
)

WAIT_SC = "wait-sc"
WAIT_HDD_SC = "wait-hdd-sc"
WAIT_SC_CAPACITY = "wait-sc-with-storage-capacity"
DRIVER = "driver-with-storage-capacity"
NODE_KEY = "nodeKey"
ZONE = "topology.kubernetes.io/zone"
REGION = "topology.kubernetes.io/region"

CLASSES = [
    make_storage_class("immediate-sc", IMMEDIATE),
    make_storage_class(WAIT_SC, WAIT),
    make_storage_class(WAIT_HDD_SC, WAIT),
    make_storage_class(WAIT_SC_CAPACITY, WAIT, provisioner=DRIVER),
    make_csi_driver(DRIVER, storageCapacity=True),
]
DEFAULT_SHAPE = [UtilizationShapePoint(0, 0), UtilizationShapePoint(100, 10)]
BIND_CONFLICT = Status(
    Code.UNSCHEDULABLE_AND_UNRESOLVABLE,
    "node(s) didn't find available persistent volumes to bind",
)
SKIP = Status(Code.SKIP)
SCORING = Features(enable_storage_capacity_scoring=True)


def node(name: str, **labels: str) -> Any:
    return make_node(name, labels={LABEL_HOSTNAME: name, **labels})


def zone_node(name: str, zone: str, region: str) -> Any:
    return make_node(name, labels={LABEL_HOSTNAME: name, ZONE: zone, REGION: region})


def local_pv(name: str, class_name: str, capacity: str, host: str) -> Any:
    return make_pv(
        name,
        class_name,
        phase="Available",
        capacity=capacity,
        node_affinity={LABEL_HOSTNAME: [host]},
    )


def zonal_pv(name: str, capacity: str, zone: str, region: str) -> Any:
    return make_pv(
        name,
        WAIT_SC,
        phase="Available",
        capacity=capacity,
        node_affinity={REGION: [region], ZONE: [zone]},
    )


def claims_pod(*claims: str) -> Any:
    return pod_with_volumes("pod-a", *(pvc_volume(c) for c in claims))


def build(objects: list[Any], features: Features, args: VolumeBindingArgs | None) -> VolumeBinding:
    if args is None:
        args = VolumeBindingArgs(bind_timeout_seconds=300)
        if features.enable_storage_capacity_scoring:
            args.shape = DEFAULT_SHAPE
    return VolumeBinding(args, FakeHandle([*CLASSES, *objects]), features)


def node_infos(nodes: list[Any]) -> list[NodeInfo]:
    infos = []
    for n in nodes:
        info = NodeInfo()
        info.set_node(n)
        infos.append(info)
    return infos


CAPACITY_NODES = [
    node("node-a", nodeKey="node-a"),
    node("node-b", nodeKey="node-b"),
    node("node-c", nodeKey="node-c"),
]


def capacities(*sizes: str) -> list[Any]:
    return [
        make_capacity(f"node-{n}", WAIT_SC_CAPACITY, {NODE_KEY: f"node-{n}"}, size)
        for n, size in zip("abc", sizes, strict=False)
    ]


ZONE_NODES = [
    zone_node("zone-a-node-a", "zone-a", "region-a"),
    zone_node("zone-a-node-b", "zone-a", "region-a"),
    zone_node("zone-b-node-a", "zone-b", "region-b"),
    zone_node("zone-b-node-b", "zone-b", "region-b"),
    zone_node("zone-c-node-a", "zone-c", "region-c"),
    zone_node("zone-c-node-b", "zone-c", "region-c"),
]
ZONE_PVS = [
    zonal_pv("pv-a-0", "200Gi", "zone-a", "region-a"),
    zonal_pv("pv-a-1", "200Gi", "zone-a", "region-a"),
    zonal_pv("pv-b-0", "100Gi", "zone-b", "region-b"),
    zonal_pv("pv-b-1", "100Gi", "zone-b", "region-b"),
]

CASES = [
    pytest.param(
        make_pod("pod-a"),
        [node("node-a")],
        [],
        Features(),
        None,
        SKIP,
        [None],
        SKIP,
        None,
        id="pod has not pvcs",
    ),
    pytest.param(
        claims_pod("pvc-a"),
        [node("node-a")],
        [
            make_pvc("pvc-a", WAIT_SC, volume_name="pv-a", bound=True),
            make_pv("pv-a", WAIT_SC, phase="Available"),
        ],
        Features(),
        None,
        None,
        [None],
        SKIP,
        None,
        id="all bound",
    ),
    pytest.param(
        claims_pod("pvc-a"),
        [node("node-a")],
        [],
        Features(),
        None,
        Status(Code.UNSCHEDULABLE_AND_UNRESOLVABLE, 'persistentvolumeclaim "pvc-a" not found'),
        None,
        None,
        None,
        id="PVC does not exist",
    ),
    pytest.param(
        claims_pod("pvc-a", "pvc-b"),
        [node("node-a")],
        [make_pvc("pvc-a", WAIT_SC, volume_name="pv-a", bound=True)],
        Features(),
        None,
        Status(Code.UNSCHEDULABLE_AND_UNRESOLVABLE, 'persistentvolumeclaim "pvc-b" not found'),
        None,
        None,
        None,
        id="Part of PVCs do not exist",
    ),
    pytest.param(
        claims_pod("pvc-a"),
        [node("node-a")],
        [make_pvc("pvc-a", "immediate-sc")],
        Features(),
        None,
        Status(
            Code.UNSCHEDULABLE_AND_UNRESOLVABLE, "pod has unbound immediate PersistentVolumeClaims"
        ),
        None,
        None,
        None,
        id="immediate claims not bound",
    ),
    pytest.param(
        claims_pod("pvc-a"),
        [node("node-a")],
        [make_pvc("pvc-a", WAIT_SC)],
        Features(),
        None,
        None,
        [BIND_CONFLICT],
        SKIP,
        None,
        id="unbound claims no matches",
    ),
    pytest.param(
        claims_pod("pvc-a", "pvc-b"),
        [node("node-a", foo="barbar")],
        [
            make_pvc("pvc-a", WAIT_SC, volume_name="pv-a", bound=True),
            make_pvc("pvc-b", WAIT_SC),
            make_pv("pv-a", WAIT_SC, phase="Available", node_affinity={"foo": ["bar"]}),
        ],
        Features(),
        None,
        None,
        [
            Status(
                Code.UNSCHEDULABLE_AND_UNRESOLVABLE,
                "node(s) didn't match PersistentVolume's node affinity",
                "node(s) didn't find available persistent volumes to bind",
            )
        ],
        SKIP,
        None,
        id="bound and unbound unsatisfied",
    ),
    pytest.param(
        claims_pod("pvc-a"),
        [node("node-a")],
        [make_pvc("pvc-a", WAIT_SC, volume_name="pv-a", bound=True)],
        Features(),
        None,
        None,
        [
            Status(
                Code.UNSCHEDULABLE_AND_UNRESOLVABLE,
                "node(s) unavailable due to one or more pvc(s) bound to non-existent pv(s)",
            )
        ],
        SKIP,
        None,
        id="pv not found",
    ),
    pytest.param(
        claims_pod("pvc-a"),
        [node("node-a")],
        [make_pvc("pvc-a", WAIT_SC, volume_name="pv-a", bound=True, phase="Lost")],
        Features(),
        None,
        Status(
            Code.UNSCHEDULABLE_AND_UNRESOLVABLE,
            'persistentvolumeclaim "pvc-a" bound to non-existent persistentvolume "pv-a"',
        ),
        None,
        None,
        None,
        id="pv not found claim lost",
    ),
    pytest.param(
        claims_pod("pvc-a"),
        [node("node-a"), node("node-b"), node("node-c")],
        [
            make_pvc("pvc-a", WAIT_SC, request="50Gi"),
            local_pv("pv-a-0", WAIT_SC, "200Gi", "node-a"),
            local_pv("pv-a-1", WAIT_SC, "200Gi", "node-a"),
            local_pv("pv-b-0", WAIT_SC, "100Gi", "node-b"),
            local_pv("pv-b-1", WAIT_SC, "100Gi", "node-b"),
        ],
        SCORING,
        None,
        None,
        [None, None, BIND_CONFLICT],
        None,
        [25, 50, 0],
        id="local volumes with close capacity are preferred",
    ),
    pytest.param(
        claims_pod("pvc-0", "pvc-1"),
        [node("node-a"), node("node-b"), node("node-c")],
        [
            make_pvc("pvc-0", WAIT_SC, request="50Gi"),
            make_pvc("pvc-1", WAIT_HDD_SC, request="100Gi"),
            local_pv("pv-a-0", WAIT_SC, "200Gi", "node-a"),
            local_pv("pv-a-1", WAIT_SC, "200Gi", "node-a"),
            local_pv("pv-a-2", WAIT_HDD_SC, "200Gi", "node-a"),
            local_pv("pv-a-3", WAIT_HDD_SC, "200Gi", "node-a"),
            local_pv("pv-b-0", WAIT_SC, "100Gi", "node-b"),
            local_pv("pv-b-1", WAIT_SC, "100Gi", "node-b"),
            local_pv("pv-b-2", WAIT_HDD_SC, "100Gi", "node-b"),
            local_pv("pv-b-3", WAIT_HDD_SC, "100Gi", "node-b"),
        ],
        SCORING,
        None,
        None,
        [None, None, BIND_CONFLICT],
        None,
        [38, 75, 0],
        id="local volumes with close capacity are preferred (multiple pvcs)",
    ),
    pytest.param(
        claims_pod("pvc-a"),
        ZONE_NODES,
        [make_pvc("pvc-a", WAIT_SC, request="50Gi"), *ZONE_PVS],
        SCORING,
        None,
        None,
        [None, None, None, None, BIND_CONFLICT, BIND_CONFLICT],
        None,
        [25, 25, 50, 50, 0, 0],
        id="zonal volumes with close capacity are preferred",
    ),
    pytest.param(
        claims_pod("pvc-a"),
        ZONE_NODES,
        [make_pvc("pvc-a", WAIT_SC, request="50Gi"), *ZONE_PVS],
        SCORING,
        VolumeBindingArgs(
            bind_timeout_seconds=300,
            shape=[
                UtilizationShapePoint(0, 0),
                UtilizationShapePoint(50, 3),
                UtilizationShapePoint(100, 5),
            ],
        ),
        None,
        [None, None, None, None, BIND_CONFLICT, BIND_CONFLICT],
        None,
        [15, 15, 30, 30, 0, 0],
        id="zonal volumes with close capacity are preferred (custom shape)",
    ),
    pytest.param(
        claims_pod("pvc-dynamic"),
        CAPACITY_NODES,
        [
            make_pvc("pvc-dynamic", WAIT_SC_CAPACITY, request="10Gi"),
            *capacities("100Gi", "50Gi", "10Gi"),
        ],
        SCORING,
        None,
        None,
        [None, None, None],
        None,
        [10, 20, 100],
        id="storage capacity score",
    ),
    pytest.param(
        claims_pod("pvc-dynamic", "pvc-static"),
        CAPACITY_NODES,
        [
            make_pvc("pvc-dynamic", WAIT_SC_CAPACITY, request="10Gi"),
            make_pvc("pvc-static", WAIT_SC, request="50Gi"),
            local_pv("pv-static-a", WAIT_SC, "100Gi", "node-a"),
            local_pv("pv-static-b", WAIT_SC, "100Gi", "node-b"),
            local_pv("pv-static-c", WAIT_SC, "100Gi", "node-c"),
            *capacities("100Gi", "50Gi", "10Gi"),
        ],
        SCORING,
        None,
        None,
        [None, None, None],
        None,
        [50, 50, 50],
        id="storage capacity score with static binds",
    ),
    pytest.param(
        pod_with_volumes("pod-a", pvc_volume("pvc-dynamic-0"), pvc_volume("pvc-dynamic-1")),
        [node("node-a", nodeKey="node-a")],
        [
            make_pvc("pvc-dynamic-0", WAIT_SC_CAPACITY, request="50Gi"),
            make_pvc("pvc-dynamic-1", WAIT_SC_CAPACITY, request="50Gi"),
            *capacities("100Gi"),
        ],
        SCORING,
        None,
        None,
        [None],
        None,
        [100],
        id="dynamic provisioning with multiple PVCs of the same StorageClass",
    ),
    pytest.param(
        claims_pod("pvc-dynamic"),
        CAPACITY_NODES,
        [
            make_pvc("pvc-dynamic", WAIT_SC_CAPACITY, request="10Gi"),
            *capacities("100Gi", "20Gi", "10Gi"),
        ],
        SCORING,
        None,
        None,
        [None, None, None],
        None,
        [10, 50, 100],
        id="prefer node with least allocatable",
    ),
    pytest.param(
        claims_pod("pvc-dynamic"),
        CAPACITY_NODES,
        [
            make_pvc("pvc-dynamic", WAIT_SC_CAPACITY, request="10Gi"),
            *capacities("100Gi", "20Gi", "10Gi"),
        ],
        SCORING,
        VolumeBindingArgs(
            bind_timeout_seconds=300,
            shape=[UtilizationShapePoint(0, 10), UtilizationShapePoint(100, 0)],
        ),
        None,
        [None, None, None],
        None,
        [90, 50, 0],
        id="prefer node with maximum allocatable",
    ),
]


@pytest.mark.parametrize(
    (
        "pod",
        "nodes",
        "objects",
        "features",
        "args",
        "want_pre_filter",
        "want_filter",
        "want_pre_score",
        "want_scores",
    ),
    CASES,
)
def test_volume_binding(
    pod, nodes, objects, features, args, want_pre_filter, want_filter, want_pre_score, want_scores
):
    plugin = build([*nodes, *objects], features, args)
    infos = node_infos(nodes)
    state = CycleState()
    result, status = plugin.pre_filter(state, pod, infos)
    assert (result, status) == (None, want_pre_filter)
    if status is not None and not status.is_success():
        return
    assert [plugin.filter(state, pod, info) for info in infos] == want_filter
    pre_score_status = plugin.pre_score(state, pod, infos)
    assert pre_score_status == want_pre_score
    if pre_score_status is not None:
        return
    assert [plugin.score(state, pod, info) for info in infos] == [
        (score, None) for score in want_scores
    ]


def test_pre_filter_sorts_the_claims_like_upstream():
    pod = claims_pod("pvc-a", "pvc-b")
    bound = make_pvc("pvc-a", WAIT_SC, volume_name="pv-a", bound=True)
    waiting = make_pvc("pvc-b", WAIT_SC)
    pv = make_pv("pv-a", WAIT_SC, phase="Available", node_affinity={"foo": ["bar"]})
    plugin = build([bound, waiting, pv], Features(), None)
    state = CycleState()
    plugin.pre_filter(state, pod, [])
    claims = state.read(STATE_KEY).pod_volume_claims
    assert [c.name for c in claims.bound_claims] == ["pvc-a"]
    assert [c.name for c in claims.unbound_claims_delay_binding] == ["pvc-b"]
    assert claims.unbound_claims_immediate == []
    assert {k: [v.name for v in vs] for k, vs in claims.unbound_volumes_delay_binding.items()} == {
        WAIT_SC: ["pv-a"]
    }


@pytest.mark.parametrize(
    ("state", "want"),
    [
        ("all bound", SKIP),
        ("volume to be bound", None),
        (None, Status.error("not found")),
        ("other node", Status.error('no pod volume found for node "node-a"')),
    ],
    ids=[
        "all bound skips PreBind",
        "volumes to bind on the node mean work at PreBind",
        "a missing state is an error",
        "a node Filter never accepted is an error",
    ],
)
def test_pre_bind_pre_flight(state, want):
    plugin = build([], Features(), None)
    cycle_state = CycleState()
    if state is not None:
        data = _StateData()
        data.all_bound = state == "all bound"
        data.pod_volumes_by_node = {"node-b" if state == "other node" else "node-a": PodVolumes()}
        cycle_state.write(STATE_KEY, data)
    result, status = plugin.pre_bind_pre_flight(cycle_state, make_pod(), "node-a")
    assert status == want
    assert result == PreBindPreFlightResult(allow_parallel=True)


@pytest.mark.parametrize(
    ("args", "features", "message"),
    [
        (None, Features(), "want args to be of type VolumeBindingArgs, got <nil>"),
        (
            VolumeBindingArgs(bind_timeout_seconds=-1),
            Features(),
            "bindTimeoutSeconds: Invalid value: -1: invalid BindTimeoutSeconds, should not be a "
            "negative value",
        ),
        (
            VolumeBindingArgs(bind_timeout_seconds=1, shape=DEFAULT_SHAPE),
            Features(),
            "shape: Invalid value: ...: unexpected field `shape`, remove it or turn on the "
            "feature gate StorageCapacityScoring",
        ),
        (
            VolumeBindingArgs(bind_timeout_seconds=1),
            SCORING,
            "shape: Required value: at least one point must be specified",
        ),
    ],
    ids=[
        "args of another type are refused",
        "a negative bind timeout is refused",
        "a shape without StorageCapacityScoring is refused",
        "StorageCapacityScoring needs a shape",
    ],
)
def test_construction_validates_args_as_upstreams_new(args, features, message):
    with pytest.raises(ValueError) as raised:
        VolumeBinding(args, FakeHandle(), features)
    # How the offending value is printed is the config validation's business.
    head, _, tail = message.partition("...")
    assert str(raised.value).startswith(head)
    assert str(raised.value).endswith(tail)
