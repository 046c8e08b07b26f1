"""Upstream's validation of the controllers whose pods the scheduler spreads:
``ValidateReplicaSet`` and ``ValidateStatefulSet`` (``pkg/apis/apps/validation``) and
``ValidateReplicationController`` (``pkg/apis/core/validation``).

Each checks its replica count, its selector (required, non-empty, matching the template's
labels) and its pod template, which must restart its containers always. The manifest is
checked as the API server sees it after defaulting: ``replicas`` defaults to 1, a
StatefulSet's policies to ``OrderedReady`` / ``RollingUpdate`` / ``Retain``, and a
ReplicationController's selector (and labels) to its template's labels.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from framework.api.field_errors import FieldError, forbidden, invalid, not_supported, required
from framework.api.labels import LabelSelector, Selector, SelectorError, selector_from_set
from framework.api.validation.content import is_dns1123_label, is_dns1123_subdomain
from framework.api.validation.meta import (
    validate_annotations,
    validate_label_selector,
    validate_labels,
    validate_nonnegative_field,
    validate_object_meta,
)
from framework.api.validation.pod_annotations import validate_pod_specific_annotations
from framework.api.validation.templates import validate_pod_template_spec
from framework.api.validation.volumes import validate_claim_spec

Manifest = Mapping[str, Any]

_SELECTOR_MISMATCH = "`selector` does not match template `labels`"
_POD_MANAGEMENT_POLICIES = ("OrderedReady", "Parallel")
_RETENTION_POLICIES = ("Retain", "Delete")


def validate_replica_set(manifest: Manifest) -> list[FieldError]:
    """``ValidateReplicaSet`` (apps/v1)."""
    spec = manifest.get("spec") or {}
    errors = validate_object_meta(manifest.get("metadata") or {}, True, is_dns1123_subdomain)
    errors += _counts(spec, "spec")
    # Upstream's message names a Deployment here: the check is shared with Deployments.
    errors += _label_selector(spec.get("selector"), "spec.selector", "deployment")
    selector = _as_selector(spec.get("selector"))
    if selector is None:
        where = "spec.selector"
        errors.append(invalid(where, _selector_value(spec["selector"]), "invalid label selector"))
    else:
        template = spec.get("template") or {}
        errors += _template_for_replicas(template, selector, "spec.template", "ReplicaSet")
    return errors


def validate_replication_controller(manifest: Manifest) -> list[FieldError]:
    """``ValidateReplicationController``: its selector is a plain label map, defaulted to
    the template's labels, and a missing template is refused."""
    metadata = manifest.get("metadata") or {}
    spec = manifest.get("spec") or {}
    template = spec.get("template")
    template_labels = ((template or {}).get("metadata") or {}).get("labels")
    selector_map = spec.get("selector") or template_labels or {}
    errors = validate_object_meta(metadata, True, is_dns1123_subdomain)
    errors += validate_nonnegative_field(spec.get("minReadySeconds") or 0, "spec.minReadySeconds")
    selector = selector_from_set(selector_map)
    if selector.empty():
        errors.append(required("spec.selector"))
    errors += validate_nonnegative_field(_replicas(spec), "spec.replicas")
    if template is None:
        errors.append(required("spec.template"))
    else:
        kind = "ReplicationController"
        errors += _template_for_replicas(template, selector, "spec.template", kind)
    return errors


def validate_stateful_set(manifest: Manifest) -> list[FieldError]:
    """``ValidateStatefulSet``: the replica-set checks plus the StatefulSet's own policies,
    its service name and its volume claim templates."""
    spec = manifest.get("spec") or {}
    errors = validate_object_meta(manifest.get("metadata") or {}, True, is_dns1123_label)
    errors += _pod_management_policy(spec.get("podManagementPolicy"))
    errors += _update_strategy(spec.get("updateStrategy") or {}, "spec.updateStrategy")
    errors += _retention_policy(spec.get("persistentVolumeClaimRetentionPolicy") or {})
    claim_templates = spec.get("volumeClaimTemplates") or []
    for index, claim in enumerate(claim_templates):
        where = f"spec.volumeClaimTemplates[{index}].spec"
        errors += validate_claim_spec(claim.get("spec") or {}, where)
    errors += _counts(spec, "spec")
    ordinals = spec.get("ordinals")
    if ordinals is not None:
        start = ordinals.get("start") or 0
        errors += validate_nonnegative_field(start, "spec.ordinals.start")
    service_name = spec.get("serviceName") or ""
    if service_name:
        problems = is_dns1123_label(service_name)
        errors += [invalid("spec.serviceName", service_name, msg) for msg in problems]
    errors += _label_selector(spec.get("selector"), "spec.selector", "statefulset")
    template = spec.get("template") or {}
    selector = _as_selector(spec.get("selector"))
    if selector is None:
        errors.append(invalid("spec.selector", _selector_value(spec["selector"]), ""))
    else:
        errors += _stateful_set_template(template, claim_templates, selector, "spec.template")
    errors += _restarts_always(template, "spec.template", "StatefulSet")
    return errors


# -- shared by the three -------------------------------------------------------------------------


def _replicas(spec: Manifest) -> int:
    replicas = spec.get("replicas")
    return 1 if replicas is None else replicas


def _counts(spec: Manifest, path: str) -> list[FieldError]:
    errors = validate_nonnegative_field(_replicas(spec), f"{path}.replicas")
    errors += validate_nonnegative_field(
        spec.get("minReadySeconds") or 0, f"{path}.minReadySeconds"
    )
    return errors


