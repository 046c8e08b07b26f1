"""kube-apiserver's validation of scheduling.k8s.io/v1alpha2 Workloads and PodGroups, and of a
pod's ``spec.schedulingGroup``: the handwritten metadata checks of
``pkg/apis/scheduling/validation`` followed by the declarative rules generated from the
types' tags (``pkg/apis/scheduling/v1alpha2/zz_generated.validations.go``), in field order.

The messages are kube-apiserver v1.36.2's, as recorded in
tests/fixtures/oracle-workloads/apiserver/invalid.json. ``resourceClaims`` is not checked: the
DRAWorkloadResourceClaims gate is off by default, and kube-apiserver then drops the field.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from framework.api.field_errors import FieldError, duplicate, invalid, not_supported, required
from framework.api.pod_group import (
    DISRUPTION_MODES,
    MAX_TOPOLOGY_CONSTRAINTS,
    WORKLOAD_MAX_POD_GROUP_TEMPLATES,
)
from framework.api.validation.content import (
    is_dns1123_label,
    is_dns1123_subdomain,
    is_label_key,
    is_path_segment_name,
)
from framework.api.validation.dra_common import too_many
from framework.api.validation.meta import validate_object_meta

Manifest = Mapping[str, Any]
POLICIES = ("basic", "gang")
HIGHEST_USER_DEFINABLE_PRIORITY = 1_000_000_000


def validate_pod_group(manifest: Manifest) -> list[FieldError]:
    errors = validate_object_meta(manifest.get("metadata") or {}, True, is_dns1123_subdomain)
    spec = manifest.get("spec") or {}
    ref = spec.get("podGroupTemplateRef")
    if ref is not None:
        errors += _template_reference(ref, "spec.podGroupTemplateRef")
    errors += _group_settings(spec, "spec")
    return errors


def validate_workload(manifest: Manifest) -> list[FieldError]:
    errors = validate_object_meta(manifest.get("metadata") or {}, True, is_dns1123_subdomain)
    spec = manifest.get("spec") or {}
    if spec.get("controllerRef") is not None:
        errors += _controller_reference(spec["controllerRef"], "spec.controllerRef")
    templates = spec.get("podGroupTemplates") or []
    path = "spec.podGroupTemplates"
    if not templates:
        return [*errors, required(path)]
    if len(templates) > WORKLOAD_MAX_POD_GROUP_TEMPLATES:
        errors.append(too_many(path, len(templates), WORKLOAD_MAX_POD_GROUP_TEMPLATES))
    errors += _duplicate_names(templates, path)
    for index, template in enumerate(templates):
        errors += _template(template, f"{path}[{index}]")
    return errors


def validate_scheduling_group(group: Manifest, path: str) -> list[FieldError]:
    """``validateSchedulingGroup`` (core validation): a pod names its PodGroup."""
    name = group.get("podGroupName")
    if name is None:
        return [invalid(f"{path}.podGroupName", None, "must specify one of: `podGroupName`")]
    return [invalid(f"{path}.podGroupName", name, d) for d in is_dns1123_subdomain(name)]


def _template(template: Manifest, path: str) -> list[FieldError]:
    errors = _short_name(template.get("name") or "", f"{path}.name")
    return errors + _group_settings(template, path)


def _group_settings(settings: Manifest, path: str) -> list[FieldError]:
    """What a PodGroup's spec and a Workload's template share, in the types' field order."""
    errors = _scheduling_policy(settings.get("schedulingPolicy") or {}, f"{path}.schedulingPolicy")
    constraints = settings.get("schedulingConstraints") or {}
    errors += _topology(constraints.get("topology") or [], f"{path}.schedulingConstraints.topology")
    mode = settings.get("disruptionMode")
    if mode is not None and mode not in DISRUPTION_MODES:
        errors.append(not_supported(f"{path}.disruptionMode", mode, DISRUPTION_MODES))
    class_name = settings.get("priorityClassName") or ""
    if class_name:
        errors += _long_name(class_name, f"{path}.priorityClassName")
    priority = settings.get("priority")
    if priority is not None and priority > HIGHEST_USER_DEFINABLE_PRIORITY:
        detail = f"must be less than or equal to {HIGHEST_USER_DEFINABLE_PRIORITY}"
        errors.append(invalid(f"{path}.priority", priority, detail))
    return errors


