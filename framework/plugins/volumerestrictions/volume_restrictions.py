"""VolumeRestrictions: disks two pods may not share on a node, and ReadWriteOncePod claims.

Filter rejects a node where another pod already mounts the same GCE PD, AWS EBS volume, RBD
image or iSCSI target in a conflicting way. PreFilter counts how many scheduled pods already
use the pod's ReadWriteOncePod claims; any use makes every node Unschedulable, which
preemption may resolve (AddPod / RemovePod keep the count right in its dry runs).
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from framework.api.core import PersistentVolumeClaim
from framework.api.pod import Pod
from framework.api.volume import Volume
from framework.interface.cycle_state import CycleState, NotFoundError
from framework.interface.events import (
    ActionType,
    ClusterEvent,
    ClusterEventWithHint,
    EventResource,
    QueueingHint,
)
from framework.interface.node_info import NodeInfo, PodInfo
from framework.interface.plugins import (
    EnqueueExtensions,
    FilterPlugin,
    PreFilterExtensions,
    PreFilterPlugin,
    SignPlugin,
)
from framework.interface.signers import VOLUMES_SIGNER_NAME, volumes_signer
from framework.interface.status import Code, Status
from framework.interface.types import PreFilterResult, SignFragment
from framework.plugins import names
from framework.plugins.feature import Features
from framework.plugins.helper.typed import as_typed
from framework.storage import lookup
from framework.storage.volume import READ_WRITE_ONCE_POD

PRE_FILTER_STATE_KEY = "PreFilter" + names.VOLUME_RESTRICTIONS

ERR_REASON_DISK_CONFLICT = "node(s) had no available disk"
ERR_REASON_READ_WRITE_ONCE_POD_CONFLICT = (
    "node(s) unavailable due to PersistentVolumeClaim with ReadWriteOncePod access mode "
    "already in-use by another pod"
)


class _PreFilterState:
    """The pod's ReadWriteOncePod claim names, and how many scheduled pods use them."""

    __slots__ = ("conflicting_pvc_ref_count", "read_write_once_pod_pvcs")

    def __init__(self, read_write_once_pod_pvcs: frozenset[str], count: int) -> None:
        self.read_write_once_pod_pvcs = read_write_once_pod_pvcs
        self.conflicting_pvc_ref_count = count

    def update_with_pod(self, pod_info: PodInfo, multiplier: int) -> None:
        self.conflicting_pvc_ref_count += multiplier * self._conflicts_of(pod_info.pod)

    def _conflicts_of(self, pod: Pod) -> int:
        return sum(
            1
            for volume in pod.spec.volumes
            if volume.persistent_volume_claim is not None
            and volume.persistent_volume_claim.claim_name in self.read_write_once_pod_pvcs
        )

    def clone(self) -> _PreFilterState:
        return _PreFilterState(self.read_write_once_pod_pvcs, self.conflicting_pvc_ref_count)


