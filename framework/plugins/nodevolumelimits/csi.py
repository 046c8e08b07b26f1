"""NodeVolumeLimits (upstream type ``CSILimits``): how many volumes a CSI driver may attach.

A node's CSINode reports, per driver, how many volumes it can attach. Filter counts the
distinct volumes (by driver and volume handle) the node's pods and VolumeAttachments already
use, adds the pod's new ones, and rejects the node when a driver would exceed its limit.
In-tree volumes whose plugin migrated to CSI count under the CSI driver; claims not bound yet
count under their class's provisioner with a handle unique to the claim.
"""

from __future__ import annotations

import uuid
from collections import Counter
from typing import Any

from framework.api.core import PersistentVolume, PersistentVolumeClaim
from framework.api.pod import Pod
from framework.api.storage import CSINode
from framework.api.volume import Volume
from framework.interface.cycle_state import CycleState, NotFoundError
from framework.interface.events import (
    ActionType,
    ClusterEvent,
    ClusterEventWithHint,
    EventResource,
    QueueingHint,
)
from framework.interface.node_info import NodeInfo
from framework.interface.plugins import EnqueueExtensions, FilterPlugin, PreFilterPlugin, SignPlugin
from framework.interface.signers import VOLUMES_SIGNER_NAME, volumes_signer
from framework.interface.status import Code, Status
from framework.interface.types import PreFilterResult, SignFragment
from framework.plugins import names
from framework.plugins.feature import Features
from framework.plugins.helper.typed import as_typed
from framework.plugins.nodevolumelimits.utils import is_csi_migration_on
from framework.storage import csi_translation, lookup
from framework.storage.ephemeral import volume_claim_name, volume_is_for_pod
from framework.storage.volume import get_persistent_volume_claim_class

ERR_REASON_MAX_VOLUME_COUNT_EXCEEDED = "node(s) exceed max volume count"

PRE_FILTER_STATE_KEY = "PreFilter" + names.NODE_VOLUME_LIMITS


class _PreFilterState:
    """The VolumeAttachments by node, listed once per cycle (upstream keeps an index)."""

    __slots__ = ("attachments_by_node",)

    def __init__(self, attachments_by_node: dict[str, list[Any]]) -> None:
        self.attachments_by_node = attachments_by_node

    def clone(self) -> _PreFilterState:
        return self


