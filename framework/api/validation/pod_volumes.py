"""Upstream's ``ValidateVolumes`` for a pod's volumes: unique DNS-label names, one kind of
volume each, and the fields of the common kinds (emptyDir, hostPath, Secret, ConfigMap,
downwardAPI, projected, persistentVolumeClaim, NFS, CSI, ephemeral claim templates). A
volume without a kind is an emptyDir (defaulting). The fields of the other kinds (the cloud
and network disks, ...) and of projected cluster trust bundles and pod certificates are not
checked."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from framework.api.field_errors import (
    FieldError,
    duplicate,
    forbidden,
    go_quote,
    invalid,
    not_supported,
    required,
)
from framework.api.validation.content import is_dns1123_label, is_dns1123_subdomain
from framework.api.validation.downward_api import (
    validate_object_field_selector,
    validate_resource_field_selector,
)
from framework.api.validation.meta import validate_labels
from framework.api.validation.mounts import (
    validate_local_descending_path,
    validate_path_no_backsteps,
)
from framework.api.validation.resources import parse_quantity
from framework.api.validation.storage import validate_csi_driver_name
from framework.api.validation.volumes import validate_claim_spec

Manifest = Mapping[str, Any]

# Every kind of volume, in the order upstream looks for them: the first counts, the others
# are refused.
VOLUME_KINDS = (
    "emptyDir",
    "hostPath",
    "gitRepo",
    "gcePersistentDisk",
    "awsElasticBlockStore",
    "secret",
    "nfs",
    "iscsi",
    "glusterfs",
    "flocker",
    "persistentVolumeClaim",
    "rbd",
    "cinder",
    "cephfs",
    "quobyte",
    "downwardAPI",
    "fc",
    "flexVolume",
    "configMap",
    "azureFile",
    "vsphereVolume",
    "photonPersistentDisk",
    "portworxVolume",
    "azureDisk",
    "storageos",
    "projected",
    "scaleIO",
    "csi",
    "ephemeral",
    "image",
)
HOST_PATH_TYPES = (
    "",
    "BlockDevice",
    "CharDevice",
    "Directory",
    "DirectoryOrCreate",
    "File",
    "FileOrCreate",
    "Socket",
)
_FILE_MODE = "must be a number between 0 and 0777 (octal), both inclusive"
_ONE_KIND = "may not specify more than 1 volume type"


def validate_volumes(
    volumes: list[Manifest], pod_name: str, path: str
) -> tuple[list[FieldError], dict[str, Manifest]]:
    """Every problem, and the volumes that passed by name: the ones containers may mount.
    With the pod's name, an ephemeral volume's claim name is checked too."""
    created = {
        f"{pod_name}-{volume.get('name') or ''}"
        for volume in volumes
        if pod_name and volume.get("ephemeral") is not None
    }
    errors: list[FieldError] = []
    passed: dict[str, Manifest] = {}
    for index, volume in enumerate(volumes):
        where = f"{path}[{index}]"
        name = volume.get("name") or ""
        found = _volume_source(volume, pod_name, where)
        found += _required_dns_label(name, f"{where}.name")
        if name in passed:
            found.append(duplicate(f"{where}.name", name))
        if not found:
            passed[name] = volume
        errors += found
        claim_name = (volume.get("persistentVolumeClaim") or {}).get("claimName")
        if claim_name and claim_name in created:
            detail = "must not reference a PVC that gets created for an ephemeral volume"
            errors.append(invalid(f"{where}.persistentVolumeClaim.claimName", claim_name, detail))
    return errors, passed


def is_empty_dir(volume: Manifest) -> bool:
    """An emptyDir volume, given or defaulted (a volume of no kind)."""
    return volume.get("emptyDir") is not None or not any(
        volume.get(kind) is not None for kind in VOLUME_KINDS
    )


def _volume_source(volume: Manifest, pod_name: str, path: str) -> list[FieldError]:
    errors: list[FieldError] = []
    found = False
    for kind in VOLUME_KINDS:
        source = volume.get(kind)
        if source is None:
            continue
        if found:
            errors.append(forbidden(f"{path}.{kind}", _ONE_KIND))
            continue
        found = True
        check = _CHECKS.get(kind)
        if check is not None:
            errors += check(source, f"{path}.{kind}")
        if kind == "ephemeral":
            errors += _ephemeral_claim_name(volume.get("name") or "", pod_name, path)
    return errors


def _empty_dir(source: Manifest, path: str) -> list[FieldError]:
    limit = source.get("sizeLimit")
    if limit is not None and parse_quantity(limit, f"{path}.sizeLimit").sign() < 0:
        detail = "SizeLimit field must be a valid resource quantity"
        return [forbidden(f"{path}.sizeLimit", detail)]
    return []


def _host_path(source: Manifest, path: str) -> list[FieldError]:
    host_path = source.get("path") or ""
    if not host_path:
        return [required(f"{path}.path")]
    errors = validate_path_no_backsteps(host_path, f"{path}.path")
    kind = source.get("type") or ""
    if kind not in HOST_PATH_TYPES:
        errors.append(not_supported(f"{path}.type", kind, HOST_PATH_TYPES))
    return errors


def _secret(source: Manifest, path: str) -> list[FieldError]:
    errors: list[FieldError] = []
    if not source.get("secretName"):
        errors.append(required(f"{path}.secretName"))
    return errors + _projected_files(source, path)


def _config_map(source: Manifest, path: str) -> list[FieldError]:
    errors: list[FieldError] = []
    if not source.get("name"):
        errors.append(required(f"{path}.name"))
    return errors + _projected_files(source, path)


def _projected_files(source: Manifest, path: str) -> list[FieldError]:
    """A Secret's or ConfigMap's file mode and the files its keys become."""
    errors = _file_mode(source.get("defaultMode"), f"{path}.defaultMode")
    for index, item in enumerate(source.get("items") or []):
        errors += _key_to_path(item, f"{path}.items[{index}]")
    return errors


def _key_to_path(item: Manifest, path: str) -> list[FieldError]:
    """``validateKeyToPath``: a key, and a relative path that stays in the volume."""
    errors: list[FieldError] = []
    if not item.get("key"):
        errors.append(required(f"{path}.key"))
    target = item.get("path") or ""
    if not target:
        errors.append(required(f"{path}.path"))
    errors += _local_non_reserved_path(target, f"{path}.path")
    return errors + _file_mode(item.get("mode"), f"{path}.mode")


def _local_non_reserved_path(target: str, path: str) -> list[FieldError]:
    """``ValidateLocalNonReservedPath``: relative, no ``..`` element, not starting ``..``."""
    errors = validate_local_descending_path(target, path)
    if target.startswith("..") and not target.startswith("../"):
        errors.append(invalid(path, target, "must not start with '..'"))
    return errors


def _file_mode(mode: int | None, path: str) -> list[FieldError]:
    if mode is None or 0 <= mode <= 0o777:
        return []
    return [invalid(path, mode, _FILE_MODE)]


# The pod fields a downward-API volume file may hold.
VOLUME_FIELD_PATHS = (
    "metadata.annotations",
    "metadata.labels",
    "metadata.name",
    "metadata.namespace",
    "metadata.uid",
)


def _downward_api(source: Manifest, path: str) -> list[FieldError]:
    """``validateDownwardAPIVolumeSource``; its files' problems are reported at the
    volume's path, as upstream reports them."""
    errors = _file_mode(source.get("defaultMode"), f"{path}.defaultMode")
    for item in source.get("items") or []:
        errors += _downward_api_file(item, path)
    return errors


