"""VolumeRestrictions against upstream's tables (volume_restrictions_test.go)."""

from __future__ import annotations

from typing import Any

import pytest

from framework.interface.cycle_state import CycleState
from framework.interface.events import ActionType, ClusterEvent, EventResource, QueueingHint
from framework.interface.node_info import NodeInfo, PodInfo
from framework.interface.status import Code, Status
from framework.plugins.feature import Features
from framework.plugins.volumerestrictions.volume_restrictions import (
    ERR_REASON_DISK_CONFLICT,
    ERR_REASON_READ_WRITE_ONCE_POD_CONFLICT,
    VolumeRestrictions,
)
from tests.framework.builders import make_node, make_pod
from tests.framework.storage.builders import FakeHandle, make_pvc, pod_with_volumes, pvc_volume

GCE = {"gcePersistentDisk": {"pdName": "foo"}}
GCE_2 = {"gcePersistentDisk": {"pdName": "bar"}}
AWS = {"awsElasticBlockStore": {"volumeID": "foo"}}
AWS_2 = {"awsElasticBlockStore": {"volumeID": "bar"}}
RBD = {"rbd": {"monitors": ["a", "b"], "pool": "foo", "image": "bar", "fsType": "ext4"}}
RBD_2 = {"rbd": {"monitors": ["c", "d"], "pool": "foo", "image": "bar", "fsType": "ext4"}}
ISCSI = {"iscsi": {"targetPortal": "127.0.0.1:3260", "iqn": "iqn.2016-12.server:storage.target01"}}
ISCSI_2 = {
    "iscsi": {"targetPortal": "127.0.0.1:3260", "iqn": "iqn.2017-12.server:storage.target01"}
}

DISK_CONFLICT = Status(Code.UNSCHEDULABLE, ERR_REASON_DISK_CONFLICT)
SKIP = Status(Code.SKIP)


def volume(source: dict[str, Any], name: str = "v", read_only: bool | None = None) -> dict:
    entry = {"name": name, **{key: dict(value) for key, value in source.items()}}
    if read_only is not None:
        next(iter(entry[k] for k in source))["readOnly"] = read_only
    return entry


def pod_with(*sources: dict[str, Any], name: str = "p") -> Any:
    return pod_with_volumes(name, *(volume(s, f"v{i}") for i, s in enumerate(sources)))


def plugin(objects: list[Any] = (), node_infos: list[NodeInfo] = ()) -> VolumeRestrictions:  # type: ignore[assignment]
    return VolumeRestrictions(None, FakeHandle(objects, node_infos), Features.from_gates())


def run(pl: VolumeRestrictions, pod: Any, node_info: NodeInfo) -> tuple[Any, Any]:
    state = CycleState()
    _, pre_filter_status = pl.pre_filter(state, pod, [])
    if pre_filter_status is not None and not pre_filter_status.is_success():
        return pre_filter_status, None
    return pre_filter_status, pl.filter(state, pod, node_info)


DISK_CASES = [
    (src, src2, label)
    for src, src2, label in (
        (GCE, GCE_2, "GCE PD"),
        (AWS, AWS_2, "AWS EBS"),
        (RBD, RBD_2, "RBD"),
        (ISCSI, ISCSI_2, "iSCSI"),
    )
]


@pytest.mark.parametrize(("source", "other", "label"), DISK_CASES, ids=[c[2] for c in DISK_CASES])
@pytest.mark.parametrize(
    ("case", "want_pre_filter", "want_filter"),
    [
        ("nothing", SKIP, None),
        ("one state", SKIP, None),
        ("same state", None, DISK_CONFLICT),
        ("different state", None, None),
    ],
    ids=[
        "a pod without volumes on an empty node skips",
        "a pod without volumes next to a disk skips",
        "the same disk on the node conflicts",
        "a different disk on the node does not conflict",
    ],
)
def test_it_detects_disk_conflicts_like_upstream(
    source, other, label, case, want_pre_filter, want_filter
):
    pod, node_info = {
        "nothing": (make_pod(), NodeInfo()),
        "one state": (make_pod(), NodeInfo(pod_with(source, name="e"))),
        "same state": (pod_with(source), NodeInfo(pod_with(source, name="e"))),
        "different state": (pod_with(other), NodeInfo(pod_with(source, name="e"))),
    }[case]
    pre_filter_status, filter_status = run(plugin(), pod, node_info)
    assert pre_filter_status == want_pre_filter
    assert filter_status == want_filter


