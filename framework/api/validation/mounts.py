"""Upstream's checks of a container's volume mounts (``ValidateVolumeMounts``): each names a
volume of the pod that passed validation, at a path of its own, with a relative sub-path
that stays inside the volume, a known propagation and a recursive read-only mode that fits.
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


def validate_volume_mounts(container: Manifest, volumes: set[str], path: str) -> list[FieldError]:
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