class VolumeRestrictions(
    PreFilterPlugin, PreFilterExtensions, FilterPlugin, EnqueueExtensions, SignPlugin
):
    """Checks volume conflicts with the pods already on a node."""

    name = names.VOLUME_RESTRICTIONS

    def __init__(self, args: Any, handle: Any, features: Features) -> None:
        self.handle = handle
        self.enable_scheduling_queue_hint = features.enable_scheduling_queue_hint

    def sign_pod(self, pod: Pod) -> tuple[list[SignFragment] | None, Status | None]:
        """Feasibility depends on the pod's volume sources (ConfigMaps and Secrets aside)."""
        return [SignFragment(VOLUMES_SIGNER_NAME, volumes_signer(pod))], None

    # -- queueing ------------------------------------------------------------------------------

    def events_to_register(self) -> list[ClusterEventWithHint]:
        # Without hints the queue's pre-check may swallow a Node/Add (upstream issue 109437).
        node_actions = ActionType.ADD
        if not self.enable_scheduling_queue_hint:
            node_actions |= ActionType.UPDATE_NODE_TAINT | ActionType.UPDATE_NODE_LABEL
        return [
            # Volumes are immutable, so only a deletion can release a conflicting disk or claim.
            ClusterEventWithHint(
                ClusterEvent(EventResource.POD, ActionType.DELETE),
                self.is_schedulable_after_pod_deleted,
            ),
            ClusterEventWithHint(ClusterEvent(EventResource.NODE, node_actions)),
            # PreFilter needs the claim to read its access modes.
            ClusterEventWithHint(
                ClusterEvent(EventResource.PERSISTENT_VOLUME_CLAIM, ActionType.ADD),
                self.is_schedulable_after_persistent_volume_claim_added,
            ),
        ]

    def is_schedulable_after_persistent_volume_claim_added(
        self, pod: Pod, old_obj: Any, new_obj: Any
    ) -> QueueingHint:
        _, claim = as_typed(PersistentVolumeClaim, old_obj, new_obj)
        if claim.namespace != pod.namespace:
            return QueueingHint.QUEUE_SKIP
        if claim.name in _claim_names(pod):
            return QueueingHint.QUEUE
        return QueueingHint.QUEUE_SKIP

    def is_schedulable_after_pod_deleted(
        self, pod: Pod, old_obj: Any, new_obj: Any
    ) -> QueueingHint:
        deleted, _ = as_typed(Pod, old_obj, new_obj)
        if deleted.namespace != pod.namespace:
            return QueueingHint.QUEUE_SKIP
        if not satisfy_volume_conflicts(pod, [deleted]):
            return QueueingHint.QUEUE
        # The claim may be ReadWriteOncePod; reading it to be sure is left out as upstream does.
        if _claim_names(pod) & _claim_names(deleted):
            return QueueingHint.QUEUE
        return QueueingHint.QUEUE_SKIP

    # -- filtering -----------------------------------------------------------------------------

    def pre_filter(
        self, state: CycleState, pod: Pod, nodes: list[NodeInfo]
    ) -> tuple[PreFilterResult | None, Status | None]:
        needs_check = any(_needs_restrictions_check(volume) for volume in pod.spec.volumes)
        try:
            pvcs = self._read_write_once_pod_pvcs(pod)
        except lookup.NotFoundError as err:
            return None, Status(Code.UNSCHEDULABLE_AND_UNRESOLVABLE, str(err))
        pre_filter_state = _PreFilterState(pvcs, self._count_pods_using(pod.namespace, pvcs))
        if not needs_check and pre_filter_state.conflicting_pvc_ref_count == 0:
            return None, Status(Code.SKIP)
        state.write(PRE_FILTER_STATE_KEY, pre_filter_state)
        return None, None

    def _read_write_once_pod_pvcs(self, pod: Pod) -> frozenset[str]:
        cluster = self.handle.cluster()
        names_found = set()
        for volume in pod.spec.volumes:
            if volume.persistent_volume_claim is None:
                continue
            claim = lookup.get_pvc(
                cluster, pod.namespace, volume.persistent_volume_claim.claim_name
            )
            if READ_WRITE_ONCE_POD in claim.spec.access_modes:
                names_found.add(claim.name)
        return frozenset(names_found)

    def _count_pods_using(self, namespace: str, pvcs: Iterable[str]) -> int:
        """At most one scheduled pod can use a ReadWriteOncePod claim, so this counts claims."""
        storage_infos = self.handle.snapshot_shared_lister().storage_infos()
        return sum(1 for name in pvcs if storage_infos.is_pvc_used_by_pods(f"{namespace}/{name}"))

    def pre_filter_extensions(self) -> PreFilterExtensions:
        return self

    def add_pod(
        self, state: CycleState, pod_to_schedule: Pod, pod_info_to_add: PodInfo, node_info: NodeInfo
    ) -> Status | None:
        return self._update_state(state, pod_info_to_add, 1)

    def remove_pod(
        self,
        state: CycleState,
        pod_to_schedule: Pod,
        pod_info_to_remove: PodInfo,
        node_info: NodeInfo,
    ) -> Status | None:
        return self._update_state(state, pod_info_to_remove, -1)

    def _update_state(self, state: CycleState, pod_info: PodInfo, multiplier: int) -> Status | None:
        pre_filter_state, status = _read_state(state)
        if pre_filter_state is None:
            return status
        pre_filter_state.update_with_pod(pod_info, multiplier)
        return None

    def filter(self, state: CycleState, pod: Pod, node_info: NodeInfo) -> Status | None:
        if not satisfy_volume_conflicts(pod, (info.pod for info in node_info.pods)):
            return Status(Code.UNSCHEDULABLE, ERR_REASON_DISK_CONFLICT)
        pre_filter_state, status = _read_state(state)
        if pre_filter_state is None:
            return status
        if pre_filter_state.conflicting_pvc_ref_count > 0:
            return Status(Code.UNSCHEDULABLE, ERR_REASON_READ_WRITE_ONCE_POD_CONFLICT)
        return None


