"""VolumeZone: a pod's bound volumes must live in the node's zone and region.

PreFilter reads the zone and region labels of the PVs bound to the pod's claims (a label may
list several zones separated by ``__``); Filter compares them with the node's topology
labels. A node without any topology label is fine (single-zone clusters). Unbound claims of
a WaitForFirstConsumer class are left to VolumeBinding.
"""

from __future__ import annotations

from typing import Any

from framework.api.core import PersistentVolume, PersistentVolumeClaim
from framework.api.pod import Pod
from framework.api.storage import VOLUME_BINDING_WAIT_FOR_FIRST_CONSUMER, StorageClass
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
from framework.storage import lookup
from framework.storage.csi_translation import (
    LABEL_FAILURE_DOMAIN_BETA_REGION,
    LABEL_FAILURE_DOMAIN_BETA_ZONE,
    LABEL_MULTI_ZONE_DELIMITER,
    LABEL_TOPOLOGY_REGION,
    LABEL_TOPOLOGY_ZONE,
)
from framework.storage.volume import get_persistent_volume_claim_class

PRE_FILTER_STATE_KEY = "PreFilter" + names.VOLUME_ZONE

ERR_REASON_CONFLICT = "node(s) had no available volume zone"

TOPOLOGY_LABELS = (
    LABEL_FAILURE_DOMAIN_BETA_ZONE,
    LABEL_FAILURE_DOMAIN_BETA_REGION,
    LABEL_TOPOLOGY_ZONE,
    LABEL_TOPOLOGY_REGION,
)
_GA_LABEL = {
    LABEL_FAILURE_DOMAIN_BETA_ZONE: LABEL_TOPOLOGY_ZONE,
    LABEL_FAILURE_DOMAIN_BETA_REGION: LABEL_TOPOLOGY_REGION,
}


class PVTopology:
    """One topology label of a PV: its key and the set of values it allows."""

    __slots__ = ("key", "pv_name", "values")

    def __init__(self, pv_name: str, key: str, values: frozenset[str]) -> None:
        self.pv_name = pv_name
        self.key = key
        self.values = values

    def __eq__(self, other: object) -> bool:
        return isinstance(other, PVTopology) and (self.pv_name, self.key, self.values) == (
            other.pv_name,
            other.key,
            other.values,
        )

    def __hash__(self) -> int:
        return hash((self.pv_name, self.key, self.values))

    def __repr__(self) -> str:
        return f"PVTopology({self.pv_name!r}, {self.key!r}, {sorted(self.values)})"


class _StateData:
    __slots__ = ("pod_pv_topologies",)

    def __init__(self, pod_pv_topologies: list[PVTopology]) -> None:
        self.pod_pv_topologies = pod_pv_topologies

    def clone(self) -> _StateData:
        return self


