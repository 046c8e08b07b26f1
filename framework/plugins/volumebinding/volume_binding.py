"""VolumeBinding: a pod's claims must be bound, or bindable, on the node chosen.

PreFilter sorts the pod's claims (bound, waiting for a first consumer, immediate) and rejects
the pod while immediate claims are unbound. Filter asks the binder what each node would need
(static PVs, dynamic provisioning) and why it cannot. Reserve assumes the chosen node's
bindings in the binder's caches; PreBind writes them to the cluster; Unreserve forgets them.
Score (StorageCapacityScoring, off by default) prefers nodes by how full storage would get.
"""

from __future__ import annotations

from typing import Any

from framework.api.core import PersistentVolumeClaim
from framework.api.field_errors import aggregate_message
from framework.api.pod import Pod
from framework.api.storage import CSINode, StorageClass
from framework.config.types import MAX_CUSTOM_PRIORITY_SCORE, VolumeBindingArgs
from framework.config.validation_pluginargs import validate_volume_binding_args
from framework.interface.cycle_state import CycleState, NotFoundError
from framework.interface.events import (
    ActionType,
    ClusterEvent,
    ClusterEventWithHint,
    EventResource,
    QueueingHint,
)
from framework.interface.node_info import NodeInfo
from framework.interface.plugins import (
    EnqueueExtensions,
    FilterPlugin,
    PreBindPlugin,
    PreFilterPlugin,
    PreScorePlugin,
    ReservePlugin,
    ScorePlugin,
    SignPlugin,
)
from framework.interface.signers import VOLUMES_SIGNER_NAME, volumes_signer
from framework.interface.status import Code, Status
from framework.interface.types import (
    MAX_NODE_SCORE,
    PreBindPreFlightResult,
    PreFilterResult,
    SignFragment,
)
from framework.plugins import names
from framework.plugins.feature import Features
from framework.plugins.helper.shape_score import FunctionShapePoint
from framework.plugins.helper.typed import as_typed, go_type_name
from framework.plugins.volumebinding.binder import (
    MIGRATED_PLUGINS_ANNOTATION,
    PodVolumeClaims,
    PodVolumes,
    VolumeBinder,
    capacity_value,
    volume_limit,
)
from framework.plugins.volumebinding.scorer import (
    ClassResourceMap,
    StorageResource,
    VolumeCapacityScorer,
    build_scorer_function,
)
from framework.storage import lookup
from framework.storage.ephemeral import volume_claim_name, volume_is_for_pod
from framework.storage.volume import CLAIM_LOST, claim_storage_request

STATE_KEY = names.VOLUME_BINDING

ERR_UNBOUND_IMMEDIATE_CLAIMS = "pod has unbound immediate PersistentVolumeClaims"


class _StateData:
    """The pod's claims and, per node that passed Filter, what it would take there."""

    __slots__ = ("all_bound", "has_static_bindings", "pod_volume_claims", "pod_volumes_by_node")

    def __init__(self, pod_volume_claims: PodVolumeClaims | None = None) -> None:
        self.all_bound = False
        self.pod_volumes_by_node: dict[str, PodVolumes] = {}
        self.pod_volume_claims = pod_volume_claims
        self.has_static_bindings = False

    def clone(self) -> _StateData:
        # Shared on purpose, as upstream: Filter results are per node and stay valid.
        return self


