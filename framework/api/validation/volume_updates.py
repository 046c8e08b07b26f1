"""Upstream's ``ValidatePersistentVolumeUpdate`` and ``ValidatePersistentVolumeClaimUpdate``
for v1.36's default gates (VolumeAttributesClass and RecoverVolumeExpansionFailure on,
MutablePVNodeAffinity off)."""

from __future__ import annotations

import copy
from collections.abc import Mapping
from typing import Any

from framework.api.field_errors import FieldError, forbidden, invalid
from framework.api.quantity import Quantity
from framework.api.validation.update_common import (
    IMMUTABLE,
    normalized,
    semantically_equal,
    spec_diff,
    validate_immutable,
    validate_object_meta_update,
)
from framework.api.validation.volumes import (
    validate_persistent_volume,
    validate_persistent_volume_claim,
)

Manifest = Mapping[str, Any]
BETA_STORAGE_CLASS_ANNOTATION = "volume.beta.kubernetes.io/storage-class"
# A PersistentVolume's spec fields that are not its volume source.
_PV_SPEC_FIELDS = {
    "capacity",
    "accessModes",
    "claimRef",
    "persistentVolumeReclaimPolicy",
    "storageClassName",
    "mountOptions",
    "volumeMode",
    "nodeAffinity",
    "volumeAttributesClassName",
}
_PVC_SPEC_CHANGE = (
    "spec is immutable after creation except resources.requests and volumeAttributesClassName "
    "for bound claims"
)


def validate_persistent_volume_update(new: Manifest, old: Manifest) -> list[FieldError]:
    errors = validate_persistent_volume(new)
    spec, old_spec = new.get("spec") or {}, old.get("spec") or {}
    source = _source(spec)
    old_source = _source(old_spec)
    old_csi = old_source.get("csi")
    if old_csi is not None and "controllerExpandSecretRef" not in old_csi and "csi" in source:
        # A controller-expand secret may be added later.
        source = {**source, "csi": {**source["csi"]}}
        source["csi"].pop("controllerExpandSecretRef", None)
    if not semantically_equal(source, old_source):
        diff = spec_diff(normalized(old_source), normalized(source))
        detail = f"spec.persistentvolumesource is immutable after creation\n{diff}"
        errors.append(forbidden("spec.persistentvolumesource", detail))
    errors += validate_immutable(spec.get("volumeMode"), old_spec.get("volumeMode"), "volumeMode")
    old_affinity = old_spec.get("nodeAffinity")
    if old_affinity is not None and not semantically_equal(spec.get("nodeAffinity"), old_affinity):
        detail = IMMUTABLE + ", except for updating from beta label to GA"
        errors.append(invalid("nodeAffinity", spec.get("nodeAffinity"), detail))
    old_class = old_spec.get("volumeAttributesClassName")
    if old_class is not None and spec.get("volumeAttributesClassName") is None:
        detail = "update from non-nil value to nil is forbidden"
        errors.append(forbidden("spec.volumeAttributesClassName", detail))
    return errors


def _source(spec: Manifest) -> dict[str, Any]:
    return {k: v for k, v in spec.items() if k not in _PV_SPEC_FIELDS}


