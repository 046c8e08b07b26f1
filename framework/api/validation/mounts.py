"""Upstream's checks of a container's volume mounts and devices (``ValidateVolumeMounts``,
``ValidateVolumeDevices``): each names a volume of the pod that passed validation, at a path
of its own; a mount's sub-path stays inside the volume, its propagation and recursive
read-only mode fit; a device is a claim's block volume.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from framework.api.field_errors import (
    FieldError,
    forbidden,
    invalid,
    not_found,
    not_supported,
    required,
)

Manifest = Mapping[str, Any]

_MOUNT_PROPAGATIONS = ("Bidirectional", "HostToContainer", "None")
_RECURSIVE_READ_ONLY = ("Disabled", "Enabled", "IfPossible")


def validate_volume_mounts(
    container: Manifest, volumes: Mapping[str, Manifest], path: str
) -> list[FieldError]:
    """``ValidateVolumeMounts``: each mount names one of the pod's volumes, at a path of its
    own. Its sub-path and propagation problems are reported at the list's path, as upstream
    reports them (``volumeMounts.subPath``)."""
    mounts = container.get("volumeMounts") or []
    devices = container.get("volumeDevices") or []
    device_names = {device.get("name") for device in devices}
    device_paths = {device.get("devicePath") for device in devices}
    privileged = bool((container.get("securityContext") or {}).get("privileged"))
    errors: list[FieldError] = []
    seen: set[str] = set()
    for index, mount in enumerate(mounts):
        where = f"{path}[{index}]"
        name = mount.get("name") or ""
        mount_path = mount.get("mountPath") or ""
        if not name:
            errors.append(required(f"{where}.name"))
        if name not in volumes:
            errors.append(not_found(f"{where}.name", name))
        if not mount_path:
            errors.append(required(f"{where}.mountPath"))
        if mount_path in seen:
            errors.append(invalid(f"{where}.mountPath", mount_path, "must be unique"))
        seen.add(mount_path)
        if name in device_names:
            detail = "must not already exist in volumeDevices"
            errors.append(invalid(f"{where}.name", name, detail))
        if mount_path in device_paths:
            detail = "must not already exist as a path in volumeDevices"
            errors.append(invalid(f"{where}.mountPath", mount_path, detail))
        errors += _sub_paths(mount, path)
        errors += _mount_propagation(mount.get("mountPropagation"), privileged, path)
        errors += _recursive_read_only(mount, f"{path}.recursiveReadOnly")
    return errors


def _sub_paths(mount: Manifest, path: str) -> list[FieldError]:
    errors: list[FieldError] = []
    sub_path = mount.get("subPath") or ""
    if sub_path:
        errors += validate_local_descending_path(sub_path, f"{path}.subPath")
    expression = mount.get("subPathExpr") or ""
    if expression:
        if sub_path:
            where = f"{path}.subPathExpr"
            errors.append(
                invalid(where, expression, "subPathExpr and subPath are mutually exclusive")
            )
        errors += validate_local_descending_path(expression, f"{path}.subPathExpr")
    return errors


def validate_local_descending_path(target: str, path: str) -> list[FieldError]:
    """A relative path that does not climb out of its directory."""
    errors: list[FieldError] = []
    if target.startswith("/"):
        errors.append(invalid(path, target, "must be a relative path"))
    return errors + validate_path_no_backsteps(target, path)


def validate_path_no_backsteps(target: str, path: str) -> list[FieldError]:
    """``validatePathNoBacksteps``: no ``..`` element."""
    if ".." in target.split("/"):
        return [invalid(path, target, "must not contain '..'")]
    return []


def _mount_propagation(mode: str | None, privileged: bool, path: str) -> list[FieldError]:
    if mode is None:
        return []
    where = f"{path}.mountPropagation"
    errors: list[FieldError] = []
    if mode not in _MOUNT_PROPAGATIONS:
        errors.append(not_supported(where, mode, _MOUNT_PROPAGATIONS))
    if mode == "Bidirectional" and not privileged:
        detail = "Bidirectional mount propagation is available only to privileged containers"
        errors.append(forbidden(where, detail))
    return errors


def _recursive_read_only(mount: Manifest, path: str) -> list[FieldError]:
    mode = mount.get("recursiveReadOnly")
    if mode is None or mode == "Disabled":
        return []
    if mode not in _RECURSIVE_READ_ONLY:
        return [not_supported(path, mode, _RECURSIVE_READ_ONLY)]
    errors: list[FieldError] = []
    if not mount.get("readOnly"):
        errors.append(forbidden(path, "may only be specified when readOnly is true"))
    if mount.get("mountPropagation") not in (None, "None"):
        detail = "may only be specified when mountPropagation is None or not specified"
        errors.append(forbidden(path, detail))
    return errors


def validate_volume_devices(
    container: Manifest, volumes: Mapping[str, Manifest], path: str
) -> list[FieldError]:
    """``ValidateVolumeDevices``: unique names and paths, of claims' volumes, not mounted."""
    mount_names = {mount.get("name") for mount in container.get("volumeMounts") or []}
    mount_paths = {mount.get("mountPath") for mount in container.get("volumeMounts") or []}
    errors: list[FieldError] = []
    names: set[str] = set()
    paths: set[str] = set()
    for index, device in enumerate(container.get("volumeDevices") or []):
        where = f"{path}[{index}]"
        name = device.get("name") or ""
        device_path = device.get("devicePath") or ""
        volume = volumes.get(name)
        if not name:
            errors.append(required(f"{where}.name"))
        if name in names:
            errors.append(invalid(f"{where}.name", name, "must be unique"))
        if volume is not None and not _is_claim(volume):
            detail = (
                "can only use volume source type of PersistentVolumeClaim or Ephemeral for "
                "block mode"
            )
            errors.append(invalid(f"{where}.name", name, detail))
        if volume is None:
            errors.append(not_found(f"{where}.name", name))
        if not device_path:
            errors.append(required(f"{where}.devicePath"))
        if device_path in paths:
            errors.append(invalid(f"{where}.devicePath", device_path, "must be unique"))
        if device_path and validate_path_no_backsteps(device_path, where):
            detail = "can not contain backsteps ('..')"
            errors.append(invalid(f"{where}.devicePath", device_path, detail))
        else:
            paths.add(device_path)
        if name in mount_names:
            detail = "must not already exist in volumeMounts"
            errors.append(invalid(f"{where}.name", name, detail))
        if device_path in mount_paths:
            detail = "must not already exist as a path in volumeMounts"
            errors.append(invalid(f"{where}.devicePath", device_path, detail))
        if name:
            names.add(name)
    return errors


def _is_claim(volume: Manifest) -> bool:
    return volume.get("persistentVolumeClaim") is not None or volume.get("ephemeral") is not None
