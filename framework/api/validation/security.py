"""Upstream's checks of security contexts (``pkg/apis/core/validation``): a container's
(``ValidateSecurityContext``), the pod's (``validatePodSpecSecurityContext``), their seccomp
and AppArmor profiles, and the fields a pod's operating system rules out
(``validateLinux``, ``validateWindows``).

The cluster is taken to allow privileged containers (kube-apiserver's ``--allow-privileged``,
which kubeadm and kind set). In the API's internal type the host namespaces
(``hostNetwork``, ``hostPID``, ``hostIPC``, ``hostUsers``) and ``shareProcessNamespace``
belong to the pod's security context; upstream's paths for them follow from that.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Mapping
from typing import Any

from framework.api.field_errors import (
    TOO_LONG,
    FieldError,
    duplicate,
    forbidden,
    invalid,
    not_supported,
    required,
)
from framework.api.validation.mounts import validate_local_descending_path

Manifest = Mapping[str, Any]

_ID_RANGE = "must be between 0 and 2147483647, inclusive"
_MAX_ID = 2**31 - 1
SECCOMP_PROFILE_TYPES = ("Localhost", "RuntimeDefault", "Unconfined")
APPARMOR_PROFILE_TYPES = ("Localhost", "RuntimeDefault", "Unconfined")
_PROC_MOUNT_TYPES = ("Default", "Unmasked")
_FS_GROUP_CHANGE_POLICIES = ("Always", "OnRootMismatch")
_SUPPLEMENTAL_GROUPS_POLICIES = ("Merge", "Strict")
# SELinuxMount is off in v1.36: only the recursive relabelling may be asked for.
_SELINUX_CHANGE_POLICIES = ("Recursive",)
_SYSCTL_SEGMENT = "[a-z0-9]([-_a-z0-9]*[a-z0-9])?"
_SYSCTL_FMT = f"^({_SYSCTL_SEGMENT}[\\./])*{_SYSCTL_SEGMENT}$"
_SYSCTL_RE = re.compile(_SYSCTL_FMT)
_SYSCTL_MAX_LENGTH = 253
_IPC_SYSCTLS = {
    "kernel.sem",
    "kernel.shmall",
    "kernel.shmmax",
    "kernel.shmmni",
    "kernel.shm_rmid_forced",
    "kernel.shm",
    "kernel.msgmax",
    "kernel.msgmnb",
    "kernel.msgmni",
    "kernel.msg",
}
_MAX_APPARMOR_PROFILE_LENGTH = 4095
_NOT_FOR_WINDOWS = "cannot be set for a windows pod"
_NOT_FOR_LINUX = "windows options cannot be set for a linux pod"


def host_users(spec: Manifest) -> bool:
    """Pods share the host's user namespace unless ``hostUsers`` is false."""
    return spec.get("hostUsers") is not False


def validate_security_context(
    context: Manifest | None, path: str, shares_host_users: bool
) -> list[FieldError]:
    """``ValidateSecurityContext`` of a container."""
    if context is None:
        return []
    errors: list[FieldError] = []
    for key in ("runAsUser", "runAsGroup"):
        if context.get(key) is not None:
            errors += _id(context[key], f"{path}.{key}")
    proc_mount = context.get("procMount")
    if proc_mount is not None:
        if proc_mount not in _PROC_MOUNT_TYPES:
            errors.append(not_supported(f"{path}.procMount", proc_mount, _PROC_MOUNT_TYPES))
        if shares_host_users and proc_mount == "Unmasked":
            detail = "`hostUsers` must be false to use `Unmasked`"
            errors.append(invalid(f"{path}.procMount", proc_mount, detail))
    errors += validate_seccomp_profile(context.get("seccompProfile"), f"{path}.seccompProfile")
    if context.get("allowPrivilegeEscalation") is False:
        if context.get("privileged"):
            detail = "cannot set `allowPrivilegeEscalation` to false and `privileged` to true"
            errors.append(invalid(path, _internal_security_context(context), detail))
        for capability in (context.get("capabilities") or {}).get("add") or []:
            if capability == "CAP_SYS_ADMIN":
                detail = (
                    "cannot set `allowPrivilegeEscalation` to false and `capabilities.Add` "
                    "CAP_SYS_ADMIN"
                )
                errors.append(invalid(path, _internal_security_context(context), detail))
    profile = context.get("appArmorProfile")
    errors += validate_apparmor_profile(profile, f"{path}.appArmorProfile")
    return errors


