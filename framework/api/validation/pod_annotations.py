"""Upstream's checks of the annotations that mean something to a pod
(``ValidatePodSpecificAnnotations``): a mirror pod names its node, a deletion cost is a
32-bit integer, and the deprecated seccomp and AppArmor annotations name known profiles
(and, for AppArmor, a container of the pod). The tolerations annotation is not checked.
Annotations are walked in key order, where upstream's Go map has none."""

from __future__ import annotations

import re
from collections.abc import Iterator, Mapping
from typing import Any

from framework.api.field_errors import FieldError, go_quote, invalid
from framework.api.validation.mounts import validate_local_descending_path

Manifest = Mapping[str, Any]

MIRROR_POD = "kubernetes.io/config.mirror"
POD_DELETION_COST = "controller.kubernetes.io/pod-deletion-cost"
SECCOMP_POD = "seccomp.security.alpha.kubernetes.io/pod"
SECCOMP_CONTAINER_PREFIX = "container.seccomp.security.alpha.kubernetes.io/"
APPARMOR_CONTAINER_PREFIX = "container.apparmor.security.beta.kubernetes.io/"
_SECCOMP_NAMED_PROFILES = ("runtime/default", "docker/default", "unconfined")
_APPARMOR_NAMED_PROFILES = ("", "runtime/default", "unconfined")
_LOCALHOST = "localhost/"
_INT32 = re.compile(r"-?[0-9]+")


def validate_pod_specific_annotations(
    annotations: Mapping[str, str], spec: Manifest, path: str
) -> list[FieldError]:
    errors: list[FieldError] = []
    if MIRROR_POD in annotations and not spec.get("nodeName"):
        detail = "must set spec.nodeName if mirror pod annotation is set"
        errors.append(invalid(f"{path}[{MIRROR_POD}]", annotations[MIRROR_POD], detail))
    if POD_DELETION_COST in annotations and not _is_deletion_cost(annotations[POD_DELETION_COST]):
        where = f"{path}[{POD_DELETION_COST}]"
        errors.append(invalid(where, annotations[POD_DELETION_COST], "must be a 32bit integer"))
    errors += _seccomp(annotations, path)
    errors += _apparmor(annotations, spec, path)
    return errors


def _is_deletion_cost(value: str) -> bool:
    """``GetDeletionCostFromPodAnnotations``: no '+' sign, no leading zero, within int32."""
    if not value or not (value[0] == "-" or value == "0" or "1" <= value[0] <= "9"):
        return False
    return bool(_INT32.fullmatch(value)) and -(2**31) <= int(value) < 2**31


def _sorted(annotations: Mapping[str, str]) -> Iterator[tuple[str, str]]:
    yield from sorted(annotations.items())


def _seccomp(annotations: Mapping[str, str], path: str) -> list[FieldError]:
    """``ValidateSeccompPodAnnotations``: the pod's profile first, then each container's."""
    errors: list[FieldError] = []
    if SECCOMP_POD in annotations:
        errors += _seccomp_profile(annotations[SECCOMP_POD], f"{path}.{SECCOMP_POD}")
    for key, profile in _sorted(annotations):
        if key.startswith(SECCOMP_CONTAINER_PREFIX):
            errors += _seccomp_profile(profile, f"{path}.{key}")
    return errors


def _seccomp_profile(profile: str, path: str) -> list[FieldError]:
    if profile in _SECCOMP_NAMED_PROFILES:
        return []
    if profile.startswith(_LOCALHOST):
        return validate_local_descending_path(profile.removeprefix(_LOCALHOST), path)
    return [invalid(path, profile, "must be a valid seccomp profile")]


def _apparmor(annotations: Mapping[str, str], spec: Manifest, path: str) -> list[FieldError]:
    """``ValidateAppArmorPodAnnotations``: a container of the pod, a known profile."""
    names = {
        container.get("name")
        for key in ("initContainers", "containers", "ephemeralContainers")
        for container in spec.get(key) or []
    }
    errors: list[FieldError] = []
    for key, profile in _sorted(annotations):
        if not key.startswith(APPARMOR_CONTAINER_PREFIX):
            continue
        container = key.removeprefix(APPARMOR_CONTAINER_PREFIX)
        if container not in names:
            errors.append(invalid(f"{path}[{key}]", container, "container not found"))
        if profile not in _APPARMOR_NAMED_PROFILES and not profile.startswith(_LOCALHOST):
            detail = f"invalid AppArmor profile name: {go_quote(profile)}"
            errors.append(invalid(f"{path}[{key}]", profile, detail))
    return errors