class VolumeZone(PreFilterPlugin, FilterPlugin, EnqueueExtensions, SignPlugin):
    """Checks the zone and region labels of a pod's bound PVs against the node's."""

    name = names.VOLUME_ZONE

    def __init__(self, args: Any, handle: Any, features: Features) -> None:
        self.handle = handle
        self.enable_scheduling_queue_hint = features.enable_scheduling_queue_hint

    def sign_pod(self, pod: Pod) -> tuple[list[SignFragment] | None, Status | None]:
        """Feasibility depends on the pod's volume sources (ConfigMaps and Secrets aside)."""
        return [SignFragment(VOLUMES_SIGNER_NAME, volumes_signer(pod))], None

    # -- queueing ------------------------------------------------------------------------------

    def events_to_register(self) -> list[ClusterEventWithHint]:
        # Without hints the queue's pre-check may swallow a Node/Add (upstream issue 109437).
        node_actions = ActionType.ADD | ActionType.UPDATE_NODE_LABEL
        if not self.enable_scheduling_queue_hint:
            node_actions |= ActionType.UPDATE_NODE_TAINT
        add_or_update = ActionType.ADD | ActionType.UPDATE
        return [
            # A class's binding mode cannot change, so only new classes matter.
            ClusterEventWithHint(
                ClusterEvent(EventResource.STORAGE_CLASS, ActionType.ADD),
                self.is_schedulable_after_storage_class_added,
            ),
            ClusterEventWithHint(ClusterEvent(EventResource.NODE, node_actions)),
            ClusterEventWithHint(
                ClusterEvent(EventResource.PERSISTENT_VOLUME_CLAIM, add_or_update),
                self.is_schedulable_after_persistent_volume_claim_change,
            ),
            ClusterEventWithHint(
                ClusterEvent(EventResource.PERSISTENT_VOLUME, add_or_update),
                self.is_schedulable_after_persistent_volume_change,
            ),
        ]

    def is_schedulable_after_persistent_volume_claim_change(
        self, pod: Pod, old_obj: Any, new_obj: Any
    ) -> QueueingHint:
        _, claim = as_typed(PersistentVolumeClaim, old_obj, new_obj)
        requested = claim is not None and claim.namespace == pod.namespace
        if requested and claim.name in _claim_names(pod):
            return QueueingHint.QUEUE
        return QueueingHint.QUEUE_SKIP

    def is_schedulable_after_storage_class_added(
        self, pod: Pod, old_obj: Any, new_obj: Any
    ) -> QueueingHint:
        _, storage_class = as_typed(StorageClass, None, new_obj)
        if storage_class.volume_binding_mode != VOLUME_BINDING_WAIT_FOR_FIRST_CONSUMER:
            return QueueingHint.QUEUE_SKIP
        return QueueingHint.QUEUE

    def is_schedulable_after_persistent_volume_change(
        self, pod: Pod, old_obj: Any, new_obj: Any
    ) -> QueueingHint:
        original, modified = as_typed(PersistentVolume, old_obj, new_obj)
        if original is None:
            return QueueingHint.QUEUE
        if get_pv_topologies(original) != get_pv_topologies(modified):
            return QueueingHint.QUEUE
        return QueueingHint.QUEUE_SKIP

    # -- filtering -----------------------------------------------------------------------------

    def pre_filter(
        self, state: CycleState, pod: Pod, nodes: list[NodeInfo]
    ) -> tuple[PreFilterResult | None, Status | None]:
        topologies, status = self._pv_topologies_of(pod)
        if status is not None:
            return None, status
        if not topologies:
            return None, Status(Code.SKIP)
        state.write(PRE_FILTER_STATE_KEY, _StateData(topologies))
        return None, None

    def _pv_topologies_of(self, pod: Pod) -> tuple[list[PVTopology], Status | None]:
        """The topology labels of the PVs bound to the pod's claims, or why none can be known."""
        cluster = self.handle.cluster()
        topologies: list[PVTopology] = []
        for claim_name in _claim_names_in_order(pod):
            if not claim_name:
                return [], _unresolvable("PersistentVolumeClaim had no name")
            try:
                claim = lookup.get_pvc(cluster, pod.namespace, claim_name)
                pv_name = claim.spec.volume_name
                if not pv_name:
                    if self._waits_for_first_consumer(claim):
                        continue
                    return [], _unresolvable("PersistentVolume had no name")
                pv = lookup.get_pv(cluster, pv_name)
            except lookup.NotFoundError as err:
                return [], _unresolvable(str(err))
            except _Unresolvable as err:
                return [], _unresolvable(str(err))
            topologies.extend(get_pv_topologies(pv))
        return topologies, None

    def _waits_for_first_consumer(self, claim: PersistentVolumeClaim) -> bool:
        class_name = get_persistent_volume_claim_class(claim)
        if not class_name:
            raise _Unresolvable("PersistentVolumeClaim had no pv name and storageClass name")
        storage_class = lookup.get_storage_class(self.handle.cluster(), class_name)
        if not storage_class.volume_binding_mode:
            raise _Unresolvable(f'VolumeBindingMode not set for StorageClass "{class_name}"')
        return storage_class.volume_binding_mode == VOLUME_BINDING_WAIT_FOR_FIRST_CONSUMER

    def filter(self, state: CycleState, pod: Pod, node_info: NodeInfo) -> Status | None:
        if not pod.spec.volumes:
            return None
        try:
            topologies = state.read(PRE_FILTER_STATE_KEY).pod_pv_topologies  # type: ignore[attr-defined]
        except NotFoundError:
            # PreFilter skipped or disabled: work it out here.
            topologies, status = self._pv_topologies_of(pod)
            if status is not None:
                return status
        labels = node_info.node.labels
        if not any(label in labels for label in TOPOLOGY_LABELS):
            # A node without topology labels: a single-zone cluster.
            return None
        for topology in topologies:
            value = labels.get(topology.key)
            if value is None:
                # A PV with a beta label also matches the node's GA label.
                value = labels.get(_GA_LABEL.get(topology.key, topology.key))
            if value is None or value not in topology.values:
                return Status(Code.UNSCHEDULABLE_AND_UNRESOLVABLE, ERR_REASON_CONFLICT)
        return None


class _Unresolvable(Exception):
    """A claim whose topology can never be known until the cluster changes."""


def _unresolvable(message: str) -> Status:
    return Status(Code.UNSCHEDULABLE_AND_UNRESOLVABLE, message)


def _claim_names_in_order(pod: Pod) -> list[str]:
    return [
        volume.persistent_volume_claim.claim_name
        for volume in pod.spec.volumes
        if volume.persistent_volume_claim is not None
    ]


def _claim_names(pod: Pod) -> set[str]:
    return set(_claim_names_in_order(pod))


def get_pv_topologies(pv: PersistentVolume) -> list[PVTopology]:
    """The PV's topology labels; a label listing an empty zone is ignored, as upstream."""
    topologies = []
    for key in TOPOLOGY_LABELS:
        value = pv.labels.get(key)
        if value is None:
            continue
        zones = label_zones_to_set(value)
        if zones is not None:
            topologies.append(PVTopology(pv.name, key, zones))
    return topologies


def label_zones_to_set(value: str) -> frozenset[str] | None:
    """The zones of a ``a__b`` label value, or None when one of them is blank."""
    zones = [zone.strip() for zone in value.split(LABEL_MULTI_ZONE_DELIMITER)]
    if any(not zone for zone in zones):
        return None
    return frozenset(zones)
