"""Which of upstream's validations each kind gets when it comes in from outside."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from framework.api.field_errors import FieldError
from framework.api.validation.content import is_dns1123_label, is_dns1123_subdomain
from framework.api.validation.meta import validate_object_meta
from framework.api.validation.node import validate_node
from framework.api.validation.pod import validate_pod


def validate_manifest(kind: str, namespaced: bool, manifest: Mapping[str, Any]) -> list[FieldError]:
    """Every problem kube-apiserver's validation reports creating this object, in its order.

    Pods get ``ValidatePodCreate`` for the fields the scheduler reads and nodes
    ``ValidateNode``; other kinds get their metadata checked (names, namespaces, labels,
    annotation keys).
    """
    if kind == "Pod":
        return validate_pod(manifest)
    if kind == "Node":
        return validate_node(manifest)
    name_check = is_dns1123_label if kind == "Namespace" else is_dns1123_subdomain
    return validate_object_meta(manifest.get("metadata") or {}, namespaced, name_check)