def validate_persistent_volume_claim_update(new: Manifest, old: Manifest) -> list[FieldError]:
    errors = validate_object_meta_update(new.get("metadata") or {}, old.get("metadata") or {})
    errors += validate_persistent_volume_claim(new)
    spec = copy.deepcopy(dict(new.get("spec") or {}))
    old_spec = copy.deepcopy(dict(old.get("spec") or {}))
    if not old_spec.get("volumeName"):
        _set(old_spec, "volumeName", spec.get("volumeName"))  # set once, by the binder
    errors += _storage_class_change(new, old, spec, old_spec)
    bound = ((new.get("status") or {}).get("phase")) == "Bound"
    if bound:
        requests = (spec.get("resources") or {}).get("requests")
        if requests is not None:
            old_requests = (old_spec.get("resources") or {}).get("requests") or {}
            _set(requests, "storage", old_requests.get("storage"))
        _set(spec, "volumeAttributesClassName", old_spec.get("volumeAttributesClassName"))
    if not semantically_equal(spec, old_spec):
        diff = spec_diff(normalized(old_spec), normalized(spec))
        errors.append(forbidden("spec", f"{_PVC_SPEC_CHANGE}\n{diff}"))
    errors += _shrinking(new, old)
    new_mode = (new.get("spec") or {}).get("volumeMode")
    errors += validate_immutable(new_mode, (old.get("spec") or {}).get("volumeMode"), "volumeMode")
    errors += _attributes_class_removal(new, old)
    return errors


def _storage_class_change(
    new: Manifest, old: Manifest, spec: dict[str, Any], old_spec: dict[str, Any]
) -> list[FieldError]:
    """The class may move from the beta annotation to ``storageClassName``, or be set where
    there was none; the annotation itself is immutable."""
    annotations = (new.get("metadata") or {}).get("annotations") or {}
    old_annotations = (old.get("metadata") or {}).get("annotations") or {}
    new_name = (new.get("spec") or {}).get("storageClassName")
    old_name = (old.get("spec") or {}).get("storageClassName")
    old_annotation = old_annotations.get(BETA_STORAGE_CLASS_ANNOTATION)
    new_annotation = annotations.get(BETA_STORAGE_CLASS_ANNOTATION)
    if (
        old_annotation is not None
        and old_name is None
        and new_name is not None
        and new_name == old_annotation
        and (new_annotation is None or new_annotation == old_annotation)
    ):
        spec.pop("storageClassName", None)
        return []
    errors: list[FieldError] = []
    if (new_annotation or "") != (old_annotation or ""):
        path = f"metadata.annotations.{BETA_STORAGE_CLASS_ANNOTATION}"
        errors.append(invalid(path, new_annotation or "", IMMUTABLE))
    if (
        new_name is not None
        and old_name is None
        and (old_annotation is None or new_name == old_annotation)
    ):
        _set(spec, "storageClassName", old_spec.get("storageClassName"))
    return errors


def _shrinking(new: Manifest, old: Manifest) -> list[FieldError]:
    """A claim may only shrink back down to more than its current capacity."""
    new_size = _storage((new.get("spec") or {}).get("resources"), "requests")
    old_size = _storage((old.get("spec") or {}).get("resources"), "requests")
    if new_size.cmp(old_size) >= 0:
        return []
    status_size = _storage(old.get("status"), "capacity")
    if new_size.cmp(status_size) <= 0:
        path = "spec.resources.requests.storage"
        return [forbidden(path, "field can not be less than status.capacity")]
    return []


def _storage(section: Manifest | None, key: str) -> Quantity:
    value = ((section or {}).get(key) or {}).get("storage")
    return Quantity() if value is None else Quantity.parse(value)


def _attributes_class_removal(new: Manifest, old: Manifest) -> list[FieldError]:
    current = (old.get("status") or {}).get("currentVolumeAttributesClassName")
    new_name = (new.get("spec") or {}).get("volumeAttributesClassName")
    old_name = (old.get("spec") or {}).get("volumeAttributesClassName")
    if current is None or new_name == old_name:
        return []
    path = "spec.volumeAttributesClassName"
    if new_name is None:
        detail = (
            "update to nil is forbidden when status.currentVolumeAttributesClassName is not nil"
        )
        return [forbidden(path, detail)]
    if new_name == "":
        detail = (
            "update to empty string is forbidden when status.currentVolumeAttributesClassName "
            "is not nil"
        )
        return [forbidden(path, detail)]
    return []


def _set(target: dict[str, Any], key: str, value: Any) -> None:
    if value is None:
        target.pop(key, None)
    else:
        target[key] = value