def validate_pod_security_context(spec: Manifest, path: str) -> list[FieldError]:
    """``validatePodSpecSecurityContext``: IDs, sysctls and policies of the whole pod."""
    context = spec.get("securityContext") or {}
    where = f"{path}.securityContext"
    errors: list[FieldError] = []
    for key in ("fsGroup", "runAsUser", "runAsGroup"):
        if context.get(key) is not None:
            errors += _id(context[key], f"{where}.{key}")
    for index, group in enumerate(context.get("supplementalGroups") or []):
        errors += _id(group, f"{where}.supplementalGroups[{index}]")
    if spec.get("shareProcessNamespace") and spec.get("hostPID"):
        detail = "ShareProcessNamespace and HostPID cannot both be enabled"
        errors.append(invalid(f"{where}.shareProcessNamespace", True, detail))
    errors += _sysctls(context.get("sysctls") or [], spec, f"{where}.sysctls")
    errors += _one_of(context, "fsGroupChangePolicy", _FS_GROUP_CHANGE_POLICIES, where)
    errors += validate_seccomp_profile(context.get("seccompProfile"), f"{where}.seccompProfile")
    profile = context.get("appArmorProfile")
    errors += validate_apparmor_profile(profile, f"{where}.appArmorProfile")
    errors += _one_of(context, "supplementalGroupsPolicy", _SUPPLEMENTAL_GROUPS_POLICIES, where)
    errors += _one_of(context, "seLinuxChangePolicy", _SELINUX_CHANGE_POLICIES, where)
    return errors


def _one_of(context: Manifest, key: str, allowed: tuple[str, ...], path: str) -> list[FieldError]:
    value = context.get(key)
    if value is None or value in allowed:
        return []
    return [not_supported(f"{path}.{key}", value, allowed)]


def _id(value: int, path: str) -> list[FieldError]:
    """``IsValidUserID`` / ``IsValidGroupID``."""
    if 0 <= value <= _MAX_ID:
        return []
    return [invalid(path, value, _ID_RANGE)]


def _sysctls(sysctls: list[Manifest], spec: Manifest, path: str) -> list[FieldError]:
    """``validateSysctls``: well-formed, unique names, none of a namespace the pod shares
    with the host."""
    errors: list[FieldError] = []
    seen: set[str] = set()
    for index, sysctl in enumerate(sysctls):
        where = f"{path}[{index}].name"
        name = sysctl.get("name") or ""
        if not name:
            errors.append(required(where))
        elif len(name) > _SYSCTL_MAX_LENGTH or not _SYSCTL_RE.match(name):
            detail = (
                f"must have at most {_SYSCTL_MAX_LENGTH} characters and match regex {_SYSCTL_FMT}"
            )
            errors.append(invalid(where, name, detail))
        elif name in seen:
            errors.append(duplicate(where, name))
        namespace = _sysctl_namespace(name)
        if spec.get("hostNetwork") and namespace == "Net":
            errors.append(invalid(where, name, "may not be specified when 'hostNetwork' is true"))
        elif spec.get("hostIPC") and namespace == "IPC":
            errors.append(invalid(where, name, "may not be specified when 'hostIPC' is true"))
        seen.add(name)
    return errors


def _sysctl_namespace(name: str) -> str:
    """The kernel namespace a sysctl belongs to; names may use '/' as the separator."""
    separator = next((c for c in name if c in "./"), ".")
    if separator == "/":
        name = name.translate(str.maketrans("./", "/."))
    name = name.split("*", 1)[0]
    if name in _IPC_SYSCTLS or name.startswith("fs.mqueue."):
        return "IPC"
    if name.startswith("net."):
        return "Net"
    return ""