def _scheduling_policy(policy: Manifest, path: str) -> list[FieldError]:
    """A union: exactly one of ``basic`` and ``gang``; a gang needs ``minCount`` of 1 or more
    (0 reads as unset)."""
    given = [name for name in POLICIES if policy.get(name) is not None]
    if not given:
        return [invalid(path, "", _one_of("must specify one of", POLICIES))]
    if len(given) > 1:
        value = "{" + ", ".join(given) + "}"
        return [invalid(path, value, _one_of("must specify exactly one of", POLICIES))]
    if given == ["basic"]:
        return []
    min_count = policy["gang"].get("minCount") or 0
    if min_count == 0:
        return [required(f"{path}.gang.minCount")]
    if min_count < 1:
        return [invalid(f"{path}.gang.minCount", min_count, "must be greater than or equal to 1")]
    return []


def _topology(constraints: Sequence[Manifest], path: str) -> list[FieldError]:
    if len(constraints) > MAX_TOPOLOGY_CONSTRAINTS:
        return [too_many(path, len(constraints), MAX_TOPOLOGY_CONSTRAINTS)]
    errors: list[FieldError] = []
    for index, constraint in enumerate(constraints):
        key = constraint.get("key") or ""
        if not key:
            errors.append(required(f"{path}[{index}].key"))
        else:
            errors += [invalid(f"{path}[{index}].key", key, d) for d in is_label_key(key)]
    return errors


def _template_reference(ref: Manifest, path: str) -> list[FieldError]:
    """A union with one member so far: ``workload``."""
    workload = ref.get("workload")
    if workload is None:
        return [invalid(path, "", _one_of("must specify one of", ("workload",)))]
    path = f"{path}.workload"
    return [
        *_long_name(workload.get("workloadName") or "", f"{path}.workloadName"),
        *_short_name(workload.get("podGroupTemplateName") or "", f"{path}.podGroupTemplateName"),
    ]


def _controller_reference(ref: Manifest, path: str) -> list[FieldError]:
    errors: list[FieldError] = []
    if ref.get("apiGroup"):
        errors += _long_name(ref["apiGroup"], f"{path}.apiGroup")
    for key in ("kind", "name"):
        value = ref.get(key) or ""
        if not value:
            errors.append(required(f"{path}.{key}"))
        else:
            errors += [invalid(f"{path}.{key}", value, d) for d in is_path_segment_name(value)]
    return errors


def _duplicate_names(templates: Sequence[Manifest], path: str) -> list[FieldError]:
    """The templates form a map keyed by name; a repeat is shown as the whole template."""
    errors: list[FieldError] = []
    seen: set[str] = set()
    for index, template in enumerate(templates):
        name = template.get("name") or ""
        if name in seen:
            errors.append(duplicate(f"{path}[{index}]", _as_go_encodes(template)))
        seen.add(name)
    return errors


def _as_go_encodes(template: Manifest) -> dict[str, Any]:
    """The template as Go's encoding/json writes the v1alpha2 type: its fields in order,
    ``schedulingConstraints`` null when unset, the optional ones left out."""
    fields: dict[str, Any] = {
        "name": template.get("name") or "",
        "schedulingPolicy": template.get("schedulingPolicy") or {},
        "schedulingConstraints": template.get("schedulingConstraints"),
    }
    for key in ("resourceClaims", "disruptionMode", "priorityClassName", "priority"):
        if template.get(key):
            fields[key] = template[key]
    return fields


def _short_name(value: str, path: str) -> list[FieldError]:
    if not value:
        return [required(path)]
    return [invalid(path, value, detail) for detail in is_dns1123_label(value)]


def _long_name(value: str, path: str) -> list[FieldError]:
    if not value:
        return [required(path)]
    return [invalid(path, value, detail) for detail in is_dns1123_subdomain(value)]


def _one_of(lead: str, names: Sequence[str]) -> str:
    return f"{lead}: " + ", ".join(f"`{name}`" for name in names)
