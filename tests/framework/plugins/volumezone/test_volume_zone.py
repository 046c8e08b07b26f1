"""VolumeZone against upstream's tables (volume_zone_test.go)."""

from __future__ import annotations

from typing import Any

import pytest

from framework.interface.cycle_state import CycleState
from framework.interface.events import ActionType, ClusterEvent, EventResource, QueueingHint
from framework.interface.node_info import NodeInfo
from framework.interface.status import Code, Status
from framework.plugins.feature import Features
from framework.plugins.volumezone.volume_zone import ERR_REASON_CONFLICT, VolumeZone
from tests.framework.builders import make_node, make_pod
from tests.framework.storage.builders import (
    WAIT,
    FakeHandle,
    make_pv,
    make_pvc,
    make_storage_class,
    pod_with_volumes,
    pvc_volume,
)

BETA_ZONE = "failure-domain.beta.kubernetes.io/zone"
BETA_REGION = "failure-domain.beta.kubernetes.io/region"
ZONE = "topology.kubernetes.io/zone"
REGION = "topology.kubernetes.io/region"

CONFLICT = Status(Code.UNSCHEDULABLE_AND_UNRESOLVABLE, ERR_REASON_CONFLICT)
SKIP = Status(Code.SKIP)


def pod_with_claim(claim: str) -> Any:
    return pod_with_volumes("pod_1", pvc_volume(claim))


def node_info(**labels: str) -> NodeInfo:
    info = NodeInfo()
    info.set_node(make_node("host1", labels={_key(k): v for k, v in labels.items()}))
    return info


def _key(name: str) -> str:
    return {"beta_zone": BETA_ZONE, "beta_region": BETA_REGION, "zone": ZONE, "region": REGION}.get(
        name, name
    )


def run(objects: list[Any], pod: Any, info: NodeInfo) -> tuple[Any, Any]:
    plugin = VolumeZone(None, FakeHandle(objects), Features.from_gates())
    state = CycleState()
    _, pre_filter_status = plugin.pre_filter(state, pod, [])
    return pre_filter_status, plugin.filter(state, pod, info)


SINGLE_ZONE_OBJECTS = [
    make_pv("Vol_1", labels={BETA_ZONE: "us-west1-a"}),
    make_pv("Vol_2", labels={BETA_REGION: "us-west1", "uselessLabel": "none"}),
    make_pv("Vol_3", labels={BETA_REGION: "us-west1"}),
    make_pv("Vol_Stable_1", labels={ZONE: "us-west1-a"}),
    make_pv("Vol_Stable_2", labels={REGION: "us-west1", "uselessLabel": "none"}),
    make_pv("Vol_Stable_3", labels={ZONE: "us-west1-a", REGION: "us-west1-a"}),
    make_pvc("PVC_1", volume_name="Vol_1"),
    make_pvc("PVC_2", volume_name="Vol_2"),
    make_pvc("PVC_3", volume_name="Vol_3"),
    make_pvc("PVC_4", volume_name="Vol_not_exist"),
    make_pvc("PVC_Stable_1", volume_name="Vol_Stable_1"),
    make_pvc("PVC_Stable_2", volume_name="Vol_Stable_2"),
    make_pvc("PVC_Stable_3", volume_name="Vol_Stable_3"),
]