def validate_seccomp_profile(profile: Manifest | None, path: str) -> list[FieldError]:
    """``validateSeccompProfileField``: a known type; a local profile only with Localhost."""
    if profile is None:
        return []
    errors: list[FieldError] = []
    kind = profile.get("type") or ""
    if not kind:
        errors.append(required(f"{path}.type", "type is required when seccompProfile is set"))
    elif kind not in SECCOMP_PROFILE_TYPES:
        errors.append(not_supported(f"{path}.type", kind, SECCOMP_PROFILE_TYPES))
    local = profile.get("localhostProfile")
    where = f"{path}.localhostProfile"
    if kind == "Localhost":
        if local is None:
            errors.append(required(where, "must be set when seccomp type is Localhost"))
        else:
            errors += validate_local_descending_path(local, where)
    elif local is not None:
        shown = {"Type": kind, "LocalhostProfile": local}
        errors.append(invalid(where, shown, "can only be set when seccomp type is Localhost"))
    return errors


def validate_apparmor_profile(profile: Manifest | None, path: str) -> list[FieldError]:
    """``ValidateAppArmorProfileField``."""
    if profile is None:
        return []
    kind = profile.get("type") or ""
    local = profile.get("localhostProfile")
    where = f"{path}.localhostProfile"
    if kind == "Localhost":
        missing = "must be set when AppArmor type is Localhost"
        if local is None:
            return [required(where, missing)]
        errors: list[FieldError] = []
        if local.strip() != local:
            errors.append(invalid(where, local, "must not be padded with whitespace"))
        elif not local:
            errors.append(required(where, missing))
        if len(local) > _MAX_APPARMOR_PROFILE_LENGTH:
            detail = f"may not be more than {_MAX_APPARMOR_PROFILE_LENGTH} bytes"
            errors.append(FieldError(TOO_LONG, where, detail=detail))
        return errors
    if kind in ("RuntimeDefault", "Unconfined"):
        if local is not None:
            return [invalid(where, local, "can only be set when AppArmor type is Localhost")]
        return []
    if not kind:
        return [required(f"{path}.type", "type is required when appArmorProfile is set")]
    return [not_supported(f"{path}.type", kind, APPARMOR_PROFILE_TYPES)]


def _internal_security_context(context: Manifest) -> dict[str, Any]:
    """The security context as upstream prints it: its internal type, JSON-encoded without
    field tags."""

    def profile(value: Manifest | None) -> dict[str, Any] | None:
        if value is None:
            return None
        return {"Type": value.get("type") or "", "LocalhostProfile": value.get("localhostProfile")}

    capabilities = context.get("capabilities")
    selinux = context.get("seLinuxOptions")
    windows = context.get("windowsOptions")
    return {
        "Capabilities": None
        if capabilities is None
        else {"Add": capabilities.get("add"), "Drop": capabilities.get("drop")},
        "Privileged": context.get("privileged"),
        "SELinuxOptions": None
        if selinux is None
        else {k.capitalize(): selinux.get(k) or "" for k in ("user", "role", "type", "level")},
        "WindowsOptions": None
        if windows is None
        else {
            "GMSACredentialSpecName": windows.get("gmsaCredentialSpecName"),
            "GMSACredentialSpec": windows.get("gmsaCredentialSpec"),
            "RunAsUserName": windows.get("runAsUserName"),
            "HostProcess": windows.get("hostProcess"),
        },
        "RunAsUser": context.get("runAsUser"),
        "RunAsGroup": context.get("runAsGroup"),
        "RunAsNonRoot": context.get("runAsNonRoot"),
        "ReadOnlyRootFilesystem": context.get("readOnlyRootFilesystem"),
        "AllowPrivilegeEscalation": context.get("allowPrivilegeEscalation"),
        "ProcMount": context.get("procMount"),
        "SeccompProfile": profile(context.get("seccompProfile")),
        "AppArmorProfile": profile(context.get("appArmorProfile")),
    }


