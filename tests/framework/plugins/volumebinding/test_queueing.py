"""VolumeBinding's events and queueing hints against upstream's tables."""

from __future__ import annotations

from typing import Any

import pytest

from framework.config.types import VolumeBindingArgs
from framework.interface.events import ActionType, ClusterEvent, EventResource, QueueingHint
from framework.plugins.feature import Features
from framework.plugins.volumebinding.volume_binding import VolumeBinding
from tests.framework.builders import make_pod
from tests.framework.storage.builders import (
    CSIStorageCapacity,
    FakeHandle,
    ephemeral_volume,
    make_csi_driver,
    make_csi_node,
    make_pvc,
    make_storage_class,
    pvc_volume,
)

QUEUE, SKIP = QueueingHint.QUEUE, QueueingHint.QUEUE_SKIP
MIGRATED = "storage.alpha.kubernetes.io/migrated-plugins"


def plugin(features: Features | None = None) -> VolumeBinding:
    return VolumeBinding(
        VolumeBindingArgs(bind_timeout_seconds=600), FakeHandle(), features or Features()
    )


def csi_node(migrated: str | None) -> Any:
    return make_csi_node("csinode-a", {}, {MIGRATED: migrated} if migrated is not None else None)


@pytest.mark.parametrize(
    ("old", "new", "want"),
    [
        (None, csi_node(None), QUEUE),
        (csi_node("test1"), csi_node("test1, test2"), QUEUE),
        (csi_node("test1"), csi_node("test2"), QUEUE),
        (csi_node("test1"), csi_node("test1"), SKIP),
    ],
    ids=[
        "CSINode is newly created",
        "CSINode's migrated-plugins annotations is added",
        "CSINode's migrated-plugins annotation is updated",
        "CSINode is updated but migrated-plugins annotation gets unchanged",
    ],
)
def test_csi_node_hint(old, new, want):
    assert plugin().is_schedulable_after_csi_node_change(make_pod("pod-a"), old, new) == want


@pytest.mark.parametrize(
    ("pod", "claim", "want"),
    [
        (make_pod("pod-a", volumes=[{"name": "e", "emptyDir": {}}]), make_pvc("pvc-b"), SKIP),
        (
            make_pod("pod-a", namespace="ns-a", volumes=[pvc_volume("pvc-a")]),
            make_pvc("pvc-a", namespace="ns-b"),
            SKIP,
        ),
        (make_pod("pod-a", volumes=[pvc_volume("pvc-a")]), make_pvc("pvc-b"), SKIP),
        (make_pod("pod-a", volumes=[ephemeral_volume("ephemeral")]), make_pvc("pvc-b"), SKIP),
        (make_pod("pod-a", volumes=[pvc_volume("pvc-a")]), make_pvc("pvc-a"), QUEUE),
        (
            make_pod("pod-a", volumes=[ephemeral_volume("ephemeral")]),
            make_pvc("pod-a-ephemeral"),
            QUEUE,
        ),
    ],
    ids=[
        "pod has no pvc or ephemeral volumes",
        "pvc with the same name as the pod's in a different namespace is modified",
        "pod has no pvc that is being modified",
        "pod has no generic ephemeral volume that is being modified",
        "pod has the pvc that is being modified",
        "pod has the generic ephemeral volume that is being modified",
    ],
)
def test_claim_hint(pod, claim, want):
    assert plugin().is_schedulable_after_persistent_volume_claim_change(pod, None, claim) == want


@pytest.mark.parametrize(
    ("old", "new", "want"),
    [
        (None, make_storage_class("sc-a"), QUEUE),
        (
            make_storage_class("sc-a"),
            make_storage_class("sc-a", allowed_topologies={"kubernetes.io/hostname": ["node-a"]}),
            QUEUE,
        ),
        (make_storage_class("sc-a"), make_storage_class("sc-a"), SKIP),
    ],
    ids=[
        "When a new StorageClass is created, it returns Queue",
        "When the AllowedTopologies are changed, it returns Queue",
        "When there are no changes to the StorageClass, it returns QueueSkip",
    ],
)
def test_storage_class_hint(old, new, want):
    assert plugin().is_schedulable_after_storage_class_change(make_pod("pod-a"), old, new) == want


def capacity(total: int | None = None, maximum: int | None = None) -> Any:
    manifest: dict[str, Any] = {"kind": "CSIStorageCapacity", "metadata": {"name": "cap-a"}}
    if total is not None:
        manifest["capacity"] = total
    if maximum is not None:
        manifest["maximumVolumeSize"] = maximum
    return CSIStorageCapacity.from_dict(manifest)