def _downward_api_file(item: Manifest, path: str) -> list[FieldError]:
    """``validateDownwardAPIVolumeFile``: a path in the volume and one field or resource."""
    errors: list[FieldError] = []
    target = item.get("path") or ""
    if not target:
        errors.append(required(f"{path}.path"))
    errors += _local_non_reserved_path(target, f"{path}.path")
    field_ref = item.get("fieldRef")
    resource_ref = item.get("resourceFieldRef")
    if field_ref is not None:
        errors += validate_object_field_selector(field_ref, VOLUME_FIELD_PATHS, f"{path}.fieldRef")
        if resource_ref is not None:
            detail = "fieldRef and resourceFieldRef can not be specified simultaneously"
            errors.append(invalid(path, "resource", detail))
    elif resource_ref is not None:
        where = f"{path}.resourceFieldRef"
        errors += validate_resource_field_selector(resource_ref, where, in_volume=True)
    else:
        errors.append(required(path, "one of fieldRef and resourceFieldRef is required"))
    return errors + _file_mode(item.get("mode"), f"{path}.mode")


_TOKEN_MIN_SECONDS = 10 * 60
_TOKEN_MAX_SECONDS = 1 << 32
_PROJECTIONS = (
    "secret",
    "configMap",
    "downwardAPI",
    "serviceAccountToken",
    "clusterTrustBundle",
    "podCertificate",
)


def _projected(source: Manifest, path: str) -> list[FieldError]:
    """``validateProjectedVolumeSource``: one projection per source, no file path twice.
    Duplicate paths and a token's missing path are reported at the volume's path."""
    errors = _file_mode(source.get("defaultMode"), f"{path}.defaultMode")
    paths: set[str] = set()
    for index, projection in enumerate(source.get("sources") or []):
        where = f"{path}.sources[{index}]"
        for kind in ("secret", "configMap"):
            if projection.get(kind) is not None:
                errors += _projected_object(projection[kind], paths, f"{where}.{kind}", path)
        if projection.get("downwardAPI") is not None:
            for item in projection["downwardAPI"].get("items") or []:
                errors += _downward_api_file(item, f"{where}.downwardAPI")
                errors += _claim_path(item.get("path") or "", item.get("path") or "", paths, path)
        if projection.get("serviceAccountToken") is not None:
            errors += _token(
                projection["serviceAccountToken"], f"{where}.serviceAccountToken", path
            )
        if sum(projection.get(kind) is not None for kind in _PROJECTIONS) > 1:
            detail = "may not specify more than 1 volume type per source"
            errors.append(forbidden(where, detail))
    return errors