def test_it_skips_a_pod_whose_volumes_have_no_restrictions():
    pod = pod_with_volumes("p", {"name": "scratch", "emptyDir": {}})
    assert run(plugin(), pod, NodeInfo()) == (SKIP, None)


@pytest.mark.parametrize(
    ("source", "mine", "theirs", "conflict"),
    [
        (GCE, True, True, False),
        (GCE, True, False, True),
        (AWS, True, True, True),
        (ISCSI, True, True, False),
        (ISCSI, False, True, True),
        (RBD, True, True, False),
        (RBD, True, False, True),
    ],
    ids=[
        "a GCE disk mounted read-only by both pods is shared",
        "a GCE disk mounted read-write by the other pod conflicts",
        "an EBS volume is never shared, even read-only",
        "an iSCSI target read-only for both is shared",
        "an iSCSI target read-write for one conflicts",
        "an RBD image read-only for both is shared",
        "an RBD image read-write for one conflicts",
    ],
)
def test_it_lets_read_only_mounts_share_a_disk_where_upstream_does(source, mine, theirs, conflict):
    pod = pod_with_volumes("p", volume(source, read_only=mine))
    existing = pod_with_volumes("e", volume(source, read_only=theirs))
    _, filter_status = run(plugin(), pod, NodeInfo(existing))
    assert filter_status == (DISK_CONFLICT if conflict else None)


def test_rbd_images_are_the_same_when_one_monitor_is_shared():
    shared_monitor = {"rbd": {"monitors": ["b", "z"], "pool": "foo", "image": "bar"}}
    _, filter_status = run(plugin(), pod_with(shared_monitor), NodeInfo(pod_with(RBD, name="e")))
    assert filter_status == DISK_CONFLICT


# -- ReadWriteOncePod --------------------------------------------------------------------------

RWOP_1 = make_pvc("claim-with-rwop-1", access_modes=["ReadWriteOncePod"])
RWOP_2 = make_pvc("claim-with-rwop-2", access_modes=["ReadWriteOncePod"])
RWX = make_pvc("claim-with-rwx", access_modes=["ReadWriteMany"])


def claim_pod(name: str, *claims: str) -> Any:
    return pod_with_volumes(name, *(pvc_volume(c) for c in claims), node_name="node-1")


POD_WITH_ONE_PVC = claim_pod("pod-with-one-pvc", "claim-with-rwop-1")
POD_WITH_TWO_PVCS = claim_pod("pod-with-two-pvcs", "claim-with-rwop-1", "claim-with-rwop-2")
POD_WITH_ONE_CONFLICT = claim_pod("pod-with-one-conflict", "claim-with-rwop-1")
POD_WITH_TWO_CONFLICTS = claim_pod(
    "pod-with-two-conflicts", "claim-with-rwop-1", "claim-with-rwop-2"
)
POD_WITH_RWX = claim_pod("pod-with-rwx", "claim-with-rwx")


