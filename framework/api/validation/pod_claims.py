"""The resource-claim parts of upstream's ``ValidatePodSpec``: the pod's
``spec.resourceClaims`` (``validatePodResourceClaims``) and the claims its containers name in
``resources.claims`` (``validateResourceClaimNames``)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from framework.api.field_errors import (
    NOT_FOUND,
    FieldError,
    duplicate,
    forbidden,
    invalid,
    required,
)
from framework.api.validation.content import is_dns1123_label, is_dns1123_subdomain

Manifest = Mapping[str, Any]
MIRROR_POD_ANNOTATION = "kubernetes.io/config.mirror"
_AT_MOST_ONE = "at most one of `resourceClaimName` or `resourceClaimTemplateName` may be specified"
_ONE_OF = "must specify one of: `resourceClaimName`, `resourceClaimTemplateName`"


def pod_claim_names(spec: Manifest) -> set[str]:
    """The names containers may refer to (empty names left out)."""
    return {c.get("name") for c in spec.get("resourceClaims") or [] if c.get("name")}


def validate_pod_resource_claims(
    claims: list[Manifest], metadata: Manifest, path: str
) -> list[FieldError]:
    """Each claim named once with a DNS label, and exactly one source: a claim or a
    template. Static (mirror) pods may have none."""
    errors: list[FieldError] = []
    seen: set[str] = set()
    static = MIRROR_POD_ANNOTATION in (metadata.get("annotations") or {})
    for index, claim in enumerate(claims):
        if static:  # once per claim, as upstream
            errors.append(forbidden("", "static pods do not support resource claims"))
        else:
            errors += _pod_resource_claim(claim, seen, f"{path}[{index}]")
    return errors


def _pod_resource_claim(claim: Manifest, seen: set[str], path: str) -> list[FieldError]:
    errors: list[FieldError] = []
    name = claim.get("name") or ""
    if not name:
        errors.append(required(f"{path}.name"))
    elif name in seen:
        errors.append(duplicate(f"{path}.name", name))
    else:
        errors += [invalid(f"{path}.name", name, msg) for msg in is_dns1123_label(name)]
        seen.add(name)
    claim_name = claim.get("resourceClaimName")
    template_name = claim.get("resourceClaimTemplateName")
    if claim_name is not None and template_name is not None:
        errors.append(invalid(path, _go_claim(claim), _AT_MOST_ONE))
    if claim_name is None and template_name is None:
        errors.append(invalid(path, _go_claim(claim), _ONE_OF))
    sources = (("resourceClaimName", claim_name), ("resourceClaimTemplateName", template_name))
    for key, value in sources:
        if value is not None:
            errors += [invalid(f"{path}.{key}", value, m) for m in is_dns1123_subdomain(value)]
    return errors


def _go_claim(claim: Manifest) -> dict[str, Any]:
    """The claim as upstream prints it: its internal struct as JSON, every field named."""
    return {
        "Name": claim.get("name") or "",
        "ResourceClaimName": claim.get("resourceClaimName"),
        "ResourceClaimTemplateName": claim.get("resourceClaimTemplateName"),
    }


def validate_container_claims(
    claims: list[Manifest], pod_claims: set[str], path: str
) -> list[FieldError]:
    """A container's ``resources.claims``: each a claim of the pod, optionally one of its
    requests, none named twice or both whole and by request."""
    errors: list[FieldError] = []
    names: set[str] = set()
    for index, claim in enumerate(claims):
        where = f"{path}[{index}]"
        name = claim.get("name") or ""
        if not name:
            errors.append(required(where))
            continue
        request = claim.get("request") or ""
        if name in names:
            errors.append(duplicate(where, name))
        else:
            key = name
            if request:
                where_request = f"{where}.request"
                errors += [invalid(where_request, request, m) for m in is_dns1123_label(request)]
                key += "/" + request
            if key in names:
                errors.append(duplicate(where, key))
            elif not request:
                overlaps = sum(1 for k in names if "/" in k and k.split("/", 1)[0] == name)
                errors += [duplicate(where, name)] * overlaps
            names.add(key)
        if name not in pod_claims:
            errors.append(_not_a_pod_claim(where, name, pod_claims))
    return errors


def _not_a_pod_claim(path: str, name: str, pod_claims: set[str]) -> FieldError:
    detail = "must be one of the names in pod.spec.resourceClaims"
    if pod_claims:
        detail += ": " + ", ".join(sorted(pod_claims))
    else:
        detail += " which is empty"
    return FieldError(NOT_FOUND, path, name, detail)
