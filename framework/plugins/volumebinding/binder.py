"""The volume binder: which claims a pod needs bound, which PVs fit them on a node, and the
bindings it assumes at Reserve and writes to the cluster at PreBind.

Mirrors upstream's ``SchedulerVolumeBinder``. Claims bound already must have PVs whose node
affinity accepts the node; claims of WaitForFirstConsumer classes get the smallest fitting
static PV, or else dynamic provisioning when the class has a provisioner whose topology (and,
for CSI drivers that publish it, capacity) suits the node.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from framework.api.core import PersistentVolume, PersistentVolumeClaim
from framework.api.labels import IN, LabelSelector, Selector, SelectorError, new_requirement
from framework.api.node import Node
from framework.api.node_affinity import NodeSelector
from framework.api.pod import Pod
from framework.api.quantity import Quantity
from framework.api.storage import StorageClass, TopologySelectorTerm
from framework.api.volume import Volume
from framework.plugins.volumebinding.assume_cache import PVAssumeCache, PVCAssumeCache
from framework.plugins.volumebinding.scorer import StorageResource
from framework.storage import csi_translation, lookup
from framework.storage.ephemeral import volume_claim_name, volume_is_for_pod
from framework.storage.volume import (
    ANN_BIND_COMPLETED,
    ANN_SELECTED_NODE,
    NOT_SUPPORTED_PROVISIONER,
    RESOURCE_STORAGE,
    VolumeMatcher,
    check_node_affinity,
    claim_storage_request,
    get_bind_volume_to_claim,
    get_persistent_volume_claim_class,
    is_delay_binding_mode,
    volume_capacity,
)

ERR_REASON_BIND_CONFLICT = "node(s) didn't find available persistent volumes to bind"
ERR_REASON_NODE_CONFLICT = "node(s) didn't match PersistentVolume's node affinity"
ERR_REASON_NOT_ENOUGH_SPACE = "node(s) did not have enough free storage"
ERR_REASON_PV_NOT_EXIST = (
    "node(s) unavailable due to one or more pvc(s) bound to non-existent pv(s)"
)

MIGRATED_PLUGINS_ANNOTATION = "storage.alpha.kubernetes.io/migrated-plugins"


class BindingError(Exception):
    """Binding or checking volumes failed; the pod goes back to the queue."""


class BindingTimeoutError(BindingError):
    """The bindings did not complete (upstream waits bindTimeoutSeconds, then gives up)."""


@dataclass(slots=True)
class BindingInfo:
    """A claim and the static PV proposed for it."""

    pvc: PersistentVolumeClaim
    pv: PersistentVolume

    def storage_class_name(self) -> str:
        return self.pv.spec.storage_class_name

    def storage_resource(self) -> StorageResource:
        return StorageResource(
            claim_storage_request(self.pvc).value(), volume_capacity(self.pv).value()
        )


@dataclass(slots=True)
class DynamicProvision:
    """A claim to provision, and the CSIStorageCapacity that had room for it (if checked)."""

    pvc: PersistentVolumeClaim
    node_capacity: Any | None = None


@dataclass(slots=True)
class PodVolumes:
    """What a node needs done for the pod's volumes; None means nothing (upstream's nil)."""

    static_bindings: list[BindingInfo] | None = None
    dynamic_provisions: list[DynamicProvision] | None = None


@dataclass(slots=True)
class PodVolumeClaims:
    bound_claims: list[PersistentVolumeClaim] = field(default_factory=list)
    unbound_claims_delay_binding: list[PersistentVolumeClaim] = field(default_factory=list)
    unbound_claims_immediate: list[PersistentVolumeClaim] = field(default_factory=list)
    unbound_volumes_delay_binding: dict[str, list[PersistentVolume]] = field(default_factory=dict)
    """PVs of each class the delayed claims use (assumed bindings included)."""
    matchers: dict[str, VolumeMatcher | ValueError] = field(default_factory=dict)
    """Per delayed claim, its PV matching prepared on first use, for every node of the cycle."""


class VolumeBinder:
    """Finds, assumes and binds a pod's volumes; one per plugin, its caches span cycles."""

    def __init__(
        self,
        cluster: Callable[[], Any],
        enable_volume_attributes_class: bool,
        bind_timeout_seconds: int,
    ) -> None:
        self._cluster = cluster
        self.enable_volume_attributes_class = enable_volume_attributes_class
        self.bind_timeout_seconds = bind_timeout_seconds
        self.pv_cache = PVAssumeCache(cluster)
        self.pvc_cache = PVCAssumeCache(cluster)

    # -- PreFilter -----------------------------------------------------------------------------

    def get_pod_volume_claims(self, pod: Pod) -> PodVolumeClaims:
        """The pod's claims: bound, unbound waiting for a consumer, unbound immediate."""
        claims = PodVolumeClaims()
        for volume in pod.spec.volumes:
            bound, claim = self._is_volume_bound(pod, volume)
            if claim is None:
                continue
            if bound:
                claims.bound_claims.append(claim)
            elif self._is_delay_binding_mode(claim) and not claim.spec.volume_name:
                claims.unbound_claims_delay_binding.append(claim)
            else:
                # Immediate (or pre-bound) claims should be bound already by the PV controller.
                claims.unbound_claims_immediate.append(claim)
        for claim in claims.unbound_claims_delay_binding:
            class_name = get_persistent_volume_claim_class(claim)
            claims.unbound_volumes_delay_binding[class_name] = self.pv_cache.list_pvs(class_name)
        return claims

    def _is_delay_binding_mode(self, claim: PersistentVolumeClaim) -> bool:
        return is_delay_binding_mode(
            claim, lambda name: lookup.get_storage_class(self._cluster(), name)
        )

    def _is_volume_bound(
        self, pod: Pod, volume: Volume
    ) -> tuple[bool, PersistentVolumeClaim | None]:
        if volume.persistent_volume_claim is not None:
            claim_name = volume.persistent_volume_claim.claim_name
        elif volume.ephemeral is not None:
            claim_name = volume_claim_name(pod, volume)
        else:
            return True, None
        key = f"{pod.namespace}/{claim_name}"
        try:
            claim = self.pvc_cache.get(key)
        except lookup.NotFoundError as err:
            raise ValueError(f'error getting PVC "{key}": {err}') from err
        if volume.ephemeral is not None:
            volume_is_for_pod(pod, claim)
        return is_pvc_fully_bound(claim), claim

    # -- Filter --------------------------------------------------------------------------------

    def find_pod_volumes(
        self, pod: Pod, claims: PodVolumeClaims, node: Node
    ) -> tuple[PodVolumes, list[str]]:
        """What the node needs done for the pod's volumes, and why it cannot (reasons).

        Raises ValueError when something is wrong beyond this node.
        """
        pod_volumes = PodVolumes()
        bound_satisfied = bound_pvs_found = True
        unbound_satisfied = sufficient_storage = True
        if claims.bound_claims:
            bound_satisfied, bound_pvs_found = self._check_bound_claims(claims.bound_claims, node)
        if claims.unbound_claims_delay_binding:
            unbound_satisfied, sufficient_storage = self._find_unbound(
                pod, claims, node, pod_volumes
            )
        reasons = []
        if not bound_satisfied:
            reasons.append(ERR_REASON_NODE_CONFLICT)
        if not unbound_satisfied:
            reasons.append(ERR_REASON_BIND_CONFLICT)
        if not sufficient_storage:
            reasons.append(ERR_REASON_NOT_ENOUGH_SPACE)
        if not bound_pvs_found:
            reasons.append(ERR_REASON_PV_NOT_EXIST)
        return pod_volumes, reasons

    def _find_unbound(
        self, pod: Pod, claims: PodVolumeClaims, node: Node, pod_volumes: PodVolumes
    ) -> tuple[bool, bool]:
        """Static PVs or provisioning for the delayed claims: (satisfied, enough storage)."""
        to_match: list[PersistentVolumeClaim] = []
        to_provision: list[PersistentVolumeClaim] = []
        for claim in claims.unbound_claims_delay_binding:
            selected_node = claim.metadata.annotations.get(ANN_SELECTED_NODE)
            if selected_node is None:
                to_match.append(claim)
            elif selected_node != node.name:
                # Provisioning already started for another node.
                return False, True
            else:
                to_provision.append(claim)
        satisfied = sufficient = True
        if to_match:
            satisfied, bindings, unmatched = self._find_matching_volumes(to_match, claims, node)
            pod_volumes.static_bindings = bindings or None
            to_provision.extend(unmatched)
        if to_provision:
            satisfied, sufficient, provisions = self._check_volume_provisions(to_provision, node)
            pod_volumes.dynamic_provisions = provisions or None
        return satisfied, sufficient

    def _check_bound_claims(
        self, claims: list[PersistentVolumeClaim], node: Node
    ) -> tuple[bool, bool]:
        """(all PVs accept the node, all PVs exist)."""
        csi_node = self._csi_node(node.name)
        for claim in claims:
            try:
                pv = self.pv_cache.get(claim.spec.volume_name)
            except lookup.NotFoundError:
                return True, False
            node_affinity = self._node_affinity(pv, csi_node)
            if check_node_affinity(node_affinity, node.labels) is not None:
                return False, True
        return True, True

    def _find_matching_volumes(
        self, to_match: list[PersistentVolumeClaim], claims: PodVolumeClaims, node: Node
    ) -> tuple[bool, list[BindingInfo], list[PersistentVolumeClaim]]:
        """The smallest fitting PV per claim, smallest claims first; unmatched claims too."""
        chosen: dict[str, PersistentVolume] = {}
        bindings: list[BindingInfo] = []
        unmatched: list[PersistentVolumeClaim] = []
        for claim in sorted(to_match, key=lambda c: claim_storage_request(c).nanos):
            pv = self._matcher(claims, claim).match(node, chosen)
            if pv is None:
                unmatched.append(claim)
                continue
            chosen[pv.name] = pv
            bindings.append(BindingInfo(claim, pv))
        return not unmatched, bindings, unmatched

    def _matcher(self, claims: PodVolumeClaims, claim: PersistentVolumeClaim) -> VolumeMatcher:
        """The claim's matcher over its class's PVs (or its error), built once per cycle."""
        matcher = claims.matchers.get(claim.key)
        if matcher is None:
            volumes = claims.unbound_volumes_delay_binding.get(
                get_persistent_volume_claim_class(claim), []
            )
            try:
                matcher = VolumeMatcher(
                    claim, volumes, True, True, self.enable_volume_attributes_class
                )
            except ValueError as err:
                matcher = err
            claims.matchers[claim.key] = matcher
        if isinstance(matcher, ValueError):
            raise matcher
        return matcher

    def _check_volume_provisions(
        self, claims: list[PersistentVolumeClaim], node: Node
    ) -> tuple[bool, bool, list[DynamicProvision]]:
        """(every claim can be provisioned for the node, enough capacity, the provisions)."""
        provisions: list[DynamicProvision] = []
        for claim in claims:
            class_name = get_persistent_volume_claim_class(claim)
            if not class_name:
                raise ValueError(f'no class for claim "{claim.namespace}/{claim.name}"')
            try:
                storage_class = lookup.get_storage_class(self._cluster(), class_name)
            except lookup.NotFoundError as err:
                raise ValueError(f'failed to find storage class "{class_name}"') from err
            provisioner = storage_class.provisioner
            if not provisioner or provisioner == NOT_SUPPORTED_PROVISIONER:
                return False, True, []
            if not match_topology_selector_terms(storage_class.allowed_topologies, node.labels):
                return False, True, []
            sufficient, capacity = self._has_enough_capacity(
                provisioner, claim, storage_class, node
            )
            if not sufficient:
                return True, False, []
            provisions.append(DynamicProvision(claim, capacity))
        return True, True, provisions

    def _has_enough_capacity(
        self,
        provisioner: str,
        claim: PersistentVolumeClaim,
        storage_class: StorageClass,
        node: Node,
    ) -> tuple[bool, Any | None]:
        """Checked only for CSI drivers that publish CSIStorageCapacity objects."""
        requested = claim.spec.requests.get(RESOURCE_STORAGE)
        if requested is None:
            return True, None
        try:
            driver = lookup.get_csi_driver(self._cluster(), provisioner)
        except lookup.NotFoundError:
            return True, None
        if not lookup.manifest_field(driver, "spec", "storageCapacity"):
            return True, None
        size = requested.value()
        for capacity in lookup.list_objects(self._cluster(), lookup.CSI_STORAGE_CAPACITY_KIND):
            if (
                lookup.manifest_field(capacity, "storageClassName") == storage_class.name
                and _capacity_sufficient(capacity, size)
                and _node_has_access(node, capacity)
            ):
                return True, capacity
        return False, None

    # -- Reserve / Unreserve -------------------------------------------------------------------

    def assume_pod_volumes(self, pod: Pod, node_name: str, pod_volumes: PodVolumes) -> bool:
        """Records the node's bindings in the caches; True when every claim is bound already."""
        if self._are_pod_volumes_bound(pod):
            return True
        new_bindings: list[BindingInfo] = []
        for binding in pod_volumes.static_bindings or []:
            new_pv, dirty = get_bind_volume_to_claim(binding.pv, binding.pvc)
            if dirty:
                try:
                    self.pv_cache.assume(new_pv)
                except (ValueError, lookup.NotFoundError):
                    self._revert_assumed_pvs(new_bindings)
                    raise
            new_bindings.append(BindingInfo(binding.pvc, new_pv))
        new_provisions: list[DynamicProvision] = []
        for provision in pod_volumes.dynamic_provisions or []:
            claim = provision.pvc.deep_copy()
            claim.metadata.annotations[ANN_SELECTED_NODE] = node_name
            try:
                self.pvc_cache.assume(claim)
            except (ValueError, lookup.NotFoundError):
                self._revert_assumed_pvs(new_bindings)
                self._revert_assumed_pvcs([p.pvc for p in new_provisions])
                raise
            new_provisions.append(DynamicProvision(claim))
        pod_volumes.static_bindings = new_bindings
        pod_volumes.dynamic_provisions = new_provisions
        return False

    def revert_assumed_pod_volumes(self, pod_volumes: PodVolumes) -> None:
        self._revert_assumed_pvs(pod_volumes.static_bindings or [])
        self._revert_assumed_pvcs([p.pvc for p in pod_volumes.dynamic_provisions or []])

    def _revert_assumed_pvs(self, bindings: list[BindingInfo]) -> None:
        for binding in bindings:
            self.pv_cache.restore(binding.pv)

    def _revert_assumed_pvcs(self, claims: list[PersistentVolumeClaim]) -> None:
        for claim in claims:
            self.pvc_cache.restore(claim)

    def _are_pod_volumes_bound(self, pod: Pod) -> bool:
        for volume in pod.spec.volumes:
            try:
                bound, _ = self._is_volume_bound(pod, volume)
            except ValueError:
                return False
            if not bound:
                return False
        return True

    # -- PreBind -------------------------------------------------------------------------------

    def bind_pod_volumes(self, pod: Pod, node_name: str, pod_volumes: PodVolumes) -> None:
        """Writes the bindings and provisioning requests, then checks they completed.

        Upstream polls until the PV controller finishes (up to bindTimeoutSeconds); here the
        check runs once, right after the writes, since nothing else runs meanwhile.
        """
        bindings = pod_volumes.static_bindings
        claims = [p.pvc for p in pod_volumes.dynamic_provisions or []]
        if pod_volumes.dynamic_provisions is None:
            claims = None  # type: ignore[assignment]
        self._bind_api_update(pod, bindings, claims)
        try:
            done = self._check_bindings(pod, node_name, bindings or [], claims or [])
        except BindingError as err:
            raise BindingError(f"binding volumes: {err}") from err
        if not done:
            raise BindingTimeoutError("binding volumes: context deadline exceeded")

    def _bind_api_update(
        self,
        pod: Pod,
        bindings: list[BindingInfo] | None,
        claims: list[PersistentVolumeClaim] | None,
    ) -> None:
        pod_name = f"{pod.namespace}/{pod.name}"
        if bindings is None:
            raise BindingError(f'failed to get cached bindings for pod "{pod_name}"')
        if claims is None:
            raise BindingError(f'failed to get cached claims to provision for pod "{pod_name}"')
        update = _updater(self._cluster())
        processed_bindings = processed_claims = 0
        try:
            for binding in bindings:
                binding.pv = update(binding.pv)
                processed_bindings += 1
            for index, claim in enumerate(claims):
                claims[index] = update(claim)
                processed_claims += 1
        finally:
            # Writes that did not happen must not linger in the caches.
            self._revert_assumed_pvs(bindings[processed_bindings:])
            self._revert_assumed_pvcs(claims[processed_claims:])

    def _check_bindings(
        self,
        pod: Pod,
        node_name: str,
        bindings: list[BindingInfo],
        claims: list[PersistentVolumeClaim],
    ) -> bool:
        """True when the cluster shows every claim fully bound; BindingError if it never will."""
        node = self._cluster_node(node_name)
        csi_node = self._csi_node(node.name)
        if self._cluster_get("Pod", pod.name, pod.namespace) is None:
            raise BindingError(f'pod does not exist any more: pod "{pod.name}" not found')
        for binding in bindings:
            try:
                pv = self.pv_cache.get_api_obj(binding.pv.name)
                claim = self.pvc_cache.get_api_obj(binding.pvc.key)
            except lookup.NotFoundError as err:
                raise BindingError(f"failed to check binding: {err}") from err
            if _newer(binding.pv, pv):
                return False
            self._check_pv_node_affinity(pv, csi_node, node)
            if pv.spec.claim_ref is None or not pv.spec.claim_ref.uid:
                raise BindingError(f'ClaimRef got reset for pv "{pv.name}"')
            if not is_pvc_fully_bound(claim):
                return False
        for provisioned in claims:
            try:
                claim = self.pvc_cache.get_api_obj(provisioned.key)
            except lookup.NotFoundError as err:
                raise BindingError(f"failed to check provisioning pvc: {err}") from err
            if _newer(provisioned, claim):
                return False
            if not claim.metadata.annotations:
                raise BindingError(f'selectedNode annotation reset for PVC "{claim.name}"')
            if claim.metadata.annotations.get(ANN_SELECTED_NODE) != node_name:
                # A provisioner that fails removes the annotation to ask for a new node.
                raise BindingError(f'provisioning failed for PVC "{claim.name}"')
            if claim.spec.volume_name:
                try:
                    pv = self.pv_cache.get_api_obj(claim.spec.volume_name)
                except lookup.NotFoundError:
                    return False
                self._check_pv_node_affinity(pv, csi_node, node)
            if not is_pvc_fully_bound(claim):
                return False
        return True

    def _check_pv_node_affinity(self, pv: PersistentVolume, csi_node: Any, node: Node) -> None:
        problem = check_node_affinity(self._node_affinity(pv, csi_node), node.labels)
        if problem is not None:
            raise BindingError(
                f'pv "{pv.name}" node affinity doesn\'t match node "{node.name}": {problem}'
            )

    # -- helpers -------------------------------------------------------------------------------

    def _node_affinity(self, pv: PersistentVolume, csi_node: Any | None) -> NodeSelector | None:
        """The PV's node affinity, as its CSI translation sees it on nodes that migrated."""
        plugin = csi_translation.plugin_for_pv(pv)
        if (
            plugin is None
            or plugin.in_tree_name not in csi_translation.CSI_MIGRATION_ON
            or not _is_plugin_migrated_on_node(plugin.in_tree_name, csi_node)
        ):
            return pv.spec.node_affinity
        try:
            return csi_translation.translate_in_tree_pv_to_csi(pv).node_affinity
        except csi_translation.TranslationError as err:
            raise ValueError(f"could not translate pv: {err}") from err

    def _csi_node(self, node_name: str) -> Any | None:
        return self._cluster_get(lookup.CSI_NODE_KIND, node_name)

    def _cluster_node(self, node_name: str) -> Node:
        node = self._cluster_get("Node", node_name)
        if node is None:
            raise BindingError(f'failed to get node "{node_name}": node "{node_name}" not found')
        return node

    def _cluster_get(self, kind: str, name: str, namespace: str = "") -> Any | None:
        cluster = self._cluster()
        return cluster.get(kind, name, namespace) if cluster is not None else None


