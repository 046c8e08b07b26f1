"""Upstream's ``ValidatePodUpdate``: a pod's spec is fixed once created, except its images,
``activeDeadlineSeconds`` (only shortened), tolerations (only added), scheduling gates (only
removed) and, while the pod is gated, additions to its node selector and node affinity.

Anything else is refused with ``spec: Forbidden: pod updates may not change fields other
than ...`` and a diff of the two specs; kubectl's answer is ``kubectl replace --force``,
deleting the pod and creating it again.
"""

from __future__ import annotations

import copy
from collections.abc import Mapping
from typing import Any

from framework.api.field_errors import FieldError, forbidden, invalid, required
from framework.api.validation.pod import validate_pod
from framework.api.validation.taints import validate_tolerations
from framework.api.validation.update_common import (
    normalized,
    semantically_equal,
    spec_diff,
    validate_object_meta_update,
)

Manifest = Mapping[str, Any]
MIRROR_POD_ANNOTATION = "kubernetes.io/config.mirror"
APPARMOR_PREFIX = "container.apparmor.security.beta.kubernetes.io/"
UPDATABLE_POD_SPEC_FIELDS = (
    "`spec.containers[*].image`",
    "`spec.initContainers[*].image`",
    "`spec.activeDeadlineSeconds`",
    "`spec.tolerations` (only additions to existing tolerations)",
    "`spec.terminationGracePeriodSeconds` (allow it to be set to 1 if it was previously negative)",
)
POD_SPEC_CHANGE = "pod updates may not change fields other than " + ",".join(
    UPDATABLE_POD_SPEC_FIELDS
)
_INT32_MAX = 2**31 - 1


def validate_pod_update(new: Manifest, old: Manifest) -> list[FieldError]:
    """Every problem kube-apiserver reports for this pod update, in its order (it stops
    early where upstream returns early)."""
    errors = validate_object_meta_update(new.get("metadata") or {}, old.get("metadata") or {})
    errors += validate_pod(new)
    errors += _annotation_updates(new.get("metadata") or {}, old.get("metadata") or {})
    spec, old_spec = new.get("spec") or {}, old.get("spec") or {}
    for key in ("containers", "initContainers"):
        found, stop = _container_updates(spec.get(key) or [], old_spec.get(key) or [], key)
        errors += found
        if stop:
            return errors
    found, stop = _active_deadline(spec, old_spec)
    errors += found
    if stop:
        return errors
    errors += _only_added_tolerations(spec.get("tolerations") or [], old_spec.get("tolerations"))
    errors += _only_deleted_gates(spec.get("schedulingGates") or [], old_spec)
    if semantically_equal(spec, old_spec):
        return errors
    munged, gated_errors = _munged(spec, old_spec)
    errors += gated_errors
    if not semantically_equal(munged, old_spec):
        diff = spec_diff(normalized(old_spec), normalized(munged))
        errors.append(forbidden("spec", f"{POD_SPEC_CHANGE}\n{diff}"))
    return errors


def _annotation_updates(new: Manifest, old: Manifest) -> list[FieldError]:
    """``ValidatePodSpecificAnnotationUpdates``: mirror-pod and AppArmor annotations stay."""
    errors: list[FieldError] = []
    new_annotations = new.get("annotations") or {}
    old_annotations = old.get("annotations") or {}
    for key in sorted(old_annotations):
        if key in new_annotations and new_annotations[key] == old_annotations[key]:
            continue
        if key.startswith(APPARMOR_PREFIX):
            detail = "may not remove or update AppArmor annotations"
            errors.append(forbidden(f"metadata.annotations[{key}]", detail))
        if key == MIRROR_POD_ANNOTATION:
            detail = "may not remove or update mirror pod annotation"
            errors.append(forbidden(f"metadata.annotations[{key}]", detail))
    for key in sorted(new_annotations):
        if key in old_annotations:
            continue
        if key.startswith(APPARMOR_PREFIX):
            errors.append(
                forbidden(f"metadata.annotations[{key}]", "may not add AppArmor annotations")
            )
        if key == MIRROR_POD_ANNOTATION:
            detail = "may not add mirror pod annotation"
            errors.append(forbidden(f"metadata.annotations[{key}]", detail))
    return errors


def _container_updates(
    new: list[Manifest], old: list[Manifest], key: str
) -> tuple[list[FieldError], bool]:
    """``ValidateContainerUpdates``: as many containers as before, each with an image."""
    path = f"spec.{key}"
    if len(new) != len(old):
        return [forbidden(path, "pod updates may not add or remove containers")], True
    errors: list[FieldError] = []
    for index, container in enumerate(new):
        image = container.get("image") or ""
        if not image:
            errors.append(required(f"{path}[{index}].image"))
        if image.strip() != image:
            detail = "must not have leading or trailing whitespace"
            errors.append(invalid(f"{path}[{index}].image", image, detail))
    return errors, False


def _active_deadline(spec: Manifest, old_spec: Manifest) -> tuple[list[FieldError], bool]:
    """Set from nothing, or lowered; never removed."""
    path = "spec.activeDeadlineSeconds"
    new_value = spec.get("activeDeadlineSeconds")
    old_value = old_spec.get("activeDeadlineSeconds")
    if new_value is not None:
        if not 0 <= new_value <= _INT32_MAX:
            detail = f"must be between 0 and {_INT32_MAX}, inclusive"
            return [invalid(path, new_value, detail)], True
        if old_value is not None and old_value < new_value:
            return [invalid(path, new_value, "must be less than or equal to previous value")], True
        return [], False
    if old_value is not None:
        detail = "must not update from a positive integer to nil value"
        return [invalid(path, None, detail)], False
    return [], False