def _label_selector(selector: Manifest | None, path: str, kind: str) -> list[FieldError]:
    """Required, valid, and not empty (an empty selector would adopt every pod)."""
    if selector is None:
        return [required(path)]
    errors = validate_label_selector(selector, path)
    if not selector.get("matchLabels") and not selector.get("matchExpressions"):
        errors.append(
            invalid(path, _selector_value(selector), f"empty selector is invalid for {kind}")
        )
    return errors


def _as_selector(selector: Manifest | None) -> Selector | None:
    """``LabelSelectorAsSelector``: no selector selects nothing; None when it does not parse."""
    if selector is None:
        return Selector(nothing=True)
    try:
        return LabelSelector.from_dict(selector).as_selector()
    except SelectorError:
        return None


def _selector_value(selector: Manifest) -> dict[str, Any]:
    """The selector as upstream prints it: JSON without its empty fields."""
    shown: dict[str, Any] = {}
    if selector.get("matchLabels"):
        shown["matchLabels"] = dict(sorted(selector["matchLabels"].items()))
    expressions = [
        {
            "key": expression.get("key") or "",
            "operator": expression.get("operator") or "",
            **({"values": list(expression["values"])} if expression.get("values") else {}),
        }
        for expression in selector.get("matchExpressions") or []
    ]
    if expressions:
        shown["matchExpressions"] = expressions
    return shown


def _template_labels(template: Manifest) -> dict[str, str] | None:
    labels = (template.get("metadata") or {}).get("labels")
    return None if labels is None else dict(sorted(labels.items()))


def _selector_matches(template: Manifest, selector: Selector, path: str) -> list[FieldError]:
    labels = _template_labels(template)
    if selector.empty() or selector.matches(labels or {}):
        return []
    return [invalid(f"{path}.metadata.labels", labels, _SELECTOR_MISMATCH)]


def _template_for_replicas(
    template: Manifest, selector: Selector, path: str, kind: str
) -> list[FieldError]:
    """``ValidatePodTemplateSpecForReplicaSet`` / ``ValidatePodTemplateSpecForRC``."""
    errors = _selector_matches(template, selector, path)
    errors += validate_pod_template_spec(template, path)
    errors += _restarts_always(template, path, kind)
    return errors


def _restarts_always(template: Manifest, path: str, kind: str) -> list[FieldError]:
    """A controller replaces pods that end: its pods restart always and have no deadline."""
    spec = template.get("spec") or {}
    errors: list[FieldError] = []
    policy = spec.get("restartPolicy") or "Always"
    if policy != "Always":
        errors.append(not_supported(f"{path}.spec.restartPolicy", policy, ["Always"]))
    if spec.get("activeDeadlineSeconds") is not None:
        detail = f"activeDeadlineSeconds in {kind} is not Supported"
        errors.append(forbidden(f"{path}.spec.activeDeadlineSeconds", detail))
    return errors


# -- StatefulSet ---------------------------------------------------------------------------------


def _pod_management_policy(policy: str | None) -> list[FieldError]:
    if not policy or policy in _POD_MANAGEMENT_POLICIES:
        return []
    detail = "must be 'OrderedReady' or 'Parallel'"
    return [invalid("spec.podManagementPolicy", policy, detail)]


def _update_strategy(strategy: Manifest, path: str) -> list[FieldError]:
    kind = strategy.get("type") or "RollingUpdate"
    rolling = strategy.get("rollingUpdate")
    if kind == "OnDelete":
        if rolling is None:
            return []
        detail = "only allowed for updateStrategy 'RollingUpdate'"
        return [invalid(f"{path}.rollingUpdate", _rolling_update_value(rolling), detail)]
    if kind == "RollingUpdate":
        if rolling is None:
            return []
        partition = rolling.get("partition") or 0
        return validate_nonnegative_field(partition, f"{path}.rollingUpdate.partition")
    shown = {"Type": kind, "RollingUpdate": _rolling_update_value(rolling)}
    return [invalid(path, shown, "must be 'RollingUpdate' or 'OnDelete'")]


def _rolling_update_value(rolling: Manifest | None) -> dict[str, Any] | None:
    """The internal type as upstream prints it (Go field names; partition defaults to 0,
    maxUnavailable is dropped while its feature gate is off)."""
    if rolling is None:
        return None
    return {"Partition": rolling.get("partition") or 0, "MaxUnavailable": None}


def _retention_policy(policy: Manifest) -> list[FieldError]:
    errors: list[FieldError] = []
    for key in ("whenDeleted", "whenScaled"):
        value = policy.get(key) or "Retain"
        if value not in _RETENTION_POLICIES:
            where = f"spec.persistentVolumeClaimRetentionPolicy.{key}"
            errors.append(not_supported(where, value, _RETENTION_POLICIES))
    return errors


def _stateful_set_template(
    template: Manifest, claim_templates: list[Manifest], selector: Selector, path: str
) -> list[FieldError]:
    """``ValidatePodTemplateSpecForStatefulSet``: the template as the controller completes
    it (its hostname and subdomain are the controller's; each claim template is a volume),
    then its labels and annotations once more, as upstream checks them twice."""
    spec = {**(template.get("spec") or {})}
    spec.pop("hostname", None)
    spec.pop("subdomain", None)
    completed = {**template, "spec": spec}
    volumes = [
        {"name": claim_name, "persistentVolumeClaim": {"claimName": claim_name}}
        for claim_name in ((c.get("metadata") or {}).get("name") or "" for c in claim_templates)
    ]
    metadata = template.get("metadata") or {}
    errors = _selector_matches(template, selector, path)
    errors += validate_pod_template_spec(completed, path, volumes)
    annotations = metadata.get("annotations") or {}
    errors += validate_labels(metadata.get("labels") or {}, f"{path}.labels")
    errors += validate_annotations(annotations, f"{path}.annotations")
    errors += validate_pod_specific_annotations(annotations, spec, f"{path}.annotations")
    return errors