class VolumeBinding(
    PreFilterPlugin,
    FilterPlugin,
    PreScorePlugin,
    ScorePlugin,
    ReservePlugin,
    PreBindPlugin,
    EnqueueExtensions,
    SignPlugin,
):
    """Binds pod volumes: checks at Filter, assumes at Reserve, writes at PreBind."""

    name = names.VOLUME_BINDING

    def __init__(self, args: Any, handle: Any, features: Features) -> None:
        if not isinstance(args, VolumeBindingArgs):
            raise ValueError(f"want args to be of type VolumeBindingArgs, got {go_type_name(args)}")
        errors = validate_volume_binding_args(None, args, _Gates(features))
        if errors:
            raise ValueError(aggregate_message(errors))
        self.handle = handle
        self.features = features
        self.binder = VolumeBinder(
            handle.cluster, features.enable_volume_attributes_class, args.bind_timeout_seconds or 0
        )
        self.scorer: VolumeCapacityScorer | None = None
        if features.enable_storage_capacity_scoring:
            scale = MAX_NODE_SCORE // MAX_CUSTOM_PRIORITY_SCORE
            shape = [FunctionShapePoint(p.utilization, p.score * scale) for p in args.shape or []]
            self.scorer = build_scorer_function(shape)

    def sign_pod(self, pod: Pod) -> tuple[list[SignFragment] | None, Status | None]:
        """Feasibility depends on the pod's volume sources (ConfigMaps and Secrets aside)."""
        return [SignFragment(VOLUMES_SIGNER_NAME, volumes_signer(pod))], None

    # -- queueing ------------------------------------------------------------------------------

    def events_to_register(self) -> list[ClusterEventWithHint]:
        # Without hints the queue's pre-check may swallow a Node/Add (upstream issue 109437).
        node_actions = ActionType.ADD | ActionType.UPDATE_NODE_LABEL
        if not self.features.enable_scheduling_queue_hint:
            node_actions |= ActionType.UPDATE_NODE_TAINT
        add_or_update = ActionType.ADD | ActionType.UPDATE
        return [
            ClusterEventWithHint(
                ClusterEvent(EventResource.STORAGE_CLASS, add_or_update),
                self.is_schedulable_after_storage_class_change,
            ),
            ClusterEventWithHint(
                ClusterEvent(EventResource.PERSISTENT_VOLUME_CLAIM, add_or_update),
                self.is_schedulable_after_persistent_volume_claim_change,
            ),
            ClusterEventWithHint(ClusterEvent(EventResource.PERSISTENT_VOLUME, add_or_update)),
            ClusterEventWithHint(ClusterEvent(EventResource.NODE, node_actions)),
            # In-tree PVs are translated to CSI per the CSINode's migrated-plugins annotation.
            ClusterEventWithHint(
                ClusterEvent(EventResource.CSI_NODE, add_or_update),
                self.is_schedulable_after_csi_node_change,
            ),
            ClusterEventWithHint(
                ClusterEvent(EventResource.CSI_DRIVER, ActionType.UPDATE),
                self.is_schedulable_after_csi_driver_change,
            ),
            ClusterEventWithHint(
                ClusterEvent(EventResource.CSI_STORAGE_CAPACITY, add_or_update),
                self.is_schedulable_after_csi_storage_capacity_change,
            ),
        ]

    def is_schedulable_after_csi_node_change(
        self, pod: Pod, old_obj: Any, new_obj: Any
    ) -> QueueingHint:
        if old_obj is None:
            return QueueingHint.QUEUE
        old, new = as_typed(CSINode, old_obj, new_obj)
        old_migrated = old.metadata.annotations.get(MIGRATED_PLUGINS_ANNOTATION)
        if old_migrated != new.metadata.annotations.get(MIGRATED_PLUGINS_ANNOTATION):
            return QueueingHint.QUEUE
        return QueueingHint.QUEUE_SKIP

    def is_schedulable_after_persistent_volume_claim_change(
        self, pod: Pod, old_obj: Any, new_obj: Any
    ) -> QueueingHint:
        _, claim = as_typed(PersistentVolumeClaim, old_obj, new_obj)
        if claim.namespace != pod.namespace:
            return QueueingHint.QUEUE_SKIP
        if claim.name in _claim_names(pod):
            # Creating or updating a claim the pod needs almost always matters.
            return QueueingHint.QUEUE
        return QueueingHint.QUEUE_SKIP

    def is_schedulable_after_storage_class_change(
        self, pod: Pod, old_obj: Any, new_obj: Any
    ) -> QueueingHint:
        """A new class, or new allowed topologies (the binding mode cannot change)."""
        old, new = as_typed(StorageClass, old_obj, new_obj)
        if old is None or old.allowed_topologies != new.allowed_topologies:
            return QueueingHint.QUEUE
        return QueueingHint.QUEUE_SKIP

    def is_schedulable_after_csi_storage_capacity_change(
        self, pod: Pod, old_obj: Any, new_obj: Any
    ) -> QueueingHint:
        """A new capacity, or a larger volume limit (topology and class cannot change)."""
        old = _of_kind(lookup.CSI_STORAGE_CAPACITY_KIND, old_obj)
        new = _of_kind(lookup.CSI_STORAGE_CAPACITY_KIND, new_obj)
        if old is None:
            return QueueingHint.QUEUE
        old_limit, new_limit = volume_limit(old), volume_limit(new)
        if new_limit is not None and (old_limit is None or new_limit.value() > old_limit.value()):
            return QueueingHint.QUEUE
        return QueueingHint.QUEUE_SKIP

    def is_schedulable_after_csi_driver_change(
        self, pod: Pod, old_obj: Any, new_obj: Any
    ) -> QueueingHint:
        """Queue when a driver the pod uses inline stopped tracking storage capacity."""
        old = _of_kind(lookup.CSI_DRIVER_KIND, old_obj)
        new = _of_kind(lookup.CSI_DRIVER_KIND, new_obj)
        for volume in pod.spec.volumes:
            if volume.csi is None or volume.csi.driver != new.name:
                continue
            if _tracks_capacity(old) and not _tracks_capacity(new):
                return QueueingHint.QUEUE
        return QueueingHint.QUEUE_SKIP

    # -- filtering -----------------------------------------------------------------------------

    def pre_filter(
        self, state: CycleState, pod: Pod, nodes: list[NodeInfo]
    ) -> tuple[PreFilterResult | None, Status | None]:
        try:
            has_pvc = self._pod_has_pvcs(pod)
        except (lookup.NotFoundError, ValueError) as err:
            return None, Status(Code.UNSCHEDULABLE_AND_UNRESOLVABLE, str(err))
        if not has_pvc:
            state.write(STATE_KEY, _StateData())
            return None, Status(Code.SKIP)
        try:
            claims = self.binder.get_pod_volume_claims(pod)
        except ValueError as err:
            return None, Status.as_status(err)
        if claims.unbound_claims_immediate:
            # The PV controller binds them; the pod comes back when a claim changes.
            return None, Status(Code.UNSCHEDULABLE_AND_UNRESOLVABLE, ERR_UNBOUND_IMMEDIATE_CLAIMS)
        state.write(
            STATE_KEY,
            _StateData(
                PodVolumeClaims(
                    bound_claims=claims.bound_claims,
                    unbound_claims_delay_binding=claims.unbound_claims_delay_binding,
                    unbound_volumes_delay_binding=claims.unbound_volumes_delay_binding,
                )
            ),
        )
        return None, None

    def _pod_has_pvcs(self, pod: Pod) -> bool:
        """Whether the pod uses claims; raises when one is missing, lost or being deleted."""
        has_pvc = False
        cluster = self.handle.cluster()
        for volume in pod.spec.volumes:
            if volume.persistent_volume_claim is not None:
                claim_name = volume.persistent_volume_claim.claim_name
            elif volume.ephemeral is not None:
                claim_name = volume_claim_name(pod, volume)
            else:
                continue
            has_pvc = True
            try:
                claim = lookup.get_pvc(cluster, pod.namespace, claim_name)
            except lookup.NotFoundError as err:
                if volume.ephemeral is not None:
                    # Normal right after the pod was created: the controller is on its way.
                    raise ValueError(
                        "waiting for ephemeral volume controller to create the "
                        f'persistentvolumeclaim "{claim_name}"'
                    ) from err
                raise
            if claim.phase == CLAIM_LOST:
                raise ValueError(
                    f'persistentvolumeclaim "{claim.name}" bound to non-existent '
                    f'persistentvolume "{claim.spec.volume_name}"'
                )
            if claim.metadata.deletion_timestamp is not None:
                raise ValueError(f'persistentvolumeclaim "{claim.name}" is being deleted')
            if volume.ephemeral is not None:
                volume_is_for_pod(pod, claim)
        return has_pvc

    def filter(self, state: CycleState, pod: Pod, node_info: NodeInfo) -> Status | None:
        node = node_info.node
        data, status = _read_state(state)
        if data is None:
            return status
        try:
            pod_volumes, reasons = self.binder.find_pod_volumes(pod, data.pod_volume_claims, node)
        except ValueError as err:
            return Status.as_status(err)
        if reasons:
            return Status(Code.UNSCHEDULABLE_AND_UNRESOLVABLE, *reasons)
        data.pod_volumes_by_node[node.name] = pod_volumes
        data.has_static_bindings = data.has_static_bindings or bool(pod_volumes.static_bindings)
        return None

    # -- scoring -------------------------------------------------------------------------------

    def pre_score(self, state: CycleState, pod: Pod, nodes: list[NodeInfo]) -> Status | None:
        if self.scorer is None:
            return Status(Code.SKIP)
        data, status = _read_state(state)
        if data is None:
            return status
        if data.has_static_bindings or self.features.enable_storage_capacity_scoring:
            return None
        return Status(Code.SKIP)

    def score(self, state: CycleState, pod: Pod, node_info: NodeInfo) -> tuple[int, Status | None]:
        if self.scorer is None:
            return 0, None
        data, status = _read_state(state)
        if data is None:
            return 0, status
        pod_volumes = data.pod_volumes_by_node.get(node_info.node_name)
        if pod_volumes is None:
            return 0, None
        return self.scorer(self._class_resources(pod_volumes)), None

    def _class_resources(self, pod_volumes: PodVolumes) -> ClassResourceMap:
        """Requested and available bytes per class: static PVs, else provisioned capacity."""
        resources: ClassResourceMap = {}
        static = pod_volumes.static_bindings or []
        if static or not self.features.enable_storage_capacity_scoring:
            for binding in static:
                total = resources.setdefault(binding.storage_class_name(), StorageResource())
                storage = binding.storage_resource()
                total.requested += storage.requested
                total.capacity += storage.capacity
            return resources
        for provision in pod_volumes.dynamic_provisions or []:
            if provision.node_capacity is None:
                continue
            total = resources.setdefault(
                provision.pvc.spec.storage_class_name or "", StorageResource()
            )
            # The capacity is the class's on this node, however many claims draw from it.
            total.capacity = capacity_value(provision.node_capacity)
            total.requested += claim_storage_request(provision.pvc).value()
        return resources

    def score_extensions(self) -> None:
        return None

    # -- Reserve, PreBind ----------------------------------------------------------------------

    def reserve(self, state: CycleState, pod: Pod, node_name: str) -> Status | None:
        data, status = _read_state(state)
        if data is None:
            return status
        pod_volumes = data.pod_volumes_by_node.get(node_name)
        if pod_volumes is None:
            # The pod has no claims.
            data.all_bound = True
            return None
        try:
            data.all_bound = self.binder.assume_pod_volumes(pod, node_name, pod_volumes)
        except (ValueError, lookup.NotFoundError) as err:
            return Status.as_status(err)
        return None

    def unreserve(self, state: CycleState, pod: Pod, node_name: str) -> None:
        data, _ = _read_state(state)
        if data is None:
            return
        pod_volumes = data.pod_volumes_by_node.get(node_name)
        if pod_volumes is not None:
            self.binder.revert_assumed_pod_volumes(pod_volumes)

    def pre_bind_pre_flight(
        self, state: CycleState, pod: Pod, node_name: str
    ) -> tuple[PreBindPreFlightResult | None, Status | None]:
        result = PreBindPreFlightResult(allow_parallel=True)
        data, status = _read_state(state)
        if data is None:
            return result, status
        if data.all_bound:
            return result, Status(Code.SKIP)
        if node_name not in data.pod_volumes_by_node:
            return result, _no_pod_volume_for_node(node_name)
        return result, None

    def pre_bind(self, state: CycleState, pod: Pod, node_name: str) -> Status | None:
        data, status = _read_state(state)
        if data is None:
            return status
        if data.all_bound:
            return None
        pod_volumes = data.pod_volumes_by_node.get(node_name)
        if pod_volumes is None:
            return _no_pod_volume_for_node(node_name)
        try:
            self.binder.bind_pod_volumes(pod, node_name, pod_volumes)
        except Exception as err:
            # Whatever the cluster refused, the pod goes back to the queue (Unreserve follows).
            return Status.as_status(err)
        return None


