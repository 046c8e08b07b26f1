"""Upstream's checks of node affinity, pod (anti-)affinity terms and the label keys merged
into their selectors (``validateAffinity``, ``ValidateMatchLabelKeysAndMismatchLabelKeys``)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from framework.api.field_errors import FieldError, forbidden, invalid, required
from framework.api.validation.content import is_dns1123_label, is_dns1123_subdomain, is_label_value
from framework.api.validation.meta import validate_label_name, validate_label_selector

Manifest = Mapping[str, Any]


def validate_affinity(
    affinity: Manifest | None, labels: Mapping[str, str], path: str
) -> list[FieldError]:
    """``validateAffinity``, on the terms after the pod's labels were merged into them."""
    if not affinity:
        return []
    errors: list[FieldError] = []
    node_affinity = affinity.get("nodeAffinity")
    if node_affinity is not None:
        errors += _node_affinity(node_affinity, f"{path}.nodeAffinity")
    for section in ("podAffinity", "podAntiAffinity"):
        if affinity.get(section) is not None:
            errors += _pod_affinity(affinity[section], labels, f"{path}.{section}")
    return errors


def _node_affinity(node_affinity: Manifest, path: str) -> list[FieldError]:
    errors: list[FieldError] = []
    required_terms = node_affinity.get("requiredDuringSchedulingIgnoredDuringExecution")
    if required_terms is not None:
        where = f"{path}.requiredDuringSchedulingIgnoredDuringExecution"
        errors += validate_node_selector(required_terms, where)
    preferred = node_affinity.get("preferredDuringSchedulingIgnoredDuringExecution") or []
    for index, term in enumerate(preferred):
        where = f"{path}.preferredDuringSchedulingIgnoredDuringExecution[{index}]"
        errors += _weight(term.get("weight") or 0, f"{where}.weight")
        # Preferred terms may hold invalid label values: they can still match (upstream).
        preference = term.get("preference") or {}
        errors += _node_selector_term(preference, f"{where}.preference", check_values=False)
    return errors


def validate_node_selector(selector: Manifest, path: str) -> list[FieldError]:
    """``ValidateNodeSelector``: at least one term, each requirement well formed."""
    where = f"{path}.nodeSelectorTerms"
    terms = selector.get("nodeSelectorTerms") or []
    if not terms:
        return [required(where, "must have at least one node selector term")]
    errors: list[FieldError] = []
    for index, term in enumerate(terms):
        errors += _node_selector_term(term or {}, f"{where}[{index}]", check_values=True)
    return errors


def _node_selector_term(term: Manifest, path: str, *, check_values: bool) -> list[FieldError]:
    errors: list[FieldError] = []
    for index, requirement in enumerate(term.get("matchExpressions") or []):
        where = f"{path}.matchExpressions[{index}]"
        errors += _node_selector_requirement(requirement, where, check_values)
    for index, requirement in enumerate(term.get("matchFields") or []):
        errors += _node_field_requirement(requirement, f"{path}.matchFields[{index}]")
    return errors


def _node_selector_requirement(rq: Manifest, path: str, check_values: bool) -> list[FieldError]:
    errors: list[FieldError] = []
    operator = rq.get("operator") or ""
    values = rq.get("values") or []
    if operator in ("In", "NotIn"):
        if not values:
            detail = "must be specified when `operator` is 'In' or 'NotIn'"
            errors.append(required(f"{path}.values", detail))
    elif operator in ("Exists", "DoesNotExist"):
        if values:
            detail = "may not be specified when `operator` is 'Exists' or 'DoesNotExist'"
            errors.append(forbidden(f"{path}.values", detail))
    elif operator in ("Gt", "Lt"):
        if len(values) != 1:
            detail = "must be specified single value when `operator` is 'Lt' or 'Gt'"
            errors.append(required(f"{path}.values", detail))
    else:
        errors.append(invalid(f"{path}.operator", operator, "not a valid selector operator"))
    errors += validate_label_name(rq.get("key") or "", f"{path}.key")
    if check_values:
        for index, value in enumerate(values):
            where = f"{path}.values[{index}]"
            errors += [invalid(where, value, msg) for msg in is_label_value(str(value))]
    return errors


