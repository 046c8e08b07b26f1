"""PersistentVolume and claim rules shared by the scheduler and the PV controller.

Mirrors ``component-helpers/storage/volume``: storage class names (the beta annotation wins),
PV node affinity, binding a PV to a claim, and finding the smallest PV that fits a claim.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from typing import Any

from framework.api.core import (
    VOLUME_AVAILABLE,
    ObjectReference,
    PersistentVolume,
    PersistentVolumeClaim,
)
from framework.api.labels import SelectorError
from framework.api.node_affinity import NodeSelector
from framework.api.quantity import Quantity
from framework.api.storage import VOLUME_BINDING_WAIT_FOR_FIRST_CONSUMER
from framework.storage.lookup import NotFoundError, manifest_field

BETA_STORAGE_CLASS_ANNOTATION = "volume.beta.kubernetes.io/storage-class"
ANN_BIND_COMPLETED = "pv.kubernetes.io/bind-completed"
ANN_BOUND_BY_CONTROLLER = "pv.kubernetes.io/bound-by-controller"
ANN_SELECTED_NODE = "volume.kubernetes.io/selected-node"
NOT_SUPPORTED_PROVISIONER = "kubernetes.io/no-provisioner"

READ_WRITE_ONCE = "ReadWriteOnce"
READ_ONLY_MANY = "ReadOnlyMany"
READ_WRITE_MANY = "ReadWriteMany"
READ_WRITE_ONCE_POD = "ReadWriteOncePod"

CLAIM_LOST = "Lost"
RESOURCE_STORAGE = "storage"

_ZERO = Quantity()


def get_persistent_volume_claim_class(claim: PersistentVolumeClaim) -> str:
    """The claim's storage class, "" when it requests none."""
    annotations = claim.metadata.annotations
    if BETA_STORAGE_CLASS_ANNOTATION in annotations:
        return annotations[BETA_STORAGE_CLASS_ANNOTATION]
    return claim.spec.storage_class_name or ""


def get_persistent_volume_class(volume: PersistentVolume) -> str:
    annotations = volume.metadata.annotations
    if BETA_STORAGE_CLASS_ANNOTATION in annotations:
        return annotations[BETA_STORAGE_CLASS_ANNOTATION]
    return volume.spec.storage_class_name


def claim_storage_request(claim: PersistentVolumeClaim) -> Quantity:
    return claim.spec.requests.get(RESOURCE_STORAGE, _ZERO)


def volume_capacity(volume: PersistentVolume) -> Quantity:
    return volume.spec.capacity.get(RESOURCE_STORAGE, _ZERO)


def volume_attributes_class_name(obj: PersistentVolume | PersistentVolumeClaim) -> str:
    return manifest_field(obj, "spec", "volumeAttributesClassName") or ""


class _LabelsOnly:
    """A node with labels and no name: what upstream builds to match a PV's node affinity."""

    __slots__ = ("labels",)

    name = ""

    def __init__(self, labels: Mapping[str, str]) -> None:
        self.labels = labels


def check_node_affinity(
    node_affinity: NodeSelector | None, labels: Mapping[str, str]
) -> str | None:
    """Why a node with these labels may not use the volume, or None when it may."""
    if node_affinity is None:
        return None
    matches, err = node_affinity.match_with_error(_LabelsOnly(labels))
    if err is not None:
        return str(err)
    if not matches:
        return "no matching NodeSelectorTerms"
    return None


def is_volume_bound_to_claim(volume: PersistentVolume, claim: PersistentVolumeClaim) -> bool:
    """Pre-bound or bound to this claim: same name and namespace, and same uid if one is set."""
    ref = volume.spec.claim_ref
    if ref is None or ref.name != claim.name or ref.namespace != claim.namespace:
        return False
    return not ref.uid or ref.uid == claim.uid


def get_bind_volume_to_claim(
    volume: PersistentVolume, claim: PersistentVolumeClaim
) -> tuple[PersistentVolume, bool]:
    """A copy of the volume bound to the claim, and whether anything had to change."""
    should_set_bound_by_controller = not is_volume_bound_to_claim(volume, claim)
    clone = volume.deep_copy()
    dirty = False
    ref = volume.spec.claim_ref
    if ref is None or (ref.name, ref.namespace, ref.uid) != (
        claim.name,
        claim.namespace,
        claim.uid,
    ):
        clone.spec.claim_ref = ObjectReference(claim.namespace, claim.name, claim.uid)
        dirty = True
    annotations = clone.metadata.annotations
    if should_set_bound_by_controller and ANN_BOUND_BY_CONTROLLER not in annotations:
        annotations[ANN_BOUND_BY_CONTROLLER] = "yes"
        dirty = True
    return clone, dirty


