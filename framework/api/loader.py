"""Reading and writing cluster state as ordinary Kubernetes manifests.

Accepts multi-document YAML, a JSON or YAML list, or a ``kind: List`` with ``items`` (what
``kubectl get -o yaml`` prints), and writes multi-document YAML back.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
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
from framework.api.errors import InvalidObjectError, ObjectError, StrictDecodingError
from framework.api.field_errors import FieldError, go_quote
from framework.api.meta import KubeObject
from framework.api.node import Node
from framework.api.pod import Pod
from framework.api.pod_group import PodGroup, Workload
from framework.api.policy import PodDisruptionBudget
from framework.api.resource_claim import ResourceClaim, ResourceClaimTemplate
from framework.api.resource_slice import ResourceSlice
from framework.api.runtime_class import RuntimeClass
from framework.api.scheduling import PriorityClass
from framework.api.storage import (
    CSIDriver,
    CSINode,
    CSIStorageCapacity,
    StorageClass,
    VolumeAttachment,
)
from framework.api.validation.objects import validate_manifest
from framework.api.validation.resources import QuantityDecodeError
from framework.api.validation.strict import decode_strictly
from framework.api.validation.update_common import prepare_update
from framework.api.validation.updates import validate_manifest_update

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
        CSIDriver,
        CSIStorageCapacity,
        VolumeAttachment,
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
        Workload,
        PodGroup,
    )
}


def parse_object(data: Mapping[str, Any]) -> KubeObject:
    """Parse one manifest into the class for its ``kind``, with no more checks than reading
    needs: for objects already stored (or read from a real cluster). Objects coming in from
    a person go through :func:`parse_new_object`."""
    return _class_of(data).from_dict(data)


def parse_new_object(data: Mapping[str, Any]) -> KubeObject:
    """Parse a manifest as kube-apiserver takes it in on create: a version that does not
    serve the kind refused, unknown fields refused (strict field validation, what ``kubectl
    apply`` asks for), then every problem its validation finds listed at once
    (:class:`InvalidObjectError`)."""
    return decode_new_object(data).validated()


@dataclass(frozen=True, slots=True)
class NewObject:
    """A manifest decoded as kube-apiserver decodes a create, not validated yet: upstream's
    mutating admission (NamespaceLifecycle, Priority) comes between the two, so a caller
    that admits objects refuses them in that order."""

    obj: KubeObject
    manifest: Any
    """As strict decoding leaves it: what validation reads."""
    given: Mapping[str, Any]
    """As given: an update is decoded again from it, over the stored object."""

    def validated(self, first: Sequence[FieldError] = ()) -> KubeObject:
        """The object, or InvalidObjectError with every problem validation finds after
        ``first`` (what a strategy checks with the cluster's state before the kind's rules)."""
        obj = self.obj
        _refuse(obj, lambda: [*first, *validate_manifest(obj.kind, obj.NAMESPACED, self.manifest)])
        return obj

    def validation_error(self, first: Sequence[FieldError] = ()) -> ObjectError | None:
        try:
            self.validated(first)
        except ObjectError as err:
            return err
        return None


def decode_new_object(data: Mapping[str, Any]) -> NewObject:
    """The first step of a create: ObjectError for a version that does not serve the kind, a
    value of the wrong type or an unknown field."""
    return NewObject(*_decoded(data), data)


def parse_updated_object(data: Mapping[str, Any], old: Mapping[str, Any]) -> KubeObject:
    """Parse a manifest that replaces the stored manifest ``old``, as kube-apiserver takes
    in an update: decoded as on create, the metadata a client may leave out taken from the
    stored object, then checked with the kind's update rules (a pod's spec, for instance,
    may barely change). Both are of one kind: the caller found ``old`` by ``data``'s."""
    prepared = prepare_update(data, old) if isinstance(data, Mapping) else data
    obj, manifest = _decoded(prepared)
    _refuse(obj, lambda: validate_manifest_update(obj.kind, obj.NAMESPACED, manifest, old))
    return obj


def _decoded(data: Mapping[str, Any]) -> tuple[KubeObject, Any]:
    """The object, and its manifest as strict decoding leaves it; a version that does not
    serve the kind, a value of the wrong type or an unknown field is an ObjectError."""
    obj = parse_object(data)
    api_version = data.get("apiVersion")
    if api_version is not None and api_version != obj.API_VERSION:
        # The version kubectl's REST mapping finds no such kind in (v1.36 serves one each).
        problem = (
            f"no matches for kind {go_quote(obj.kind)} in version {go_quote(str(api_version))}"
        )
        raise ObjectError(obj.describe(), "apiVersion", problem)
    decoding = decode_strictly(obj.kind, data)
    if decoding.wrong_type is not None:
        raise ObjectError(obj.describe(), *decoding.wrong_type)
    if decoding.unknown:
        raise StrictDecodingError(obj.describe(), decoding.unknown, decoding.unknown_paths)
    return obj, decoding.manifest


def _refuse(obj: KubeObject, validate: Callable[[], list[FieldError]]) -> None:
    """InvalidObjectError with every problem ``validate`` finds; a quantity that does not
    parse is the decoding error it would have been."""
    try:
        problems = validate()
    except QuantityDecodeError as err:
        raise ObjectError(obj.describe(), err.path, err.problem) from None
    if problems:
        raise InvalidObjectError(obj.describe(), problems)


def _class_of(data: Mapping[str, Any]) -> type[KubeObject]:
    if not isinstance(data, Mapping):
        raise ObjectError("manifest", "", f"expected an object, got {type(data).__name__}")
    kind = data.get("kind")
    if not kind:
        name = _name_of(data)
        raise ObjectError(f'object "{name}"' if name else "object", "kind", "Required value")
    cls = KINDS.get(kind) if isinstance(kind, str) else None
    if cls is None:
        supported = ", ".join(sorted(KINDS))
        raise ObjectError(
            f'{kind} "{_name_of(data)}"',
            "kind",
            f"unsupported kind {kind!r} (supported: {supported})",
        )
    return cls


def load_objects(text: str) -> list[KubeObject]:
    """Parse every object in a YAML or JSON text, in document order, each checked as
    kube-apiserver checks a new object (:func:`parse_new_object`); the first refusal raised."""
    decoded, errors = decode_objects(text)
    if errors:
        raise errors[0]
    return [new.validated() for new in decoded]


def decode_objects(text: str) -> tuple[list[NewObject], list[ObjectError]]:
    """The objects of a YAML or JSON text decoded for creation (:func:`decode_new_object`),
    and why decoding refuses each of the others, both in document order (``kubectl apply -f``
    goes on past a refused object and reports each). Invalid YAML refuses the whole text."""
    documents = _documents(text)
    decoded: list[NewObject] = []
    errors: list[ObjectError] = []
    for item in _flatten(documents):
        try:
            decoded.append(decode_new_object(item))
        except ObjectError as err:
            errors.append(err)
    return decoded, errors


def _documents(text: str) -> list[Any]:
    """The text's documents. JSON (a list or one object) is read as JSON: the same documents
    YAML gives for it, ten times faster, which counts for a cluster of 50,000 pods exported as
    JSON; anything else, or JSON that does not parse, is read as YAML."""
    if text.lstrip()[:1] in ("[", "{"):
        try:
            return [json.loads(text)]
        except ValueError:
            pass  # YAML's flow style starts the same way; its reader says what is wrong
    try:
        return list(yaml.load_all(text, Loader=_LOADER))
    except yaml.YAMLError as exc:
        raise ObjectError("manifest", "", f"invalid YAML: {exc}") from None


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