class CSILimits(PreFilterPlugin, FilterPlugin, EnqueueExtensions, SignPlugin):
    """Checks the CSI attach limits the node's CSINode reports."""

    name = names.NODE_VOLUME_LIMITS

    def __init__(self, args: Any, handle: Any, features: Features) -> None:
        self.handle = handle
        self.enable_volume_limit_scaling = features.enable_volume_limit_scaling
        # Handles of unbound claims get this prefix so they never equal a real volume's handle.
        self.random_volume_id_prefix = uuid.uuid4().hex

    def sign_pod(self, pod: Pod) -> tuple[list[SignFragment] | None, Status | None]:
        """Feasibility depends on the pod's volume sources (ConfigMaps and Secrets aside)."""
        return [SignFragment(VOLUMES_SIGNER_NAME, volumes_signer(pod))], None

    # -- queueing ------------------------------------------------------------------------------

    def events_to_register(self) -> list[ClusterEventWithHint]:
        return [
            # Any new CSINode may carry the limits a rejected pod needs: no hint on purpose.
            ClusterEventWithHint(ClusterEvent(EventResource.CSI_NODE, ActionType.ADD)),
            ClusterEventWithHint(
                ClusterEvent(EventResource.CSI_NODE, ActionType.UPDATE),
                self.is_schedulable_after_csi_node_updated,
            ),
            ClusterEventWithHint(
                ClusterEvent(EventResource.POD, ActionType.DELETE),
                self.is_schedulable_after_pod_deleted,
            ),
            ClusterEventWithHint(
                ClusterEvent(EventResource.PERSISTENT_VOLUME_CLAIM, ActionType.ADD),
                self.is_schedulable_after_pvc_added,
            ),
            ClusterEventWithHint(
                ClusterEvent(EventResource.VOLUME_ATTACHMENT, ActionType.DELETE),
                self.is_schedulable_after_volume_attachment_deleted,
            ),
        ]

    def is_schedulable_after_pod_deleted(
        self, pod: Pod, old_obj: Any, new_obj: Any
    ) -> QueueingHint:
        deleted, _ = as_typed(Pod, old_obj, new_obj)
        if not deleted.spec.volumes:
            return QueueingHint.QUEUE_SKIP
        if not deleted.spec.node_name and not deleted.status.nominated_node_name:
            return QueueingHint.QUEUE_SKIP
        if any(_may_count(volume) for volume in deleted.spec.volumes):
            return QueueingHint.QUEUE
        return QueueingHint.QUEUE_SKIP

    def is_schedulable_after_pvc_added(self, pod: Pod, old_obj: Any, new_obj: Any) -> QueueingHint:
        _, added = as_typed(PersistentVolumeClaim, old_obj, new_obj)
        if added.namespace != pod.namespace:
            return QueueingHint.QUEUE_SKIP
        for volume in pod.spec.volumes:
            if volume.persistent_volume_claim is not None:
                claim_name = volume.persistent_volume_claim.claim_name
            elif volume.ephemeral is not None:
                claim_name = volume_claim_name(pod, volume)
            else:
                continue
            if claim_name == added.name:
                return QueueingHint.QUEUE
        return QueueingHint.QUEUE_SKIP

    def is_schedulable_after_volume_attachment_deleted(
        self, pod: Pod, old_obj: Any, new_obj: Any
    ) -> QueueingHint:
        attachment = _volume_attachment(old_obj)
        attacher = lookup.manifest_field(attachment, "spec", "attacher")
        for volume in pod.spec.volumes:
            if volume.persistent_volume_claim is not None:
                return QueueingHint.QUEUE
            if csi_translation.plugin_for_volume(volume) is None:
                continue
            try:
                translated = csi_translation.translate_in_tree_inline_volume_to_csi(
                    volume, pod.namespace
                )
            except csi_translation.TranslationError as err:
                raise ValueError(
                    f"converting volume({volume.name}) from inline to csi: {err}"
                ) from err
            if translated.driver == attacher:
                return QueueingHint.QUEUE
        return QueueingHint.QUEUE_SKIP

    def is_schedulable_after_csi_node_updated(
        self, pod: Pod, old_obj: Any, new_obj: Any
    ) -> QueueingHint:
        """Queue when some driver's attach limit went up."""
        old_csi_node, new_csi_node = as_typed(CSINode, old_obj, new_obj)
        old_limits = {d.name: d.allocatable_count or 0 for d in old_csi_node.drivers}
        for driver in new_csi_node.drivers:
            if (driver.allocatable_count or 0) > old_limits.get(driver.name, 0):
                return QueueingHint.QUEUE
        return QueueingHint.QUEUE_SKIP

    # -- filtering -----------------------------------------------------------------------------

    def pre_filter(
        self, state: CycleState, pod: Pod, nodes: list[NodeInfo]
    ) -> tuple[PreFilterResult | None, Status | None]:
        if not any(_may_count(volume) for volume in pod.spec.volumes):
            return None, Status(Code.SKIP)
        state.write(PRE_FILTER_STATE_KEY, _PreFilterState(self._attachments_by_node()))
        return None, None

    def _attachments_by_node(self) -> dict[str, list[Any]]:
        by_node: dict[str, list[Any]] = {}
        for attachment in lookup.list_objects(self.handle.cluster(), lookup.VOLUME_ATTACHMENT_KIND):
            node_name = lookup.manifest_field(attachment, "spec", "nodeName") or ""
            by_node.setdefault(node_name, []).append(attachment)
        return by_node

    def filter(self, state: CycleState, pod: Pod, node_info: NodeInfo) -> Status | None:
        if not pod.spec.volumes:
            return None
        node = node_info.node
        csi_node = self._csi_node(node.name)
        new_volumes: dict[str, str] = {}
        try:
            self._filter_attachable_volumes(pod, csi_node, True, new_volumes)
        except lookup.NotFoundError as err:
            # The pod cannot run until its claim exists.
            return Status(Code.UNSCHEDULABLE_AND_UNRESOLVABLE, str(err))
        except ValueError as err:
            return Status.as_status(err)
        if not new_volumes:
            return None
        if self.enable_volume_limit_scaling:
            for driver_name in new_volumes.values():
                if not self._csi_driver_on_node(driver_name, csi_node):
                    return Status(
                        Code.UNSCHEDULABLE, f"{driver_name} CSI driver is not installed on the node"
                    )
        limits = get_volume_limits(csi_node)
        if not limits:
            return None
        return self._check_limits(state, node_info, csi_node, new_volumes, limits)

    def _check_limits(
        self,
        state: CycleState,
        node_info: NodeInfo,
        csi_node: Any,
        new_volumes: dict[str, str],
        limits: dict[str, int],
    ) -> Status | None:
        attached: dict[str, str] = {}
        try:
            for existing in node_info.pods:
                self._filter_attachable_volumes(existing.pod, csi_node, False, attached)
        except ValueError as err:
            return Status.as_status(err)
        attached_count: Counter[str] = Counter()
        for unique_name, driver_name in attached.items():
            # A volume already attached for another pod is not attached again.
            new_volumes.pop(unique_name, None)
            attached_count[driver_name] += 1
        for unique_name, driver_name in self._node_attachments(state, node_info.node_name).items():
            if unique_name not in attached:
                attached_count[driver_name] += 1
        new_count = Counter(new_volumes.values())
        for driver_name, count in new_count.items():
            limit = limits.get(driver_name)
            if limit is not None and attached_count[driver_name] + count > limit:
                return Status(Code.UNSCHEDULABLE, ERR_REASON_MAX_VOLUME_COUNT_EXCEEDED)
        return None

    def _csi_node(self, node_name: str) -> Any | None:
        """The node's CSINode; a node without one simply has no limits."""
        try:
            return lookup.get_csi_node(self.handle.cluster(), node_name)
        except lookup.NotFoundError:
            return None

    def _csi_driver_on_node(self, driver_name: str, csi_node: Any | None) -> bool:
        """Only drivers that opt in (preventPodSchedulingIfMissing) must be on the node."""
        try:
            driver = lookup.get_csi_driver(self.handle.cluster(), driver_name)
        except lookup.NotFoundError:
            return True
        if not lookup.manifest_field(driver, "spec", "preventPodSchedulingIfMissing"):
            return True
        if csi_node is None:
            return False
        return any(d.name == driver_name for d in csi_node.drivers)

    def _filter_attachable_volumes(
        self, pod: Pod, csi_node: Any | None, new_pod: bool, result: dict[str, str]
    ) -> None:
        """Adds ``driver/handle -> driver`` for each attachable volume of the pod.

        A claim missing for the pod being scheduled raises NotFoundError; one missing for a
        pod already on the node is not counted. Other problems raise ValueError.
        """
        cluster = self.handle.cluster()
        for volume in pod.spec.volumes:
            if volume.persistent_volume_claim is not None:
                claim_name = volume.persistent_volume_claim.claim_name
            elif volume.ephemeral is not None:
                claim_name = volume_claim_name(pod, volume)
            else:
                self._check_attachable_inline_volume(volume, csi_node, pod, result)
                continue
            if not claim_name:
                raise ValueError("PersistentVolumeClaim had no name")
            try:
                claim = lookup.get_pvc(cluster, pod.namespace, claim_name)
            except lookup.NotFoundError as err:
                if new_pod:
                    raise err.wrapped(f"looking up PVC {pod.namespace}/{claim_name}") from err
                continue
            if volume.ephemeral is not None:
                volume_is_for_pod(pod, claim)
            driver_name, volume_handle = self._csi_driver_info(csi_node, claim)
            if driver_name and volume_handle:
                result[f"{driver_name}/{volume_handle}"] = driver_name

    def _check_attachable_inline_volume(
        self, volume: Volume, csi_node: Any | None, pod: Pod, result: dict[str, str]
    ) -> None:
        """Counts an inline in-tree volume when its plugin has migrated to CSI on the node."""
        plugin = csi_translation.plugin_for_volume(volume)
        if plugin is None or not is_csi_migration_on(csi_node, plugin.in_tree_name):
            return
        try:
            translated = csi_translation.translate_in_tree_inline_volume_to_csi(
                volume, pod.namespace
            )
        except csi_translation.TranslationError as err:
            raise ValueError(f"converting volume({volume.name}) from inline to csi: {err}") from err
        result[f"{plugin.csi_driver}/{translated.volume_handle}"] = plugin.csi_driver

    def _csi_driver_info(
        self, csi_node: Any | None, claim: PersistentVolumeClaim
    ) -> tuple[str, str]:
        """The CSI driver and volume handle behind a claim; ("", "") when it does not count."""
        if not claim.spec.volume_name:
            return self._csi_driver_info_from_storage_class(csi_node, claim)
        try:
            pv = lookup.get_pv(self.handle.cluster(), claim.spec.volume_name)
        except lookup.NotFoundError:
            # Deleted, or pre-bound to a PV not created yet: count it by its class.
            return self._csi_driver_info_from_storage_class(csi_node, claim)
        if pv.spec.source_kind == "csi":
            return _csi_source(pv)
        plugin = csi_translation.plugin_for_pv(pv)
        if plugin is None or not is_csi_migration_on(csi_node, plugin.in_tree_name):
            return "", ""
        try:
            translated = csi_translation.translate_in_tree_pv_to_csi(pv)
        except csi_translation.TranslationError:
            return "", ""
        return translated.csi.driver, translated.csi.volume_handle

    def _csi_driver_info_from_storage_class(
        self, csi_node: Any | None, claim: PersistentVolumeClaim
    ) -> tuple[str, str]:
        """An unbound claim counts under its class's provisioner (or the CSI driver it became).

        Without a class it must bind immediately, so it is bound before scheduling anyway.
        """
        class_name = get_persistent_volume_claim_class(claim)
        if not class_name:
            return "", ""
        try:
            storage_class = lookup.get_storage_class(self.handle.cluster(), class_name)
        except lookup.NotFoundError:
            return "", ""
        volume_handle = f"{self.random_volume_id_prefix}-{claim.namespace}/{claim.name}"
        provisioner = storage_class.provisioner
        plugin = csi_translation.plugin_by_in_tree_name(provisioner)
        if plugin is not None:
            if not is_csi_migration_on(csi_node, provisioner):
                return "", ""
            return plugin.csi_driver, volume_handle
        return provisioner, volume_handle

    def _node_attachments(self, state: CycleState, node_name: str) -> dict[str, str]:
        """``driver/handle -> driver`` of the CSI volumes VolumeAttachments hold on the node."""
        try:
            attachments = state.read(PRE_FILTER_STATE_KEY).attachments_by_node.get(node_name, [])  # type: ignore[attr-defined]
        except NotFoundError:
            attachments = self._attachments_by_node().get(node_name, [])
        result: dict[str, str] = {}
        for attachment in attachments:
            attacher = lookup.manifest_field(attachment, "spec", "attacher")
            pv_name = lookup.manifest_field(attachment, "spec", "source", "persistentVolumeName")
            if not attacher or pv_name is None:
                continue
            try:
                pv = lookup.get_pv(self.handle.cluster(), pv_name)
            except lookup.NotFoundError:
                continue
            if pv.spec.source_kind != "csi":
                continue
            result[f"{attacher}/{_csi_source(pv)[1]}"] = attacher
        return result


def get_volume_limits(csi_node: Any | None) -> dict[str, int]:
    """Driver name -> attach limit; a driver missing here has no limit on the node."""
    if csi_node is None:
        return {}
    return {
        driver.name: driver.allocatable_count
        for driver in csi_node.drivers
        if driver.allocatable_count is not None
    }


def _may_count(volume: Volume) -> bool:
    """A claim, a generic ephemeral volume or an inline volume that migrated to CSI."""
    return (
        volume.persistent_volume_claim is not None
        or volume.ephemeral is not None
        or csi_translation.plugin_for_volume(volume) is not None
    )


def _csi_source(pv: PersistentVolume) -> tuple[str, str]:
    source = pv.spec.source
    return source.get("driver", ""), source.get("volumeHandle", "")


def _volume_attachment(obj: Any) -> Any:
    if getattr(obj, "kind", None) != lookup.VOLUME_ATTACHMENT_KIND:
        raise TypeError(f"expected VolumeAttachment, but got {type(obj).__name__}")
    return obj