@pytest.mark.parametrize(
    ("pod", "existing", "claims", "want_pre_filter", "want_filter"),
    [
        (make_pod(), [], [], SKIP, None),
        (
            POD_WITH_ONE_PVC,
            [],
            [],
            Status(
                Code.UNSCHEDULABLE_AND_UNRESOLVABLE,
                'persistentvolumeclaim "claim-with-rwop-1" not found',
            ),
            None,
        ),
        (POD_WITH_ONE_PVC, [POD_WITH_RWX], [RWOP_1, RWX], SKIP, None),
        (
            POD_WITH_ONE_CONFLICT,
            [POD_WITH_ONE_PVC, POD_WITH_RWX],
            [RWOP_1, RWX],
            None,
            Status(Code.UNSCHEDULABLE, ERR_REASON_READ_WRITE_ONCE_POD_CONFLICT),
        ),
        (
            POD_WITH_TWO_CONFLICTS,
            [POD_WITH_TWO_PVCS, POD_WITH_RWX],
            [RWOP_1, RWOP_2, RWX],
            None,
            Status(Code.UNSCHEDULABLE, ERR_REASON_READ_WRITE_ONCE_POD_CONFLICT),
        ),
    ],
    ids=[
        "a pod without claims skips",
        "a missing claim is unresolvable with the lister's message",
        "a ReadWriteOncePod claim nobody uses skips",
        "a ReadWriteOncePod claim in use makes the node unschedulable",
        "two ReadWriteOncePod claims in use make the node unschedulable",
    ],
)
def test_it_enforces_read_write_once_pod_claims(
    pod, existing, claims, want_pre_filter, want_filter
):
    node_info = NodeInfo(*existing)
    node_info.set_node(make_node("node-1"))
    pl = plugin(claims, [node_info])
    assert run(pl, pod, node_info) == (want_pre_filter, want_filter)


def test_preemption_dry_runs_update_the_claim_use_count():
    node_info = NodeInfo(POD_WITH_ONE_PVC)
    node_info.set_node(make_node("node-1"))
    pl = plugin([RWOP_1], [node_info])
    state = CycleState()
    _, status = pl.pre_filter(state, POD_WITH_ONE_CONFLICT, [node_info])
    assert status is None
    victim = PodInfo(POD_WITH_ONE_PVC)
    pl.remove_pod(state, POD_WITH_ONE_CONFLICT, victim, node_info)
    assert pl.filter(state, POD_WITH_ONE_CONFLICT, NodeInfo()) is None
    pl.add_pod(state, POD_WITH_ONE_CONFLICT, victim, node_info)
    assert pl.filter(state, POD_WITH_ONE_CONFLICT, NodeInfo()) == Status(
        Code.UNSCHEDULABLE, ERR_REASON_READ_WRITE_ONCE_POD_CONFLICT
    )


def test_filter_without_pre_filter_state_is_an_error():
    status = plugin().filter(CycleState(), make_pod(), NodeInfo())
    assert status == Status.error('cannot read "PreFilterVolumeRestrictions" from cycleState')


def test_a_cloned_state_counts_on_its_own():
    node_info = NodeInfo(POD_WITH_ONE_PVC)
    pl = plugin([RWOP_1], [node_info])
    state = CycleState()
    pl.pre_filter(state, POD_WITH_ONE_CONFLICT, [node_info])
    copy = state.clone()
    pl.remove_pod(copy, POD_WITH_ONE_CONFLICT, PodInfo(POD_WITH_ONE_PVC), node_info)
    assert pl.filter(copy, POD_WITH_ONE_CONFLICT, NodeInfo()) is None
    assert pl.filter(state, POD_WITH_ONE_CONFLICT, NodeInfo()) is not None


