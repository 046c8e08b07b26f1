"""Upstream's ``ValidatePersistentVolume`` and ``ValidatePersistentVolumeClaim``
(``pkg/apis/core/validation``) for what volume scheduling reads: access modes, capacity and
requested storage, class, volume mode, node affinity and the kind of volume. The fields of
each volume source (a CSI driver's name, an NFS server) are not checked."""

from __future__ import annotations

import posixpath
from collections.abc import Mapping
from typing import Any

from framework.api.field_errors import FieldError, forbidden, invalid, not_supported, required
from framework.api.validation.affinity import validate_node_selector
from framework.api.validation.content import is_dns1123_subdomain
from framework.api.validation.meta import validate_label_selector, validate_object_meta
from framework.api.validation.resources import quantities_in_key_order

Manifest = Mapping[str, Any]

_ACCESS_MODES = ("ReadOnlyMany", "ReadWriteMany", "ReadWriteOnce", "ReadWriteOncePod")
_VOLUME_MODES = ("Block", "Filesystem")
_RECLAIM_POLICIES = ("Delete", "Recycle", "Retain")
IS_NOT_POSITIVE = "must be greater than zero"
# A persistent volume's sources in the order upstream checks them; the field path it names
# (cephFS) where that differs from the JSON name (cephfs).
_SOURCES = {
    "hostPath": "hostPath",
    "gcePersistentDisk": "gcePersistentDisk",
    "awsElasticBlockStore": "awsElasticBlockStore",
    "glusterfs": "glusterfs",
    "flocker": "flocker",
    "nfs": "nfs",
    "rbd": "rbd",
    "quobyte": "quobyte",
    "cephfs": "cephFS",
    "iscsi": "iscsi",
    "cinder": "cinder",
    "fc": "fc",
    "azureFile": "azureFile",
    "vsphereVolume": "vsphereVolume",
    "photonPersistentDisk": "photonPersistentDisk",
    "portworxVolume": "portworxVolume",
    "azureDisk": "azureDisk",
    "scaleIO": "scaleIO",
    "local": "local",
    "storageos": "storageos",
    "csi": "csi",
}


def validate_persistent_volume(manifest: Manifest) -> list[FieldError]:
    spec = manifest.get("spec") or {}
    errors = validate_object_meta(manifest.get("metadata") or {}, False, is_dns1123_subdomain)
    errors += _access_modes(spec.get("accessModes") or [], "spec.accessModes", "")
    errors += _capacity(spec.get("capacity"), "spec.capacity")
    policy = spec.get("persistentVolumeReclaimPolicy") or ""
    if policy and policy not in _RECLAIM_POLICIES:
        path = "spec.persistentVolumeReclaimPolicy"
        errors.append(not_supported(path, policy, _RECLAIM_POLICIES))
    node_affinity = spec.get("nodeAffinity")
    if node_affinity is not None:
        if node_affinity.get("required") is not None:
            errors += validate_node_selector(
                node_affinity["required"], "spec.nodeAffinity.required"
            )
        else:
            detail = "must specify required node constraints"
            errors.append(required("spec.nodeAffinity.required", detail))
    errors += _volume_source(spec, node_affinity is not None)
    host_path = (spec.get("hostPath") or {}).get("path")
    if host_path is not None and _clean(host_path) == "/" and policy == "Recycle":
        path = "spec.persistentVolumeReclaimPolicy"
        errors.append(forbidden(path, "may not be 'recycle' for a hostPath mount of '/'"))
    errors += _class_name(spec.get("storageClassName"), "spec.storageClassName")
    errors += _volume_mode(spec.get("volumeMode"), "spec.volumeMode")
    return errors


def validate_persistent_volume_claim(manifest: Manifest) -> list[FieldError]:
    errors = validate_object_meta(manifest.get("metadata") or {}, True, is_dns1123_subdomain)
    return errors + validate_claim_spec(manifest.get("spec") or {}, "spec")


def validate_claim_spec(spec: Manifest, path: str) -> list[FieldError]:
    """``ValidatePersistentVolumeClaimSpec``, for a claim and for a pod's claim template."""
    detail = "at least 1 access mode is required"
    errors = _access_modes(spec.get("accessModes") or [], f"{path}.accessModes", detail)
    if spec.get("selector") is not None:
        errors += validate_label_selector(spec["selector"], f"{path}.selector")
    requested = (spec.get("resources") or {}).get("requests")
    requests = quantities_in_key_order(requested, f"{path}.resources.requests")
    storage = requests.get("storage")
    where = f"{path}.resources[storage]"
    if storage is None:
        errors.append(required(where))
    elif storage.sign() <= 0:
        errors.append(invalid(where, str(storage), IS_NOT_POSITIVE))
    errors += _class_name(spec.get("storageClassName"), f"{path}.storageClassName")
    errors += _volume_mode(spec.get("volumeMode"), f"{path}.volumeMode")
    return errors


def _access_modes(modes: list[str], path: str, missing: str) -> list[FieldError]:
    errors: list[FieldError] = []
    if not modes:
        errors.append(required(path, missing))
    for mode in modes:
        if mode not in _ACCESS_MODES:
            errors.append(not_supported(path, mode, _ACCESS_MODES))
    known = [mode for mode in modes if mode in _ACCESS_MODES]
    if "ReadWriteOncePod" in known and any(mode != "ReadWriteOncePod" for mode in known):
        errors.append(forbidden(path, "may not use ReadWriteOncePod with other access modes"))
    return errors


def _capacity(capacity: Any, path: str) -> list[FieldError]:
    """Storage and nothing else, positive."""
    quantities = quantities_in_key_order(capacity, path)
    errors: list[FieldError] = []
    if not quantities:
        errors.append(required(path))
    if "storage" not in quantities or len(quantities) > 1:
        # A nil ResourceList prints as null, an empty one as {}.
        shown = {name: str(quantity) for name, quantity in quantities.items()}
        errors.append(not_supported(path, shown if capacity is not None else None, ["storage"]))
    for name, quantity in quantities.items():
        where = f"{path}[{name}]"
        if quantity.value() < 0:
            errors.append(invalid(where, quantity.value(), "must be a valid resource quantity"))
        if quantity.sign() <= 0:
            errors.append(invalid(where, str(quantity), IS_NOT_POSITIVE))
    return errors


def _volume_source(spec: Manifest, has_node_affinity: bool) -> list[FieldError]:
    """Exactly one kind of volume; a local volume needs node affinity."""
    errors: list[FieldError] = []
    found = 0
    for key, name in _SOURCES.items():
        if spec.get(key) is None:
            continue
        if found:
            errors.append(forbidden(f"spec.{name}", "may not specify more than 1 volume type"))
            continue
        found += 1
        if key == "local" and not has_node_affinity:
            detail = "Local volume requires node affinity"
            errors.append(required("spec.nodeAffinity", detail))
    if not found:
        errors.append(required("spec", "must specify a volume type"))
    return errors


def _clean(path: str) -> str:
    """Go's ``path.Clean`` (``posixpath.normpath`` keeps a leading ``//``)."""
    cleaned = posixpath.normpath(path) if path else "."
    return "/" + cleaned.lstrip("/") if cleaned.startswith("//") else cleaned


def _class_name(name: str | None, path: str) -> list[FieldError]:
    if not name:
        return []
    return [invalid(path, name, msg) for msg in is_dns1123_subdomain(str(name))]


def _volume_mode(mode: str | None, path: str) -> list[FieldError]:
    if mode is None or mode in _VOLUME_MODES:
        return []
    return [not_supported(path, mode, _VOLUME_MODES)]
