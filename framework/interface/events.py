"""Cluster events plugins register for, and the queueing hints that decide whether to requeue."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from enum import IntEnum, IntFlag
from typing import Any


class ActionType(IntFlag):
    """One kind of change to a resource; values combine bitwise, as upstream."""

    NONE = 0
    ADD = 1 << 0
    DELETE = 1 << 1
    UPDATE_NODE_ALLOCATABLE = 1 << 2
    UPDATE_NODE_LABEL = 1 << 3
    UPDATE_NODE_TAINT = 1 << 4
    UPDATE_NODE_CONDITION = 1 << 5
    UPDATE_NODE_ANNOTATION = 1 << 6
    UPDATE_NODE_DECLARED_FEATURE = 1 << 7
    UPDATE_POD_LABEL = 1 << 8
    UPDATE_POD_SCALE_DOWN = 1 << 9
    UPDATE_POD_TOLERATION = 1 << 10
    UPDATE_POD_SCHEDULING_GATES_ELIMINATED = 1 << 11
    UPDATE_POD_GENERATED_RESOURCE_CLAIM = 1 << 12
    ALL = (1 << 13) - 1
    UPDATE = ALL & ~(ADD | DELETE)

    def label(self) -> str:
        """The upstream spelling (``Add``, ``UpdateNodeTaint``...), used in event labels."""
        return _ACTION_LABELS.get(self, "")


_ACTION_LABELS = {
    ActionType.ADD: "Add",
    ActionType.DELETE: "Delete",
    ActionType.UPDATE_NODE_ALLOCATABLE: "UpdateNodeAllocatable",
    ActionType.UPDATE_NODE_LABEL: "UpdateNodeLabel",
    ActionType.UPDATE_NODE_TAINT: "UpdateNodeTaint",
    ActionType.UPDATE_NODE_CONDITION: "UpdateNodeCondition",
    ActionType.UPDATE_NODE_ANNOTATION: "UpdateNodeAnnotation",
    ActionType.UPDATE_NODE_DECLARED_FEATURE: "UpdateNodeDeclaredFeature",
    ActionType.UPDATE_POD_LABEL: "UpdatePodLabel",
    ActionType.UPDATE_POD_SCALE_DOWN: "UpdatePodScaleDown",
    ActionType.UPDATE_POD_TOLERATION: "UpdatePodToleration",
    ActionType.UPDATE_POD_SCHEDULING_GATES_ELIMINATED: "UpdatePodSchedulingGatesEliminated",
    ActionType.UPDATE_POD_GENERATED_RESOURCE_CLAIM: "UpdatePodGeneratedResourceClaim",
    ActionType.ALL: "All",
    ActionType.UPDATE: "Update",
}


class EventResource:
    """Resource names used in cluster events (group/kind shorthand, upstream's strings)."""

    POD = "Pod"
    ASSIGNED_POD = "AssignedPod"
    UNSCHEDULABLE_POD = "UnschedulablePod"
    NODE = "Node"
    PERSISTENT_VOLUME = "PersistentVolume"
    PERSISTENT_VOLUME_CLAIM = "PersistentVolumeClaim"
    CSI_NODE = "storage.k8s.io/CSINode"
    CSI_DRIVER = "storage.k8s.io/CSIDriver"
    VOLUME_ATTACHMENT = "storage.k8s.io/VolumeAttachment"
    CSI_STORAGE_CAPACITY = "storage.k8s.io/CSIStorageCapacity"
    STORAGE_CLASS = "storage.k8s.io/StorageClass"
    RESOURCE_CLAIM = "resource.k8s.io/ResourceClaim"
    RESOURCE_SLICE = "resource.k8s.io/ResourceSlice"
    DEVICE_CLASS = "resource.k8s.io/DeviceClass"
    POD_GROUP = "scheduling.k8s.io/PodGroup"
    WILDCARD = "*"


class QueueingHint(IntEnum):
    """Whether an event may make a pod rejected by a plugin schedulable."""

    QUEUE_SKIP = 0
    QUEUE = 1

    def __str__(self) -> str:
        return "QueueSkip" if self is QueueingHint.QUEUE_SKIP else "Queue"


@dataclass(frozen=True, slots=True)
class ClusterEvent:
    """A change to a resource: which resource, which action(s), and an optional custom label."""

    resource: str
    action_type: ActionType
    custom_label: str = ""

    def label(self) -> str:
        return self.custom_label or f"{self.resource}{self.action_type.label()}"

    def is_wildcard(self) -> bool:
        return self.resource == EventResource.WILDCARD and self.action_type == ActionType.ALL

    def matches(self, incoming: ClusterEvent) -> bool:
        """True if this registered event covers ``incoming`` (upstream MatchClusterEvents)."""
        if self.is_wildcard():
            return True
        return (
            _resource_matches(self.resource, incoming.resource)
            and bool(self.action_type & incoming.action_type)
            and incoming.action_type <= self.action_type
        )


def _resource_matches(registered: str, incoming: str) -> bool:
    return (
        registered == EventResource.WILDCARD
        or registered == incoming
        or (
            registered == EventResource.POD
            and incoming in (EventResource.ASSIGNED_POD, EventResource.UNSCHEDULABLE_POD)
        )
    )


QueueingHintFn = Callable[[Any, Any, Any], QueueingHint]
"""``hint(pod, old_obj, new_obj) -> QueueingHint``; raising counts as Queue."""


@dataclass(frozen=True, slots=True)
class ClusterEventWithHint:
    """An event a plugin registers, with an optional hint function (None means always Queue)."""

    event: ClusterEvent
    queueing_hint_fn: QueueingHintFn | None = None


def unroll_wildcard_resource() -> list[ClusterEventWithHint]:
    """Every specific resource with All actions: what a plugin without EnqueueExtensions gets."""
    resources = (
        EventResource.POD,
        EventResource.NODE,
        EventResource.PERSISTENT_VOLUME,
        EventResource.PERSISTENT_VOLUME_CLAIM,
        EventResource.CSI_NODE,
        EventResource.CSI_DRIVER,
        EventResource.CSI_STORAGE_CAPACITY,
        EventResource.STORAGE_CLASS,
        EventResource.RESOURCE_CLAIM,
        EventResource.DEVICE_CLASS,
    )
    return [ClusterEventWithHint(ClusterEvent(r, ActionType.ALL)) for r in resources]