# -- queueing ----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("pod", "deleted", "want"),
    [
        (pod_with(GCE), pod_with(GCE, name="d"), QueueingHint.QUEUE),
        (pod_with(GCE), pod_with(GCE_2, name="d"), QueueingHint.QUEUE_SKIP),
        (pod_with(AWS), pod_with(AWS, name="d"), QueueingHint.QUEUE),
        (pod_with(AWS), pod_with(AWS_2, name="d"), QueueingHint.QUEUE_SKIP),
        (pod_with(RBD), pod_with(RBD, name="d"), QueueingHint.QUEUE),
        (pod_with(RBD), pod_with(RBD_2, name="d"), QueueingHint.QUEUE_SKIP),
        (pod_with(ISCSI), pod_with(ISCSI, name="d"), QueueingHint.QUEUE),
        (pod_with(ISCSI), pod_with(ISCSI_2, name="d"), QueueingHint.QUEUE_SKIP),
        (claim_pod("pod1", "claim-rwop"), claim_pod("pod2", "claim-rwop"), QueueingHint.QUEUE),
        (
            claim_pod("pod1", "claim-1-rwop"),
            claim_pod("pod2", "claim-2-rwop"),
            QueueingHint.QUEUE_SKIP,
        ),
        (
            pod_with(GCE),
            make_pod("d", namespace="other", volumes=[volume(GCE)]),
            QueueingHint.QUEUE_SKIP,
        ),
    ],
    ids=[
        "deleting a pod with the same GCE disk queues",
        "deleting a pod with another GCE disk skips",
        "deleting a pod with the same EBS volume queues",
        "deleting a pod with another EBS volume skips",
        "deleting a pod with the same RBD image queues",
        "deleting a pod with another RBD image skips",
        "deleting a pod with the same iSCSI target queues",
        "deleting a pod with another iSCSI target skips",
        "deleting a pod that uses the same claim queues",
        "deleting a pod that uses other claims skips",
        "deleting a pod in another namespace skips",
    ],
)
def test_it_hints_on_pod_deletion(pod, deleted, want):
    assert plugin().is_schedulable_after_pod_deleted(pod, deleted, None) == want


POD_TWO_RWX = claim_pod("pod-with-two-pvcs", "claim-with-rwx-1", "claim-with-rwx-2")
POD_ONE_RWX = claim_pod("pod-with-one-pvc", "claim-with-rwx-1")
POD_OTHER_NS = make_pod(
    "pod-with-one-pvc", namespace="kube-system", volumes=[pvc_volume("claim-with-rwx-1")]
)
PVC_1 = make_pvc("claim-with-rwx-1", access_modes=["ReadWriteMany"])
PVC_2 = make_pvc("claim-with-rwx-2", access_modes=["ReadWriteMany"])


@pytest.mark.parametrize(
    ("pod", "claim", "want"),
    [
        (POD_TWO_RWX, PVC_1, QueueingHint.QUEUE),
        (POD_ONE_RWX, PVC_2, QueueingHint.QUEUE_SKIP),
        (POD_OTHER_NS, PVC_1, QueueingHint.QUEUE_SKIP),
    ],
    ids=[
        "a new claim the pod uses queues",
        "a new claim the pod does not use skips",
        "a new claim in another namespace skips",
    ],
)
def test_it_hints_on_claim_creation(pod, claim, want):
    assert plugin().is_schedulable_after_persistent_volume_claim_added(pod, None, claim) == want


def test_a_hint_given_the_wrong_kind_of_object_raises_so_the_queue_requeues():
    with pytest.raises(TypeError):
        plugin().is_schedulable_after_persistent_volume_claim_added(make_pod(), None, "pvc")


@pytest.mark.parametrize(
    ("queueing_hints", "node_actions"),
    [
        (True, ActionType.ADD),
        (False, ActionType.ADD | ActionType.UPDATE_NODE_TAINT | ActionType.UPDATE_NODE_LABEL),
    ],
    ids=["with queueing hints only node additions", "without hints taint and label updates too"],
)
def test_it_registers_upstreams_events(queueing_hints, node_actions):
    features = Features(enable_scheduling_queue_hint=queueing_hints)
    pl = VolumeRestrictions(None, FakeHandle(), features)
    events = [(e.event, e.queueing_hint_fn is not None) for e in pl.events_to_register()]
    assert events == [
        (ClusterEvent(EventResource.POD, ActionType.DELETE), True),
        (ClusterEvent(EventResource.NODE, node_actions), False),
        (ClusterEvent(EventResource.PERSISTENT_VOLUME_CLAIM, ActionType.ADD), True),
    ]