def _read_state(state: CycleState) -> tuple[_StateData | None, Status | None]:
    try:
        return state.read(STATE_KEY), None  # type: ignore[return-value]
    except NotFoundError as err:
        return None, Status.as_status(err)


def _no_pod_volume_for_node(node_name: str) -> Status:
    return Status.error(f'no pod volume found for node "{node_name}"')


def _claim_names(pod: Pod) -> set[str]:
    names_found = set()
    for volume in pod.spec.volumes:
        if volume.persistent_volume_claim is not None:
            names_found.add(volume.persistent_volume_claim.claim_name)
        elif volume.ephemeral is not None:
            names_found.add(volume_claim_name(pod, volume))
    return names_found


def _of_kind(kind: str, obj: Any) -> Any:
    if obj is not None and getattr(obj, "kind", None) != kind:
        raise TypeError(f"expected {kind}, but got {type(obj).__name__}")
    return obj


def _tracks_capacity(driver: Any) -> bool:
    return bool(lookup.manifest_field(driver, "spec", "storageCapacity"))


class _Gates:
    """The feature gates args validation asks about, answered from the plugin's switches."""

    def __init__(self, features: Features) -> None:
        self._enabled = {"StorageCapacityScoring": features.enable_storage_capacity_scoring}

    def enabled(self, name: str) -> bool:
        return self._enabled[name]
