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
from framework.api.labels import SelectorError, everything
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
_EVERYTHING = everything()


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
    excluded_volumes: Mapping[str, Any],
    delay_binding: bool,
    vac_enabled: bool,
) -> PersistentVolume | None:
    """The volume pre-bound to the claim, else the smallest available one that fits it.

    ``node`` is given on the scheduler's path: the volume's node affinity and access modes are
    then checked too. Raises ValueError for a claim that cannot be matched at all.
    """
    matcher = VolumeMatcher(claim, volumes, node is not None, delay_binding, vac_enabled)
    return matcher.match(node, excluded_volumes)


class VolumeMatcher:
    """``find_matching_volume`` for one claim and one list of volumes, prepared once.

    The scheduler asks the same question for every node. The checks that do not depend on the
    node run once here; per node only exclusions and node affinity remain, and an index on the
    label each volume's affinity requires skips volumes that cannot accept the node. Answers
    are those of upstream's single pass: the first pre-bound volume decides, otherwise the
    smallest fitting volume wins, the earliest listed among equals.
    """

    __slots__ = ("_by_label", "_ordered", "_prebound", "_unindexed")

    def __init__(
        self,
        claim: PersistentVolumeClaim,
        volumes: Iterable[PersistentVolume],
        scheduler_path: bool,
        delay_binding: bool,
        vac_enabled: bool,
    ) -> None:
        _check_claim_attributes_class(claim, vac_enabled)
        selector = _claim_selector(claim)
        self._prebound: list[PersistentVolume] = []
        candidates = []
        for position, volume in enumerate(_candidates(claim, volumes, vac_enabled)):
            if is_volume_bound_to_claim(volume, claim):
                self._prebound.append(volume)
            elif _is_available_for(claim, volume, selector, scheduler_path, delay_binding):
                candidates.append((volume_capacity(volume).nanos, position, volume))
        candidates.sort(key=lambda entry: entry[:2])
        self._ordered = [volume for _, _, volume in candidates]
        self._unindexed: list[int] = []
        self._by_label: dict[str, dict[str, list[int]]] = {}
        for rank, volume in enumerate(self._ordered):
            self._index(rank, volume)

    def _index(self, rank: int, volume: PersistentVolume) -> None:
        required = _required_label(volume.spec.node_affinity)
        if required is None:
            self._unindexed.append(rank)
            return
        key, values = required
        by_value = self._by_label.setdefault(key, {})
        for value in values:
            by_value.setdefault(value, []).append(rank)

    def match(self, node: Any | None, excluded: Mapping[str, Any]) -> PersistentVolume | None:
        for volume in self._prebound:
            if volume.name in excluded:
                continue
            # A pre-bound volume is the only candidate: if the node does not suit it, nothing does.
            return volume if _fits_node(volume, node) else None
        for rank in self._ranks_for(node):
            volume = self._ordered[rank]
            if volume.name not in excluded and _fits_node(volume, node):
                return volume
        return None

    def _ranks_for(self, node: Any | None) -> list[int]:
        if node is None:
            return list(range(len(self._ordered)))
        ranks = list(self._unindexed)
        labels = node.labels
        for key, by_value in self._by_label.items():
            value = labels.get(key)
            if value is not None:
                ranks.extend(by_value.get(value, ()))
        ranks.sort()
        return ranks


def _candidates(
    claim: PersistentVolumeClaim, volumes: Iterable[PersistentVolume], vac_enabled: bool
) -> list[PersistentVolume]:
    """Volumes free for the claim, large enough, of its mode and attributes class, not deleted."""
    claim_vac = volume_attributes_class_name(claim)
    requested = claim_storage_request(claim)
    result = []
    for volume in volumes:
        if volume.spec.claim_ref is not None and not is_volume_bound_to_claim(volume, claim):
            continue
        if volume_capacity(volume).cmp(requested) < 0:
            continue
        if check_volume_mode_mismatches(claim, volume):
            continue
        volume_vac = volume_attributes_class_name(volume)
        if (vac_enabled and claim_vac != volume_vac) or (not vac_enabled and volume_vac):
            continue
        if volume.metadata.deletion_timestamp is not None:
            continue
        result.append(volume)
    return result


def _check_claim_attributes_class(claim: PersistentVolumeClaim, vac_enabled: bool) -> None:
    if not vac_enabled and volume_attributes_class_name(claim):
        raise ValueError(
            f"unsupported volumeAttributesClassName is set on claim {claim_key(claim)} when "
            "the feature-gate VolumeAttributesClass is disabled"
        )


def _is_available_for(
    claim: PersistentVolumeClaim,
    volume: PersistentVolume,
    selector: Any,
    scheduler_path: bool,
    delay_binding: bool,
) -> bool:
    """An unbound volume the claim may take: available, selected, of its class.

    The PV controller (no node) leaves volumes of delayed claims to the scheduler.
    """
    if not scheduler_path and delay_binding:
        return False
    if volume.phase != VOLUME_AVAILABLE:
        return False
    if not selector.matches(volume.labels):
        return False
    if get_persistent_volume_class(volume) != get_persistent_volume_claim_class(claim):
        return False
    return not scheduler_path or check_access_modes(claim, volume)


def _claim_selector(claim: PersistentVolumeClaim) -> Any:
    if claim.spec.selector is None:
        return _EVERYTHING
    try:
        return claim.spec.selector.as_selector()
    except SelectorError as err:
        raise ValueError(
            f"error creating internal label selector for claim: {claim_key(claim)}: {err}"
        ) from err


def _required_label(node_affinity: NodeSelector | None) -> tuple[str, set[str]] | None:
    """A label every term requires with ``In``, and the values allowed: a necessary condition.

    None when there is no such label (or no affinity): the volume must always be checked.
    """
    if node_affinity is None or not node_affinity.node_selector_terms:
        return None
    first, *others = node_affinity.node_selector_terms
    for requirement in first.match_expressions:
        if requirement.operator != "In":
            continue
        values = _in_values(first, requirement.key)
        for term in others:
            if not any(
                r.operator == "In" and r.key == requirement.key for r in term.match_expressions
            ):
                break
            values |= _in_values(term, requirement.key)
        else:
            return requirement.key, values
    return None


def _in_values(term: Any, key: str) -> set[str]:
    return {
        value
        for r in term.match_expressions
        if r.operator == "In" and r.key == key
        for value in r.values
    }


def _fits_node(volume: PersistentVolume, node: Any | None) -> bool:
    """On the scheduler's path (a node given), whether the volume's node affinity accepts it."""
    return node is None or check_node_affinity(volume.spec.node_affinity, node.labels) is None


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