def check_volume_mode_mismatches(claim: PersistentVolumeClaim, volume: PersistentVolume) -> bool:
    return claim.spec.volume_mode != volume.spec.volume_mode


def check_access_modes(claim: PersistentVolumeClaim, volume: PersistentVolume) -> bool:
    """Whether the volume offers every access mode the claim asks for."""
    offered = set(volume.spec.access_modes)
    return all(mode in offered for mode in claim.spec.access_modes)


def claim_key(claim: PersistentVolumeClaim) -> str:
    return f"{claim.namespace}/{claim.name}"


def find_matching_volume(
    claim: PersistentVolumeClaim,
    volumes: Iterable[PersistentVolume],
    node: Any | None,
    excluded_volumes: Mapping[str, PersistentVolume],
    delay_binding: bool,
    vac_enabled: bool,
) -> PersistentVolume | None:
    """The volume pre-bound to the claim, else the smallest available one that fits it.

    ``node`` is given on the scheduler's path: the volume's node affinity and access modes are
    then checked too. Raises ValueError for a claim that cannot be matched at all.
    """
    claim_vac = volume_attributes_class_name(claim)
    if not vac_enabled and claim_vac:
        raise ValueError(
            f"unsupported volumeAttributesClassName is set on claim {claim_key(claim)} when "
            "the feature-gate VolumeAttributesClass is disabled"
        )
    requested = claim_storage_request(claim)
    requested_class = get_persistent_volume_claim_class(claim)
    selector = None
    if claim.spec.selector is not None:
        try:
            selector = claim.spec.selector.as_selector()
        except SelectorError as err:
            raise ValueError(
                f"error creating internal label selector for claim: {claim_key(claim)}: {err}"
            ) from err

    smallest: PersistentVolume | None = None
    for volume in volumes:
        if volume.name in excluded_volumes:
            continue
        if volume.spec.claim_ref is not None and not is_volume_bound_to_claim(volume, claim):
            continue
        capacity = volume_capacity(volume)
        if capacity.cmp(requested) < 0:
            continue
        if check_volume_mode_mismatches(claim, volume):
            continue
        volume_vac = volume_attributes_class_name(volume)
        if vac_enabled and claim_vac != volume_vac:
            continue
        if not vac_enabled and volume_vac:
            continue
        if volume.metadata.deletion_timestamp is not None:
            continue
        node_affinity_valid = (
            node is None or check_node_affinity(volume.spec.node_affinity, node.labels) is None
        )
        if is_volume_bound_to_claim(volume, claim):
            # A pre-bound volume is the only candidate: if the node does not suit it, nothing does.
            return volume if node_affinity_valid else None
        if node is None and delay_binding:
            continue
        if volume.phase != VOLUME_AVAILABLE:
            continue
        if selector is not None and not selector.matches(volume.labels):
            continue
        if get_persistent_volume_class(volume) != requested_class:
            continue
        if not node_affinity_valid:
            continue
        if node is not None and not check_access_modes(claim, volume):
            continue
        if smallest is None or volume_capacity(smallest).cmp(capacity) > 0:
            smallest = volume
    return smallest


def is_delay_binding_mode(claim: PersistentVolumeClaim, get_class: Callable[[str], Any]) -> bool:
    """Whether the claim's class waits for the first consumer; a missing class means no.

    ``get_class(name)`` returns the StorageClass or raises NotFoundError.
    """
    class_name = get_persistent_volume_claim_class(claim)
    if not class_name:
        return False
    try:
        storage_class = get_class(class_name)
    except NotFoundError:
        return False
    if not storage_class.volume_binding_mode:
        raise ValueError(f'VolumeBindingMode not set for StorageClass "{class_name}"')
    return storage_class.volume_binding_mode == VOLUME_BINDING_WAIT_FOR_FIRST_CONSUMER