# -- what the pod's operating system rules out ---------------------------------------------------


def validate_os_specific(spec: Manifest, path: str) -> list[FieldError]:
    """``validateLinux`` / ``validateWindows``, for a pod whose ``os.name`` is valid."""
    os_name = (spec.get("os") or {}).get("name")
    if os_name == "linux":
        return _linux(spec, path)
    if os_name == "windows":
        return _windows(spec, path)
    return []


def _containers(spec: Manifest, path: str) -> Iterator[tuple[Manifest, str]]:
    """Every container with its path: init containers, then regular, then ephemeral."""
    for key in ("initContainers", "containers", "ephemeralContainers"):
        for index, container in enumerate(spec.get(key) or []):
            yield container, f"{path}.{key}[{index}]"


def _linux(spec: Manifest, path: str) -> list[FieldError]:
    errors: list[FieldError] = []
    if (spec.get("securityContext") or {}).get("windowsOptions") is not None:
        errors.append(forbidden(f"{path}.securityContext.windowsOptions", _NOT_FOR_LINUX))
    for container, where in _containers(spec, path):
        if (container.get("securityContext") or {}).get("windowsOptions") is not None:
            errors.append(forbidden(f"{where}.securityContext.windowsOptions", _NOT_FOR_LINUX))
    return errors


_WINDOWS_POD_FIELDS = (
    ("appArmorProfile", "securityContext.appArmorProfile"),
    ("seLinuxOptions", "securityContext.seLinuxOptions"),
)
_WINDOWS_POD_CONTEXT_FIELDS = (
    ("seccompProfile", "securityContext.seccompProfile"),
    ("fsGroup", "securityContext.fsGroup"),
    ("fsGroupChangePolicy", "securityContext.fsGroupChangePolicy"),
)
_WINDOWS_CONTAINER_FIELDS = (
    "appArmorProfile",
    "seLinuxOptions",
    "seccompProfile",
    "capabilities",
    "readOnlyRootFilesystem",
    "privileged",
    "allowPrivilegeEscalation",
    "procMount",
    "runAsUser",
    "runAsGroup",
)


def _windows(spec: Manifest, path: str) -> list[FieldError]:
    context = spec.get("securityContext") or {}
    errors: list[FieldError] = []
    for key, where in _WINDOWS_POD_FIELDS:
        if context.get(key) is not None:
            errors.append(forbidden(f"{path}.{where}", _NOT_FOR_WINDOWS))
    if spec.get("hostUsers") is not None:
        errors.append(forbidden(f"{path}.hostUsers", _NOT_FOR_WINDOWS))
    for key in ("hostPID", "hostIPC"):
        if spec.get(key):
            errors.append(forbidden(f"{path}.{key}", _NOT_FOR_WINDOWS))
    for key, where in _WINDOWS_POD_CONTEXT_FIELDS:
        if context.get(key) is not None:
            errors.append(forbidden(f"{path}.{where}", _NOT_FOR_WINDOWS))
    if context.get("sysctls"):
        errors.append(forbidden(f"{path}.securityContext.sysctls", _NOT_FOR_WINDOWS))
    if spec.get("shareProcessNamespace") is not None:
        errors.append(forbidden(f"{path}.shareProcessNamespace", _NOT_FOR_WINDOWS))
    for key in (
        "runAsUser",
        "runAsGroup",
        "supplementalGroups",
        "supplementalGroupsPolicy",
        "seLinuxChangePolicy",
    ):
        if context.get(key) is not None:
            errors.append(forbidden(f"{path}.securityContext.{key}", _NOT_FOR_WINDOWS))
    for container, where in _containers(spec, path):
        container_context = container.get("securityContext") or {}
        for key in _WINDOWS_CONTAINER_FIELDS:
            if container_context.get(key) is not None:
                errors.append(forbidden(f"{where}.securityContext.{key}", _NOT_FOR_WINDOWS))
    return errors