@pytest.mark.parametrize(
    ("pod", "labels", "want_pre_filter", "want_filter"),
    [
        (make_pod("pod_1"), {"beta_zone": "us-west1-a"}, SKIP, None),
        (pod_with_claim("PVC_1"), {}, None, None),
        (pod_with_claim("PVC_1"), {"beta_zone": "us-west1-a", "uselessLabel": "none"}, None, None),
        (pod_with_claim("PVC_2"), {"beta_region": "us-west1", "uselessLabel": "none"}, None, None),
        (
            pod_with_claim("PVC_2"),
            {"beta_region": "no_us-west1", "uselessLabel": "none"},
            None,
            CONFLICT,
        ),
        (
            pod_with_claim("PVC_1"),
            {"beta_zone": "no_us-west1-a", "uselessLabel": "none"},
            None,
            CONFLICT,
        ),
        (
            pod_with_claim("PVC_Stable_1"),
            {"zone": "us-west1-a", "uselessLabel": "none"},
            None,
            None,
        ),
        (
            pod_with_claim("PVC_Stable_2"),
            {"region": "us-west1", "uselessLabel": "none"},
            None,
            None,
        ),
        (
            pod_with_claim("PVC_Stable_2"),
            {"region": "no_us-west1", "uselessLabel": "none"},
            None,
            CONFLICT,
        ),
        (
            pod_with_claim("PVC_Stable_1"),
            {"zone": "no_us-west1-a", "uselessLabel": "none"},
            None,
            CONFLICT,
        ),
        (pod_with_claim("PVC_Stable_3"), {"zone": "us-west1-a"}, None, CONFLICT),
        (pod_with_claim("PVC_Stable_1"), {"beta_zone": "us-west1-a"}, None, CONFLICT),
        (pod_with_claim("PVC_1"), {"zone": "us-west1-a"}, None, None),
        (pod_with_claim("PVC_1"), {"zone": "us-west1-b"}, None, CONFLICT),
    ],
    ids=[
        "pod without volume",
        "node without labels",
        "beta zone label matched",
        "beta region label matched",
        "beta region label doesn't match",
        "beta zone label doesn't match",
        "zone label matched",
        "region label matched",
        "region label doesn't match",
        "zone label doesn't match",
        "pv with zone and region, node with only zone",
        "pv with zone, node with beta zone",
        "pv with beta label, node with ga label, matched",
        "pv with beta label, node with ga label, don't match",
    ],
)
def test_single_zone(pod, labels, want_pre_filter, want_filter):
    assert run(SINGLE_ZONE_OBJECTS, pod, node_info(**labels)) == (want_pre_filter, want_filter)


MULTI_ZONE_OBJECTS = [
    make_pv("Vol_1", labels={BETA_ZONE: "us-west1-a"}),
    make_pv("Vol_2", labels={BETA_ZONE: "us-west1-b", "uselessLabel": "none"}),
    make_pv("Vol_3", labels={BETA_ZONE: "us-west1-c__us-west1-a"}),
    make_pv("Vol_Stable_1", labels={ZONE: "us-west1-a"}),
    make_pv("Vol_Stable_2", labels={ZONE: "us-west1-c__us-west1-a"}),
    make_pvc("PVC_1", volume_name="Vol_1"),
    make_pvc("PVC_2", volume_name="Vol_2"),
    make_pvc("PVC_3", volume_name="Vol_3"),
    make_pvc("PVC_4", volume_name="Vol_not_exist"),
    make_pvc("PVC_Stable_1", volume_name="Vol_Stable_1"),
    make_pvc("PVC_Stable_2", volume_name="Vol_Stable_2"),
]


@pytest.mark.parametrize(
    ("claim", "labels", "want_filter"),
    [
        ("PVC_3", {}, None),
        ("PVC_3", {"beta_zone": "us-west1-a", "uselessLabel": "none"}, None),
        ("PVC_1", {"beta_zone": "us-west1-b", "uselessLabel": "none"}, CONFLICT),
        ("PVC_Stable_2", {"zone": "us-west1-a", "uselessLabel": "none"}, None),
        ("PVC_Stable_1", {"zone": "us-west1-b", "uselessLabel": "none"}, CONFLICT),
    ],
    ids=[
        "node without labels",
        "beta zone label matched",
        "beta zone label doesn't match",
        "zone label matched",
        "zone label doesn't match",
    ],
)
def test_multi_zone(claim, labels, want_filter):
    assert run(MULTI_ZONE_OBJECTS, pod_with_claim(claim), node_info(**labels)) == (
        None,
        want_filter,
    )


def unresolvable(message: str) -> Status:
    return Status(Code.UNSCHEDULABLE_AND_UNRESOLVABLE, message)


BINDING_OBJECTS = [
    make_storage_class("Class_Immediate", None),
    make_storage_class("Class_Wait", WAIT),
    make_pv("Vol_1", labels={BETA_ZONE: "us-west1-a"}),
    make_pvc("PVC_1", volume_name="Vol_1"),
    make_pvc("PVC_NoSC", "Class_0"),
    make_pvc("PVC_EmptySC"),
    make_pvc("PVC_WaitSC", "Class_Wait"),
    make_pvc("PVC_ImmediateSC", "Class_Immediate"),
]


