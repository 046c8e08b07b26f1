"""Which of upstream's validations each kind gets when it is created, and the checks every
object gets after its own (``rest.BeforeCreate``)."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from framework.api.field_errors import FieldError
from framework.api.validation.content import (
    is_dns1035_label,
    is_dns1123_label,
    is_dns1123_subdomain,
    is_path_segment_name,
)
from framework.api.validation.device_claim import (
    validate_device_class,
    validate_resource_claim,
    validate_resource_claim_template,
)
from framework.api.validation.meta import validate_object_meta
from framework.api.validation.node import validate_node
from framework.api.validation.pod import validate_pod
from framework.api.validation.policy import validate_pod_disruption_budget
from framework.api.validation.resource_slice import validate_resource_slice
from framework.api.validation.scheduling import validate_priority_class
from framework.api.validation.storage import validate_csi_node, validate_storage_class
from framework.api.validation.volumes import (
    validate_persistent_volume,
    validate_persistent_volume_claim,
)

Manifest = Mapping[str, Any]

VALIDATORS: dict[str, Callable[[Manifest], list[FieldError]]] = {
    "Pod": validate_pod,
    "Node": validate_node,
    "PriorityClass": validate_priority_class,
    "PodDisruptionBudget": validate_pod_disruption_budget,
    "PersistentVolume": validate_persistent_volume,
    "PersistentVolumeClaim": validate_persistent_volume_claim,
    "StorageClass": validate_storage_class,
    "CSINode": validate_csi_node,
    "DeviceClass": validate_device_class,
    "ResourceClaim": validate_resource_claim,
    "ResourceClaimTemplate": validate_resource_claim_template,
    "ResourceSlice": validate_resource_slice,
}
"""Kinds whose own validation is ported (for the fields the scheduler reads)."""

# The name rule of each kind whose own validation is not ported beyond its metadata.
_NAME_CHECKS: dict[str, Callable[[str], list[str]]] = {
    "Namespace": is_dns1123_label,
    "Service": is_dns1035_label,
    "StatefulSet": is_dns1123_label,
}


def validate_manifest(kind: str, namespaced: bool, manifest: Manifest) -> list[FieldError]:
    """Every problem kube-apiserver's validation reports creating this object, in its order.

    The kind's own validation comes first; only when it passes does the API server check the
    metadata every object must have (names usable in a URL path, labels, annotations).
    """
    metadata = manifest.get("metadata") or {}
    validator = VALIDATORS.get(kind)
    if validator is not None:
        errors = validator(manifest)
    else:
        name_check = _NAME_CHECKS.get(kind, is_dns1123_subdomain)
        errors = validate_object_meta(metadata, namespaced, name_check)
    if errors:
        return errors
    return validate_object_meta(metadata, namespaced, is_path_segment_name)