def _read_state(state: CycleState) -> tuple[_PreFilterState | None, Status | None]:
    try:
        return state.read(PRE_FILTER_STATE_KEY), None  # type: ignore[return-value]
    except NotFoundError:
        return None, Status.error(f'cannot read "{PRE_FILTER_STATE_KEY}" from cycleState')


def _claim_names(pod: Pod) -> set[str]:
    return {
        volume.persistent_volume_claim.claim_name
        for volume in pod.spec.volumes
        if volume.persistent_volume_claim is not None
    }


def _needs_restrictions_check(volume: Volume) -> bool:
    return (
        volume.gce_persistent_disk is not None
        or volume.aws_elastic_block_store is not None
        or volume.rbd is not None
        or volume.iscsi is not None
    )


def satisfy_volume_conflicts(pod: Pod, existing_pods: Iterable[Pod]) -> bool:
    """Whether none of the pod's restricted volumes conflicts with a volume of those pods."""
    volumes = [volume for volume in pod.spec.volumes if _needs_restrictions_check(volume)]
    if not volumes:
        return True
    return not any(
        _is_volume_conflict(volume, existing) for existing in existing_pods for volume in volumes
    )


def _is_volume_conflict(volume: Volume, pod: Pod) -> bool:
    return any(_conflicts(volume, existing) for existing in pod.spec.volumes)


def _conflicts(volume: Volume, existing: Volume) -> bool:
    """Same disk, unless every mount is read-only (AWS EBS allows no sharing at all)."""
    return (
        _gce_conflict(volume, existing)
        or _aws_conflict(volume, existing)
        or _iscsi_conflict(volume, existing)
        or _rbd_conflict(volume, existing)
    )


def _gce_conflict(volume: Volume, existing: Volume) -> bool:
    disk, other = volume.gce_persistent_disk, existing.gce_persistent_disk
    return (
        disk is not None
        and other is not None
        and disk.pd_name == other.pd_name
        and not (disk.read_only and other.read_only)
    )


def _aws_conflict(volume: Volume, existing: Volume) -> bool:
    disk, other = volume.aws_elastic_block_store, existing.aws_elastic_block_store
    return disk is not None and other is not None and disk.volume_id == other.volume_id


def _iscsi_conflict(volume: Volume, existing: Volume) -> bool:
    # iSCSI volumes are the same target when they share the IQN.
    disk, other = volume.iscsi, existing.iscsi
    return (
        disk is not None
        and other is not None
        and disk.iqn == other.iqn
        and not (disk.read_only and other.read_only)
    )


def _rbd_conflict(volume: Volume, existing: Volume) -> bool:
    # The same image: a shared Ceph monitor, the same pool and the same image name.
    disk, other = volume.rbd, existing.rbd
    return (
        disk is not None
        and other is not None
        and bool(set(disk.monitors) & set(other.monitors))
        and disk.pool == other.pool
        and disk.image == other.image
        and not (disk.read_only and other.read_only)
    )