def _projected_object(
    source: Manifest, paths: set[str], path: str, volume_path: str
) -> list[FieldError]:
    """A projected Secret or ConfigMap: named, each key a file of its own."""
    errors: list[FieldError] = []
    name = source.get("name") or ""
    if not name:
        errors.append(required(f"{path}.name"))
    for index, item in enumerate(source.get("items") or []):
        errors += _key_to_path(item, f"{path}.items[{index}]")
        errors += _claim_path(item.get("path") or "", name, paths, volume_path)
    return errors


def _claim_path(target: str, shown: str, paths: set[str], volume_path: str) -> list[FieldError]:
    """Record a projected file's path; a second file at it is a conflict."""
    if not target:
        return []
    if target in paths:
        return [invalid(volume_path, shown, "conflicting duplicate paths")]
    paths.add(target)
    return []


def _token(token: Manifest, path: str, volume_path: str) -> list[FieldError]:
    """A service account token lives 10 minutes to 2^32 seconds (default an hour)."""
    errors: list[FieldError] = []
    seconds = token.get("expirationSeconds")
    seconds = 3600 if seconds is None else seconds
    if seconds < _TOKEN_MIN_SECONDS:
        detail = "may not specify a duration less than 10 minutes"
        errors.append(invalid(f"{path}.expirationSeconds", seconds, detail))
    if seconds > _TOKEN_MAX_SECONDS:
        detail = "may not specify a duration larger than 2^32 seconds"
        errors.append(invalid(f"{path}.expirationSeconds", seconds, detail))
    target = token.get("path") or ""
    if not target:
        errors.append(required(f"{volume_path}.path"))
    else:
        errors += _local_non_reserved_path(target, f"{volume_path}.path")
    return errors


def _claim(source: Manifest, path: str) -> list[FieldError]:
    if not source.get("claimName"):
        return [required(f"{path}.claimName")]
    return []


def _nfs(source: Manifest, path: str) -> list[FieldError]:
    errors: list[FieldError] = []
    if not source.get("server"):
        errors.append(required(f"{path}.server"))
    export = source.get("path") or ""
    if not export:
        errors.append(required(f"{path}.path"))
    if not export.startswith("/"):
        errors.append(invalid(f"{path}.path", export, "must be an absolute path"))
    return errors


def _csi(source: Manifest, path: str) -> list[FieldError]:
    errors = validate_csi_driver_name(source.get("driver") or "", f"{path}.driver")
    secret = source.get("nodePublishSecretRef")
    if secret is not None:
        name = secret.get("name") or ""
        if not name:
            errors.append(required(f"{path}.nodePublishSecretRef.name"))
        else:
            # Upstream reports a bad secret name at csi.name.
            errors += [invalid(f"{path}.name", name, m) for m in is_dns1123_subdomain(name)]
    return errors


def _ephemeral(source: Manifest, path: str) -> list[FieldError]:
    template = source.get("volumeClaimTemplate")
    where = f"{path}.volumeClaimTemplate"
    if template is None:
        return [required(where)]
    labels = (template.get("metadata") or {}).get("labels") or {}
    errors = validate_labels(labels, f"{where}.metadata.labels")
    return errors + validate_claim_spec(template.get("spec") or {}, f"{where}.spec")


def _ephemeral_claim_name(name: str, pod_name: str, path: str) -> list[FieldError]:
    """The claim an ephemeral volume creates is named ``<pod>-<volume>``: a valid name."""
    if not pod_name or not name:
        return []
    claim_name = f"{pod_name}-{name}"
    return [
        invalid(f"{path}.name", name, f"PVC name {go_quote(claim_name)}: {msg}")
        for msg in is_dns1123_subdomain(claim_name)
    ]


_CHECKS = {
    "emptyDir": _empty_dir,
    "hostPath": _host_path,
    "secret": _secret,
    "downwardAPI": _downward_api,
    "projected": _projected,
    "persistentVolumeClaim": _claim,
    "nfs": _nfs,
    "configMap": _config_map,
    "csi": _csi,
    "ephemeral": _ephemeral,
}


def _required_dns_label(name: str, path: str) -> list[FieldError]:
    if not name:
        return [required(path)]
    return [invalid(path, name, msg) for msg in is_dns1123_label(name)]
