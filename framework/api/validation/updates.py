"""Which of upstream's update validations each kind gets (its strategy's ``ValidateUpdate``),
after the checks every update gets (``rest.BeforeUpdate``: the metadata as on create, with
paths usable in a URL, and as stored).

Kinds without ported update rules are checked as on create, plus the metadata rules.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from framework.api.field_errors import FieldError, duplicate, forbidden
from framework.api.validation.content import is_dns1123_subdomain, is_path_segment_name
from framework.api.validation.device_claim import (
    validate_device_class,
    validate_resource_claim_template,
)
from framework.api.validation.meta import validate_object_meta
from framework.api.validation.node import validate_node
from framework.api.validation.objects import validate_manifest
from framework.api.validation.pod_update import validate_pod_update
from framework.api.validation.policy import validate_pod_disruption_budget
from framework.api.validation.resource_slice import validate_resource_slice
from framework.api.validation.storage import validate_csi_node, validate_storage_class
from framework.api.validation.update_common import (
    validate_immutable,
    validate_object_meta_update,
)
from framework.api.validation.volume_updates import (
    validate_persistent_volume_claim_update,
    validate_persistent_volume_update,
)

Manifest = Mapping[str, Any]
UpdateCheck = Callable[[Manifest, Manifest], list[FieldError]]


def validate_manifest_update(
    kind: str, namespaced: bool, new: Manifest, old: Manifest
) -> list[FieldError]:
    """Every problem kube-apiserver reports replacing ``old`` with ``new`` (both manifests
    as stored; ``new`` prepared by :func:`prepare_update`), repeats left out as its message
    leaves them out."""
    metadata = new.get("metadata") or {}
    old_metadata = old.get("metadata") or {}
    errors = validate_object_meta(metadata, namespaced, is_path_segment_name)
    errors += validate_object_meta_update(metadata, old_metadata)
    rule = UPDATE_VALIDATORS.get(kind)
    if rule is not None:
        errors += rule(new, old)
    else:
        errors += validate_manifest(kind, namespaced, new)
    return _without_repeats(errors)


def _without_repeats(errors: list[FieldError]) -> list[FieldError]:
    seen: set[str] = set()
    kept: list[FieldError] = []
    for error in errors:
        text = str(error)
        if text not in seen:
            seen.add(text)
            kept.append(error)
    return kept


def _meta_update(new: Manifest, old: Manifest) -> list[FieldError]:
    return validate_object_meta_update(new.get("metadata") or {}, old.get("metadata") or {})


def _node_update(new: Manifest, old: Manifest) -> list[FieldError]:
    """``ValidateNode`` and ``ValidateNodeUpdate``: a pod CIDR and a provider ID, once set,
    stay; addresses are not repeated."""
    errors = validate_node(new) + _meta_update(new, old)
    spec, old_spec = new.get("spec") or {}, old.get("spec") or {}
    addresses = (new.get("status") or {}).get("addresses") or []
    for index, address in enumerate(addresses):
        if address in addresses[:index]:
            errors.append(duplicate(f"status.addresses[{index}]", dict(address)))
    old_cidrs = old_spec.get("podCIDRs") or []
    if old_cidrs:
        cidrs = spec.get("podCIDRs") or []
        detail = 'node updates may not change podCIDR except from "" to valid'
        if len(cidrs) != len(old_cidrs):
            errors.append(forbidden("spec.podCIDRs", detail))
        else:
            errors += [
                forbidden("spec.podCIDRs", detail)
                for a, b in zip(old_cidrs, cidrs, strict=True)
                if a != b
            ]
    old_provider = old_spec.get("providerID") or ""
    if old_provider and old_provider != (spec.get("providerID") or ""):
        detail = 'node updates may not change providerID except from "" to valid'
        errors.append(forbidden("spec.providerID", detail))
    if (spec.get("externalID") or "") != (old_spec.get("externalID") or ""):
        errors.append(forbidden("spec.externalID", "may not be updated"))
    return errors


def _priority_class_update(new: Manifest, old: Manifest) -> list[FieldError]:
    """Only ``ValidatePriorityClassUpdate``: value and preemption policy are fixed."""
    errors = _meta_update(new, old)
    if (new.get("value") or 0) != (old.get("value") or 0):
        errors.append(forbidden("value", "may not be changed in an update."))
    errors += validate_immutable(
        new.get("preemptionPolicy"), old.get("preemptionPolicy"), "preemptionPolicy"
    )
    return errors


def _storage_class_update(new: Manifest, old: Manifest) -> list[FieldError]:
    errors = validate_storage_class(new) + _meta_update(new, old)
    for key in ("parameters", "provisioner", "reclaimPolicy", "volumeBindingMode"):
        errors += validate_immutable(new.get(key), old.get(key), key)
    return errors


def _csi_node_update(new: Manifest, old: Manifest) -> list[FieldError]:
    """A driver of the node may not change, but for its allocatable count
    (MutableCSINodeAllocatableCount, on in v1.36)."""
    errors = validate_csi_node(new)
    drivers = (new.get("spec") or {}).get("drivers") or []
    for old_driver in (old.get("spec") or {}).get("drivers") or []:
        for driver in drivers:
            if driver.get("name") == old_driver.get("name"):
                mine = {k: v for k, v in driver.items() if k != "allocatable"}
                theirs = {k: v for k, v in old_driver.items() if k != "allocatable"}
                errors += validate_immutable(mine, theirs, "spec.drivers")
    return errors


def _resource_claim_update(new: Manifest, old: Manifest) -> list[FieldError]:
    """A claim's spec is immutable; nothing else of it is checked again."""
    errors = validate_object_meta(new.get("metadata") or {}, True, is_dns1123_subdomain)
    errors += _meta_update(new, old)
    return errors + validate_immutable(new.get("spec"), old.get("spec"), "spec")


def _claim_template_update(new: Manifest, old: Manifest) -> list[FieldError]:
    errors = validate_resource_claim_template(new) + _meta_update(new, old)
    return errors + validate_immutable(new.get("spec"), old.get("spec"), "spec")


def _device_class_update(new: Manifest, old: Manifest) -> list[FieldError]:
    """The class's metadata, its metadata update, then its spec (selectors and
    configuration left as they were count as stored)."""
    errors = validate_device_class(new, old)
    meta = [e for e in errors if e.field.startswith("metadata")]
    rest = [e for e in errors if not e.field.startswith("metadata")]
    return meta + _meta_update(new, old) + rest


def _resource_slice_update(new: Manifest, old: Manifest) -> list[FieldError]:
    return _meta_update(new, old) + validate_resource_slice(new, old)


def _pdb_update(new: Manifest, old: Manifest) -> list[FieldError]:
    return validate_pod_disruption_budget(new)


UPDATE_VALIDATORS: dict[str, UpdateCheck] = {
    "Pod": validate_pod_update,
    "Node": _node_update,
    "PriorityClass": _priority_class_update,
    "PersistentVolume": validate_persistent_volume_update,
    "PersistentVolumeClaim": validate_persistent_volume_claim_update,
    "StorageClass": _storage_class_update,
    "CSINode": _csi_node_update,
    "PodDisruptionBudget": _pdb_update,
    "ResourceClaim": _resource_claim_update,
    "ResourceClaimTemplate": _claim_template_update,
    "DeviceClass": _device_class_update,
    "ResourceSlice": _resource_slice_update,
}
"""Kinds whose update rules are ported (their strategies' ``ValidateUpdate``)."""