@pytest.mark.parametrize(
    ("old", "new", "want"),
    [
        (None, capacity(), QUEUE),
        (capacity(), capacity(100), QUEUE),
        (capacity(), capacity(maximum=100), QUEUE),
        (capacity(50), capacity(100), QUEUE),
        (capacity(100, 50), capacity(100), QUEUE),
        (capacity(100, 50), capacity(100, 60), QUEUE),
        (capacity(100, 50), capacity(100, 50), SKIP),
        (capacity(100), capacity(100), SKIP),
        (capacity(100, 50), capacity(50), SKIP),
        (capacity(100), capacity(90), SKIP),
        (capacity(maximum=100), capacity(maximum=90), SKIP),
    ],
    ids=[
        "When a new CSIStorageCapacity is created, it returns Queue",
        "When the volume limit is increase(Capacity set), it returns Queue",
        "When the volume limit is increase(MaximumVolumeSize set), it returns Queue",
        "When the volume limit is increase(Capacity increase), it returns Queue",
        "When the volume limit is increase(MaximumVolumeSize unset), it returns Queue",
        "When the volume limit is increase(MaximumVolumeSize increase), it returns Queue",
        "When there are no changes to the CSIStorageCapacity, it returns QueueSkip",
        "When the volume limit is equal(Capacity), it returns QueueSkip",
        "When the volume limit is equal(MaximumVolumeSize unset), it returns QueueSkip",
        "When the volume limit is decrease(Capacity), it returns QueueSkip",
        "When the volume limit is decrease(MaximumVolumeSize), it returns QueueSkip",
    ],
)
def test_csi_storage_capacity_hint(old, new, want):
    hint = plugin().is_schedulable_after_csi_storage_capacity_change(make_pod("pod-a"), old, new)
    assert hint == want


def csi_pod(driver: str | None) -> Any:
    volumes = [{"name": "c", "csi": {"driver": driver}}] if driver else []
    return make_pod("pod-a", volumes=volumes)


def driver(name: str, storage_capacity: bool | None) -> Any:
    if storage_capacity is None:
        return make_csi_driver(name)
    return make_csi_driver(name, storageCapacity=storage_capacity)


@pytest.mark.parametrize(
    ("pod", "old", "new", "want"),
    [
        (csi_pod(None), driver("test1", None), driver("test1", True), SKIP),
        (csi_pod("test1"), driver("test2", True), driver("test2", False), SKIP),
        (csi_pod("test1"), driver("test1", None), driver("test1", None), SKIP),
        (csi_pod("test1"), driver("test1", False), driver("test1", False), SKIP),
        (csi_pod("test1"), driver("test1", True), driver("test1", None), QUEUE),
        (csi_pod("test1"), driver("test1", True), driver("test1", True), SKIP),
        (csi_pod("test1"), driver("test1", True), driver("test1", False), QUEUE),
    ],
    ids=[
        "pod has no CSIDriver",
        "driver name in pod and csidriver name are different",
        "original StorageCapacity is nil",
        "original StorageCapacity is false",
        "modified StorageCapacity is nil",
        "modified StorageCapacity is true",
        "modified StorageCapacity is false",
    ],
)
def test_csi_driver_hint(pod, old, new, want):
    assert plugin().is_schedulable_after_csi_driver_change(pod, old, new) == want


@pytest.mark.parametrize(
    "hint",
    [
        "is_schedulable_after_csi_node_change",
        "is_schedulable_after_persistent_volume_claim_change",
        "is_schedulable_after_storage_class_change",
        "is_schedulable_after_csi_storage_capacity_change",
        "is_schedulable_after_csi_driver_change",
    ],
    ids=[
        "the CSINode hint refuses other objects",
        "the claim hint refuses other objects",
        "the class hint refuses other objects",
        "the capacity hint refuses other objects",
        "the driver hint refuses other objects",
    ],
)
def test_hints_given_unexpected_objects_raise_so_the_queue_requeues(hint):
    with pytest.raises(TypeError):
        getattr(plugin(), hint)(make_pod("pod-a"), object(), object())


@pytest.mark.parametrize(
    ("queueing_hints", "node_actions"),
    [
        (True, ActionType.ADD | ActionType.UPDATE_NODE_LABEL),
        (False, ActionType.ADD | ActionType.UPDATE_NODE_LABEL | ActionType.UPDATE_NODE_TAINT),
    ],
    ids=["with queueing hints", "without queueing hints taint updates too"],
)
def test_it_registers_upstreams_events(queueing_hints, node_actions):
    pl = plugin(Features(enable_scheduling_queue_hint=queueing_hints))
    add_or_update = ActionType.ADD | ActionType.UPDATE
    assert [(e.event, e.queueing_hint_fn is not None) for e in pl.events_to_register()] == [
        (ClusterEvent(EventResource.STORAGE_CLASS, add_or_update), True),
        (ClusterEvent(EventResource.PERSISTENT_VOLUME_CLAIM, add_or_update), True),
        (ClusterEvent(EventResource.PERSISTENT_VOLUME, add_or_update), False),
        (ClusterEvent(EventResource.NODE, node_actions), False),
        (ClusterEvent(EventResource.CSI_NODE, add_or_update), True),
        (ClusterEvent(EventResource.CSI_DRIVER, ActionType.UPDATE), True),
        (ClusterEvent(EventResource.CSI_STORAGE_CAPACITY, add_or_update), True),
    ]
