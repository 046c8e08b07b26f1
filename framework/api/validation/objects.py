"""Which of upstream's validations each kind gets when it is created, and the checks every
object gets after its own (``rest.BeforeCreate``)."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from framework.api.field_errors import FieldError
from framework.api.validation.content import is_dns1123_subdomain, is_path_segment_name
from framework.api.validation.device_claim import (
    validate_device_class,
    validate_resource_claim,
    validate_resource_claim_template,
)
from framework.api.validation.meta import validate_object_meta
from framework.api.validation.namespace import validate_namespace
from framework.api.validation.node import validate_node
from framework.api.validation.pod import validate_pod
from framework.api.validation.pod_group import validate_pod_group, validate_workload
from framework.api.validation.policy import validate_pod_disruption_budget
from framework.api.validation.resource_slice import validate_resource_slice
from framework.api.validation.runtime_class import validate_runtime_class
from framework.api.validation.scheduling import validate_priority_class
from framework.api.validation.service import validate_service
from framework.api.validation.storage import validate_csi_node, validate_storage_class
from framework.api.validation.volumes import (
    validate_persistent_volume,
    validate_persistent_volume_claim,
)
from framework.api.validation.workloads import (
    validate_replica_set,
    validate_replication_controller,
    validate_stateful_set,
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
    "Namespace": validate_namespace,
    "Service": validate_service,
    "ReplicaSet": validate_replica_set,
    "StatefulSet": validate_stateful_set,
    "ReplicationController": validate_replication_controller,
    "RuntimeClass": validate_runtime_class,
    "Workload": validate_workload,
    "PodGroup": validate_pod_group,
}
"""Every kind the loader reads has its own validation ported (for the fields the scheduler
reads and those people most often get wrong); a kind without one would get its metadata
checked with a DNS-subdomain name."""


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
        errors = validate_object_meta(metadata, namespaced, is_dns1123_subdomain)
    if errors:
        return errors
    return validate_object_meta(metadata, namespaced, is_path_segment_name)
