"""Upstream's ``ValidateNamespace``: a DNS label for a name, and finalizers that are either
Kubernetes' own (``kubernetes``, ``orphan``, ``foregroundDeletion``) or fully
qualified."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from framework.api.field_errors import FieldError, invalid
from framework.api.validation.content import is_dns1123_label, is_qualified_name
from framework.api.validation.meta import validate_object_meta

_STANDARD_FINALIZERS = ("kubernetes", "orphan", "foregroundDeletion")


def validate_namespace(manifest: Mapping[str, Any]) -> list[FieldError]:
    errors = validate_object_meta(manifest.get("metadata") or {}, False, is_dns1123_label)
    for finalizer in (manifest.get("spec") or {}).get("finalizers") or []:
        errors += validate_finalizer_name(finalizer, "spec.finalizers")
    return errors


def validate_finalizer_name(name: str, path: str) -> list[FieldError]:
    """``validateFinalizerName``: a qualified name; one without a domain must be a standard
    finalizer."""
    errors = [invalid(path, name, msg) for msg in is_qualified_name(name)]
    if "/" not in name and name not in _STANDARD_FINALIZERS:
        detail = "name is neither a standard finalizer name nor is it fully qualified"
        errors.append(invalid(path, name, detail))
    return errors
