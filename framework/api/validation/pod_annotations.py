"""Upstream's checks of the annotations that mean something to a pod
(``ValidatePodSpecificAnnotations``): a mirror pod names its node, a deletion cost is a
32-bit integer, and the deprecated seccomp and AppArmor annotations name known profiles
(and, for AppArmor, a container of the pod), and agree with the profile fields given beside
them. The tolerations annotation is not checked. Annotations are walked in key order, where
upstream's Go map has none."""

from __future__ import annotations

import re
from collections.abc import Iterator, Mapping
from typing import Any

from framework.api.field_errors import FieldError, forbidden, go_quote, invalid
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
    names = {container.get("name") for container, _ in _containers(spec, "")}
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


def validate_profiles_match_annotations(
    annotations: Mapping[str, str], spec: Manifest, spec_path: str, *, is_pod: bool
) -> list[FieldError]:
    """``validateSeccompAnnotationsAndFields`` and
    ``validateAppArmorAnnotationsAndFieldsMatchOnCreate``: where a profile is given both as
    a deprecated annotation and as a field, they agree. In a pod (not a template) the pod
    strategy first gives a container without an AppArmor field the one its annotation names
    (``applyAppArmorVersionSkew``), so only a container's own field can disagree there."""
    return _seccomp_agreement(annotations, spec, spec_path) + _apparmor_agreement(
        annotations, spec, spec_path, is_pod
    )


_SECCOMP_MISMATCH = "seccomp type in annotation and field must match"


def _seccomp_agreement(
    annotations: Mapping[str, str], spec: Manifest, spec_path: str
) -> list[FieldError]:
    errors: list[FieldError] = []
    pod_profile = (spec.get("securityContext") or {}).get("seccompProfile")
    if pod_profile is not None and SECCOMP_POD in annotations:
        where = f"{spec_path}.securityContext.seccompProfile"
        errors += _seccomp_match(annotations[SECCOMP_POD], pod_profile, where)
    for container, path in _containers(spec, spec_path):
        profile = (container.get("securityContext") or {}).get("seccompProfile")
        key = SECCOMP_CONTAINER_PREFIX + (container.get("name") or "")
        if profile is not None and key in annotations:
            where = f"{path}.securityContext.seccompProfile"
            errors += _seccomp_match(annotations[key], profile, where)
    return errors


def _seccomp_match(annotation: str, profile: Manifest, path: str) -> list[FieldError]:
    kind = profile.get("type")
    if kind == "Unconfined" and annotation != "unconfined":
        return [forbidden(f"{path}.type", _SECCOMP_MISMATCH)]
    if kind == "RuntimeDefault" and annotation not in ("runtime/default", "docker/default"):
        return [forbidden(f"{path}.type", _SECCOMP_MISMATCH)]
    if kind == "Localhost":
        if not annotation.startswith(_LOCALHOST):
            return [forbidden(f"{path}.type", _SECCOMP_MISMATCH)]
        if annotation.removeprefix(_LOCALHOST) != profile.get("localhostProfile"):
            detail = "seccomp profile in annotation and field must match"
            return [forbidden(f"{path}.localhostProfile", detail)]
    return []


_APPARMOR_MISMATCH = "apparmor type in annotation and field must match"


def _apparmor_agreement(
    annotations: Mapping[str, str], spec: Manifest, spec_path: str, is_pod: bool
) -> list[FieldError]:
    """A container's profile is its own or else the pod's; Windows pods are not checked."""
    if (spec.get("os") or {}).get("name") == "windows":
        return []
    pod_profile = (spec.get("securityContext") or {}).get("appArmorProfile")
    errors: list[FieldError] = []
    for container, path in _containers(spec, spec_path):
        own = (container.get("securityContext") or {}).get("appArmorProfile")
        profile = own if own is not None else pod_profile
        key = APPARMOR_CONTAINER_PREFIX + (container.get("name") or "")
        if profile is None or key not in annotations:
            continue
        annotation = annotations[key]
        if is_pod and own is None and _apparmor_field_for(annotation):
            continue
        where = f"{path}.securityContext.appArmorProfile"
        kind = profile.get("type")
        if (kind == "Unconfined" and annotation != "unconfined") or (
            kind == "RuntimeDefault" and annotation != "runtime/default"
        ):
            errors.append(forbidden(f"{where}.type", _APPARMOR_MISMATCH))
        elif kind == "Localhost":
            if not annotation.startswith(_LOCALHOST):
                errors.append(forbidden(f"{where}.type", _APPARMOR_MISMATCH))
            elif annotation.removeprefix(_LOCALHOST) != profile.get("localhostProfile"):
                detail = "apparmor profile in annotation and field must match"
                errors.append(forbidden(f"{where}.localhostProfile", detail))
    return errors


def _apparmor_field_for(annotation: str) -> bool:
    """Whether the pod strategy derives a valid AppArmor field from the annotation."""
    if annotation in ("unconfined", "runtime/default"):
        return True
    local = annotation.removeprefix(_LOCALHOST) if annotation.startswith(_LOCALHOST) else ""
    return bool(local) and local.strip() == local and len(local) <= 4095


def _containers(spec: Manifest, spec_path: str) -> Iterator[tuple[Manifest, str]]:
    """Every container with its path, in upstream's order: init, regular, ephemeral."""
    for key in ("initContainers", "containers", "ephemeralContainers"):
        for index, container in enumerate(spec.get(key) or []):
            yield container, f"{spec_path}.{key}[{index}]"