def _node_field_requirement(rq: Manifest, path: str) -> list[FieldError]:
    errors: list[FieldError] = []
    operator = rq.get("operator") or ""
    values = rq.get("values") or []
    if operator in ("In", "NotIn"):
        if len(values) != 1:
            detail = (
                "must be only one value when `operator` is 'In' or 'NotIn' for node field selector"
            )
            errors.append(required(f"{path}.values", detail))
    else:
        errors.append(invalid(f"{path}.operator", operator, "not a valid selector operator"))
    key = rq.get("key") or ""
    if key != "metadata.name":
        errors.append(invalid(f"{path}.key", key, "not a valid field selector key"))
    else:
        for index, value in enumerate(values):
            where = f"{path}.values[{index}]"
            errors += [invalid(where, value, msg) for msg in is_dns1123_subdomain(str(value))]
    return errors


def _weight(weight: int, path: str) -> list[FieldError]:
    if weight <= 0 or weight > 100:
        return [invalid(path, weight, "must be in the range 1-100")]
    return []


def _pod_affinity(section: Manifest, labels: Mapping[str, str], path: str) -> list[FieldError]:
    errors: list[FieldError] = []
    where = f"{path}.requiredDuringSchedulingIgnoredDuringExecution"
    for index, term in enumerate(
        section.get("requiredDuringSchedulingIgnoredDuringExecution") or []
    ):
        errors += _pod_affinity_term(term or {}, labels, f"{where}[{index}]")
    where = f"{path}.preferredDuringSchedulingIgnoredDuringExecution"
    for index, weighted in enumerate(
        section.get("preferredDuringSchedulingIgnoredDuringExecution") or []
    ):
        errors += _weight(weighted.get("weight") or 0, f"{where}[{index}].weight")
        term = weighted.get("podAffinityTerm") or {}
        errors += _pod_affinity_term(term, labels, f"{where}[{index}].podAffinityTerm")
    return errors


def _pod_affinity_term(term: Manifest, labels: Mapping[str, str], path: str) -> list[FieldError]:
    match_keys = term.get("matchLabelKeys") or []
    mismatch_keys = term.get("mismatchLabelKeys") or []
    selector = merged_selector(term.get("labelSelector"), labels, match_keys, mismatch_keys)
    errors = validate_label_selector(selector, f"{path}.labelSelector")
    errors += validate_label_selector(term.get("namespaceSelector"), f"{path}.namespaceSelector")
    for name in term.get("namespaces") or []:
        errors += [invalid(f"{path}.namespace", name, msg) for msg in is_dns1123_label(name)]
    errors += validate_label_keys(path, match_keys, mismatch_keys, selector)
    topology_key = term.get("topologyKey") or ""
    if not topology_key:
        errors.append(required(f"{path}.topologyKey", "can not be empty"))
    errors += validate_label_name(topology_key, f"{path}.topologyKey")
    return errors


def merged_selector(
    selector: Manifest | None, labels: Mapping[str, str], match_keys: list[str], mismatch: list[str]
) -> Manifest | None:
    """The selector after the pod strategy merged the label keys into it, as validated."""
    if selector is None or not (match_keys or mismatch):
        return selector
    expressions = list(selector.get("matchExpressions") or [])
    for keys, operator in ((match_keys, "In"), (mismatch, "NotIn")):
        expressions += [
            {"key": key, "operator": operator, "values": [labels[key]]}
            for key in keys
            if key in labels
        ]
    return {**selector, "matchExpressions": expressions}


def validate_label_keys(
    path: str, match_keys: list[str], mismatch_keys: list[str], selector: Manifest | None
) -> list[FieldError]:
    """``ValidateMatchLabelKeysAndMismatchLabelKeys`` (its index paths are upstream's)."""
    errors: list[FieldError] = []
    for name, keys in (("matchLabelKeys", match_keys), ("mismatchLabelKeys", mismatch_keys)):
        if not keys:
            continue
        if selector is None:
            detail = "must not be specified when labelSelector is not set"
            errors.append(forbidden(f"{path}.{name}", detail))
            continue
        for index, key in enumerate(keys):
            errors += validate_label_name(key, f"{path}.{name}[{index}]")
    if selector is not None:
        positions = {key: index for index, key in enumerate(match_keys)}
        seen = set((selector.get("matchLabels") or {}).keys())
        for expression in selector.get("matchExpressions") or []:
            key = expression.get("key") or ""
            if key in positions and key in seen:
                detail = "exists in both matchLabelKeys and labelSelector"
                errors.append(invalid(f"{path}[{positions[key]}]", key, detail))
            seen.add(key)
    mismatched = set(mismatch_keys)
    for index, key in enumerate(match_keys):
        if key in mismatched:
            detail = "exists in both matchLabelKeys and mismatchLabelKeys"
            errors.append(invalid(f"{path}.matchLabelKeys[{index}]", key, detail))
    return errors
