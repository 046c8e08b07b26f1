"""Reading and writing cluster state as ordinary Kubernetes manifests.

Accepts multi-document YAML, a JSON or YAML list, or a ``kind: List`` with ``items`` (what
``kubectl get -o yaml`` prints), and writes multi-document YAML back.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

import yaml

from framework.api.apps import ReplicaSet, StatefulSet
from framework.api.core import (
    Namespace,
    PersistentVolume,
    PersistentVolumeClaim,
    ReplicationController,
    Service,
)
from framework.api.device_class import DeviceClass
from framework.api.errors import ObjectError
from framework.api.meta import KubeObject
from framework.api.node import Node
from framework.api.pod import Pod
from framework.api.policy import PodDisruptionBudget
from framework.api.resource_claim import ResourceClaim, ResourceClaimTemplate
from framework.api.resource_slice import ResourceSlice
from framework.api.runtime_class import RuntimeClass
from framework.api.scheduling import PriorityClass
from framework.api.storage import CSINode, StorageClass

# The C implementations are several times faster on large clusters; fall back if absent.
_LOADER = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
_DUMPER = getattr(yaml, "CSafeDumper", yaml.SafeDumper)

KINDS: dict[str, type[KubeObject]] = {
    cls.KIND: cls
    for cls in (
        Pod,
        Node,
        Namespace,
        PriorityClass,
        PersistentVolume,
        PersistentVolumeClaim,
        StorageClass,
        CSINode,
        PodDisruptionBudget,
        Service,
        ReplicaSet,
        StatefulSet,
        ReplicationController,
        RuntimeClass,
        DeviceClass,
        ResourceClaim,
        ResourceClaimTemplate,
        ResourceSlice,
    )
}


def parse_object(data: Mapping[str, Any]) -> KubeObject:
    """Parse one manifest into the class for its ``kind``."""
    if not isinstance(data, Mapping):
        raise ObjectError("manifest", "", f"expected an object, got {type(data).__name__}")
    kind = data.get("kind")
    if not kind:
        name = _name_of(data)
        raise ObjectError(f'object "{name}"' if name else "object", "kind", "Required value")
    cls = KINDS.get(kind)
    if cls is None:
        supported = ", ".join(sorted(KINDS))
        raise ObjectError(
            f'{kind} "{_name_of(data)}"',
            "kind",
            f"unsupported kind {kind!r} (supported: {supported})",
        )
    return cls.from_dict(data)


def load_objects(text: str) -> list[KubeObject]:
    """Parse every object in a YAML or JSON text, in document order."""
    try:
        documents = list(yaml.load_all(text, Loader=_LOADER))
    except yaml.YAMLError as exc:
        raise ObjectError("manifest", "", f"invalid YAML: {exc}") from None
    return [parse_object(item) for item in _flatten(documents)]


def dump_objects(objects: Iterable[KubeObject]) -> str:
    """Multi-document YAML of the objects' manifests."""
    return yaml.dump_all(
        [obj.to_dict() for obj in objects],
        Dumper=_DUMPER,
        sort_keys=False,
        default_flow_style=False,
    )


def _flatten(documents: Iterable[Any]) -> Iterable[Mapping[str, Any]]:
    for document in documents:
        if document is None:
            continue
        if isinstance(document, list):
            yield from _flatten(document)
        elif isinstance(document, Mapping) and _is_list_kind(document):
            yield from _flatten(document.get("items") or [])
        else:
            yield document


def _is_list_kind(document: Mapping[str, Any]) -> bool:
    kind = document.get("kind")
    return isinstance(kind, str) and kind.endswith("List") and "items" in document


def _name_of(data: Mapping[str, Any]) -> str:
    metadata = data.get("metadata")
    if isinstance(metadata, Mapping) and isinstance(metadata.get("name"), str):
        return metadata["name"]
    return ""