def _only_added_tolerations(new: list[Manifest], old: list[Manifest] | None) -> list[FieldError]:
    """Every old toleration still there (its ``tolerationSeconds`` may change), then the new
    list checked as on create."""
    for toleration in old or []:
        if not any(_same_toleration(toleration, candidate) for candidate in new):
            detail = "existing toleration can not be modified except its tolerationSeconds"
            return [forbidden("spec.tolerations", detail)]
    return validate_tolerations(new, "spec.tolerations")


def _same_toleration(old: Manifest, new: Manifest) -> bool:
    keys = ("key", "operator", "value", "effect")
    return all((old.get(k) or "") == (new.get(k) or "") for k in keys)


def _only_deleted_gates(new: list[Manifest], old_spec: Manifest) -> list[FieldError]:
    old_names = {gate.get("name") for gate in old_spec.get("schedulingGates") or []}
    errors: list[FieldError] = []
    for index, gate in enumerate(new):
        name = gate.get("name") or ""
        if name not in old_names:
            detail = f"only deletion is allowed, but found new scheduling gate '{name}'"
            errors.append(forbidden(f"spec.schedulingGates[{index}].name", detail))
    return errors


def _munged(spec: Manifest, old_spec: Manifest) -> tuple[dict[str, Any], list[FieldError]]:
    """The new spec with every field it may change set back to the old value, and what a
    gated pod's node selector and affinity changes break."""
    munged = copy.deepcopy(dict(spec))
    for key in ("containers", "initContainers"):
        olds = old_spec.get(key) or []
        if munged.get(key):
            munged[key] = [
                {**container, "image": olds[index].get("image")}
                for index, container in enumerate(munged[key])
            ]
    for key in ("activeDeadlineSeconds", "schedulingGates", "tolerations"):
        _set(munged, key, old_spec.get(key))
    old_grace = old_spec.get("terminationGracePeriodSeconds")
    if old_grace is not None and old_grace < 0 and munged.get("terminationGracePeriodSeconds") == 1:
        munged["terminationGracePeriodSeconds"] = old_grace
    errors: list[FieldError] = []
    if old_spec.get("schedulingGates"):
        errors += _gated_node_selector(munged, old_spec)
        errors += _gated_node_affinity(munged, old_spec)
    return munged, errors


def _set(target: dict[str, Any], key: str, value: Any) -> None:
    if value is None:
        target.pop(key, None)
    else:
        target[key] = value


def _gated_node_selector(munged: dict[str, Any], old_spec: Manifest) -> list[FieldError]:
    new = munged.get("nodeSelector") or {}
    old = old_spec.get("nodeSelector") or {}
    if new == old:
        return []
    _set(munged, "nodeSelector", old_spec.get("nodeSelector"))
    for key, value in old.items():
        if new.get(key) != value:
            detail = "only additions to spec.nodeSelector are allowed (no mutations or deletions)"
            return [invalid("spec.nodeSelector", dict(new), detail)]
    return []


def _gated_node_affinity(munged: dict[str, Any], old_spec: Manifest) -> list[FieldError]:
    old_affinity = (old_spec.get("affinity") or {}).get("nodeAffinity")
    affinity = munged.get("affinity")
    new_affinity = (affinity or {}).get("nodeAffinity")
    if semantically_equal(old_affinity, new_affinity):
        return []
    errors = _node_affinity_mutation(new_affinity, old_affinity)
    if affinity is None:
        if old_affinity is not None:
            munged["affinity"] = {"nodeAffinity": old_affinity}
    elif old_spec.get("affinity") is None and not (
        affinity.get("podAffinity") or affinity.get("podAntiAffinity")
    ):
        munged.pop("affinity")
    else:
        munged["affinity"] = {**affinity}
        _set(munged["affinity"], "nodeAffinity", old_affinity)
    return errors


_AFFINITY_TERMS = "spec.affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution"


def _node_affinity_mutation(new: Manifest | None, old: Manifest | None) -> list[FieldError]:
    """Required terms: as many as before, each only with requirements appended."""
    old_required = (old or {}).get("requiredDuringSchedulingIgnoredDuringExecution")
    if old_required is None:
        return []
    old_terms = old_required.get("nodeSelectorTerms") or []
    new_required = (new or {}).get("requiredDuringSchedulingIgnoredDuringExecution") or {}
    new_terms = new_required.get("nodeSelectorTerms") or []
    path = f"{_AFFINITY_TERMS}.nodeSelectorTerms"
    if old_terms and len(old_terms) != len(new_terms):
        detail = "no additions/deletions to non-empty NodeSelectorTerms list are allowed"
        return [invalid(path, new_terms, detail)]
    errors: list[FieldError] = []
    for index, old_term in enumerate(old_terms):
        if not _only_additions(new_terms[index], old_term):
            detail = "only additions are allowed (no mutations or deletions)"
            errors.append(invalid(f"{path}[{index}]", new_terms[index], detail))
    return errors


def _only_additions(new: Manifest, old: Manifest) -> bool:
    was_empty = not old.get("matchExpressions") and not old.get("matchFields")
    if was_empty and (new.get("matchExpressions") or new.get("matchFields")):
        return False
    for key in ("matchExpressions", "matchFields"):
        olds = old.get(key) or []
        news = new.get(key) or []
        if olds and (len(news) < len(olds) or not semantically_equal(news[: len(olds)], olds)):
            return False
    return True