def is_pvc_fully_bound(claim: PersistentVolumeClaim) -> bool:
    """Bound to a volume and marked complete by the PV controller."""
    return bool(claim.spec.volume_name) and ANN_BIND_COMPLETED in claim.metadata.annotations


def match_topology_selector_terms(
    terms: list[TopologySelectorTerm], labels: dict[str, str]
) -> bool:
    """Terms ORed; no terms match everything, an empty or invalid term matches nothing."""
    if not terms:
        return True
    for term in terms:
        if not term.match_label_expressions:
            continue
        try:
            selector = Selector(
                new_requirement(r.key, IN, r.values) for r in term.match_label_expressions
            )
        except SelectorError:
            continue
        if selector.matches(labels):
            return True
    return False


def _is_plugin_migrated_on_node(plugin_name: str, csi_node: Any | None) -> bool:
    if csi_node is None:
        return False
    migrated = csi_node.metadata.annotations.get(MIGRATED_PLUGINS_ANNOTATION, "")
    return plugin_name in migrated.split(",") if migrated else False


def volume_limit(capacity: Any) -> Quantity | None:
    """The largest volume a CSIStorageCapacity admits: maximumVolumeSize, else capacity."""
    maximum = lookup.manifest_field(capacity, "maximumVolumeSize")
    if maximum is not None:
        return Quantity.parse(maximum)
    total = lookup.manifest_field(capacity, "capacity")
    return Quantity.parse(total) if total is not None else None


def capacity_value(capacity: Any) -> int:
    total = lookup.manifest_field(capacity, "capacity")
    return Quantity.parse(total).value() if total is not None else 0


def _capacity_sufficient(capacity: Any, size: int) -> bool:
    limit = volume_limit(capacity)
    return limit is not None and limit.value() >= size


def _node_has_access(node: Node, capacity: Any) -> bool:
    topology = lookup.manifest_field(capacity, "nodeTopology")
    if topology is None:
        return False
    try:
        return LabelSelector.from_dict(topology).matches(node.labels)
    except (SelectorError, ValueError):
        return False


def _newer(ours: Any, cluster_version: Any) -> bool:
    """Whether our copy is newer than the cluster's (the cluster has not caught up yet)."""
    return _rv(ours) > _rv(cluster_version)


def _rv(obj: Any) -> int:
    text = obj.metadata.resource_version
    return int(text) if text.isdigit() else 0


def _updater(cluster: Any) -> Callable[[Any], Any]:
    update = getattr(cluster, "update", None)
    if update is None:
        raise BindingError("the cluster does not accept updates to PersistentVolumes and claims")
    return update