@pytest.mark.parametrize(
    ("claim", "want_pre_filter", "want_filter"),
    [
        ("PVC_1", None, None),
        (
            "PVC_EmptySC",
            unresolvable("PersistentVolumeClaim had no pv name and storageClass name"),
            unresolvable("PersistentVolumeClaim had no pv name and storageClass name"),
        ),
        (
            "PVC_NoSC",
            unresolvable('storageclass.storage.k8s.io "Class_0" not found'),
            unresolvable('storageclass.storage.k8s.io "Class_0" not found'),
        ),
        (
            "PVC_ImmediateSC",
            unresolvable('VolumeBindingMode not set for StorageClass "Class_Immediate"'),
            unresolvable('VolumeBindingMode not set for StorageClass "Class_Immediate"'),
        ),
        ("PVC_WaitSC", SKIP, None),
    ],
    ids=[
        "label zone failure domain matched",
        "unbound volume empty storage class",
        "unbound volume no storage class (the informer lister's wording)",
        "unbound volume immediate binding mode not set",
        "unbound volume wait binding mode",
    ],
)
def test_with_binding(claim, want_pre_filter, want_filter):
    info = node_info(beta_zone="us-west1-a", uselessLabel="none")
    assert run(BINDING_OBJECTS, pod_with_claim(claim), info) == (want_pre_filter, want_filter)


def test_an_unbound_claim_of_an_immediate_class_has_no_pv_yet():
    objects = [make_storage_class("fast"), make_pvc("data", "fast")]
    want = unresolvable("PersistentVolume had no name")
    assert run(objects, pod_with_claim("data"), node_info()) == (want, want)


def test_missing_claims_and_volumes_are_unresolvable_with_the_listers_wording():
    assert run([], pod_with_claim("data"), node_info())[0] == unresolvable(
        'persistentvolumeclaim "data" not found'
    )
    assert run(SINGLE_ZONE_OBJECTS, pod_with_claim("PVC_4"), node_info())[0] == unresolvable(
        'persistentvolume "Vol_not_exist" not found'
    )


def test_a_label_listing_a_blank_zone_is_ignored():
    objects = [make_pv("v", labels={ZONE: "a__"}), make_pvc("c", volume_name="v")]
    assert run(objects, pod_with_claim("c"), node_info(zone="b"))[0] == SKIP


# -- queueing ----------------------------------------------------------------------------------


def plugin() -> VolumeZone:
    return VolumeZone(None, FakeHandle(), Features.from_gates())


@pytest.mark.parametrize(
    ("pod", "old", "new", "want"),
    [
        (make_pod("pod_1"), None, make_pvc("PVC_1", volume_name="Vol_1"), QueueingHint.QUEUE_SKIP),
        (
            pod_with_claim("PVC_2"),
            None,
            make_pvc("PVC_1", volume_name="Vol_1"),
            QueueingHint.QUEUE_SKIP,
        ),
        (
            pod_with_claim("PVC_1"),
            None,
            make_pvc("PVC_1", namespace="ns1", volume_name="Vol_1"),
            QueueingHint.QUEUE_SKIP,
        ),
        (pod_with_claim("PVC_1"), None, make_pvc("PVC_1", volume_name="Vol_1"), QueueingHint.QUEUE),
        (
            pod_with_claim("PVC_1"),
            make_pvc("PVC_1"),
            make_pvc("PVC_1", volume_name="Vol_1"),
            QueueingHint.QUEUE,
        ),
        (
            make_pod("pod_1"),
            make_pvc("PVC_1"),
            make_pvc("PVC_1", volume_name="Vol_1"),
            QueueingHint.QUEUE_SKIP,
        ),
    ],
    ids=[
        "pvc was added but pod refers no pvc",
        "pvc was added and pod was bound to different pvc",
        "pvc was added and pod was bound to pvc but different ns",
        "pvc was added and pod was bound to the pvc",
        "pvc was updated and pod was bound to the pvc",
        "pvc was updated but pod refers no pvc",
    ],
)
def test_it_hints_on_claim_changes(pod, old, new, want):
    assert plugin().is_schedulable_after_persistent_volume_claim_change(pod, old, new) == want


