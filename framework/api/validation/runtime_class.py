"""Upstream's ``ValidateRuntimeClass`` (``pkg/apis/node/validation``): the handler, the
overhead every pod of the class pays, and the nodes its pods may run on."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from framework.api.field_errors import FieldError, duplicate, invalid, required
from framework.api.validation.content import is_dns1123_label, is_dns1123_subdomain
from framework.api.validation.meta import validate_labels, validate_object_meta
from framework.api.validation.resources import validate_resource_requirements
from framework.api.validation.taints import validate_tolerations

Manifest = Mapping[str, Any]


def validate_runtime_class(manifest: Manifest) -> list[FieldError]:
    errors = validate_object_meta(manifest.get("metadata") or {}, False, is_dns1123_subdomain)
    handler = manifest.get("handler") or ""
    if not handler:
        errors.append(required("handler"))
    else:
        errors += [invalid("handler", handler, msg) for msg in is_dns1123_label(handler)]
    overhead = manifest.get("overhead")
    if overhead is not None:
        # Upstream checks podFixed as a container's limits, and names the path so.
        limits = {"limits": overhead.get("podFixed")}
        errors += validate_resource_requirements(limits, "overhead")
    scheduling = manifest.get("scheduling")
    if scheduling is not None:
        errors += _scheduling(scheduling, "scheduling")
    return errors


def _scheduling(scheduling: Manifest, path: str) -> list[FieldError]:
    errors: list[FieldError] = []
    if scheduling.get("nodeSelector") is not None:
        errors += validate_labels(scheduling["nodeSelector"], f"{path}.nodeSelector")
    tolerations = scheduling.get("tolerations") or []
    errors += validate_tolerations(tolerations, f"{path}.tolerations")
    seen: set[tuple[str, str, str, str]] = set()
    for index, toleration in enumerate(tolerations):
        key = tuple(toleration.get(k) or "" for k in ("key", "operator", "value", "effect"))
        if key in seen:
            errors.append(
                duplicate(f"{path}.tolerations[{index}]", _internal_toleration(toleration))
            )
        seen.add(key)  # type: ignore[arg-type]
    return errors


def _internal_toleration(toleration: Manifest) -> dict[str, Any]:
    """The toleration as upstream shows it: its internal type, JSON-encoded without tags."""
    return {
        "Key": toleration.get("key") or "",
        "Operator": toleration.get("operator") or "",
        "Value": toleration.get("value") or "",
        "Effect": toleration.get("effect") or "",
        "TolerationSeconds": toleration.get("tolerationSeconds"),
    }