@pytest.mark.parametrize(
    ("storage_class", "want"),
    [
        (make_storage_class("SC_1"), QueueingHint.QUEUE_SKIP),
        (make_storage_class("SC_1", WAIT), QueueingHint.QUEUE),
    ],
    ids=[
        "a new class binding immediately skips",
        "a new class waiting for the first consumer queues",
    ],
)
def test_it_hints_on_storage_class_creation(storage_class, want):
    assert (
        plugin().is_schedulable_after_storage_class_added(
            pod_with_claim("PVC_1"), None, storage_class
        )
        == want
    )


@pytest.mark.parametrize(
    ("old", "new", "want"),
    [
        (None, make_pv("Vol_1", labels={BETA_ZONE: "us-west1-b"}), QueueingHint.QUEUE),
        (
            make_pv("Vol_1", labels={BETA_ZONE: "us-west1-a"}),
            make_pv("Vol_1", labels={BETA_ZONE: "us-west1-b"}),
            QueueingHint.QUEUE,
        ),
        (
            make_pv("Vol_1", labels={BETA_ZONE: "us-west1-a"}),
            make_pv("Vol_1", labels={BETA_ZONE: "us-west1-a", ZONE: "zone"}),
            QueueingHint.QUEUE,
        ),
        (
            make_pv("Vol_1", labels={BETA_ZONE: "us-west1-a", ZONE: "zone"}),
            make_pv("Vol_1", labels={BETA_ZONE: "us-west1-a", ZONE: "zone"}),
            QueueingHint.QUEUE_SKIP,
        ),
    ],
    ids=[
        "new pv was added",
        "pv was updated and changed topology",
        "pv was updated and added topology label",
        "pv was updated but no topology is changed",
    ],
)
def test_it_hints_on_volume_changes(old, new, want):
    assert (
        plugin().is_schedulable_after_persistent_volume_change(pod_with_claim("PVC_1"), old, new)
        == want
    )


@pytest.mark.parametrize(
    ("hint", "old", "new"),
    [
        ("is_schedulable_after_persistent_volume_claim_change", None, "not-a-pvc"),
        ("is_schedulable_after_storage_class_added", None, "not-a-storageclass"),
        ("is_schedulable_after_persistent_volume_change", None, "not-a-pv"),
        ("is_schedulable_after_persistent_volume_change", "not-a-pv", make_pv("Vol_1")),
    ],
    ids=[
        "a claim hint given something else raises",
        "a class hint given something else raises",
        "a volume hint given something else raises",
        "a volume hint given something else as the old object raises",
    ],
)
def test_hints_given_the_wrong_objects_raise_so_the_queue_requeues(hint, old, new):
    with pytest.raises(TypeError):
        getattr(plugin(), hint)(pod_with_claim("PVC_1"), old, new)


@pytest.mark.parametrize(
    ("queueing_hints", "node_actions"),
    [
        (True, ActionType.ADD | ActionType.UPDATE_NODE_LABEL),
        (False, ActionType.ADD | ActionType.UPDATE_NODE_LABEL | ActionType.UPDATE_NODE_TAINT),
    ],
    ids=["with queueing hints", "without queueing hints taint updates too"],
)
def test_it_registers_upstreams_events(queueing_hints, node_actions):
    pl = VolumeZone(None, FakeHandle(), Features(enable_scheduling_queue_hint=queueing_hints))
    events = [e.event for e in pl.events_to_register()]
    add_or_update = ActionType.ADD | ActionType.UPDATE
    assert events == [
        ClusterEvent(EventResource.STORAGE_CLASS, ActionType.ADD),
        ClusterEvent(EventResource.NODE, node_actions),
        ClusterEvent(EventResource.PERSISTENT_VOLUME_CLAIM, add_or_update),
        ClusterEvent(EventResource.PERSISTENT_VOLUME, add_or_update),
    ]
