"""Object metadata and the base class every parsed Kubernetes object shares."""

from __future__ import annotations

import copy
import datetime as _dt
import marshal
import uuid
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, ClassVar, Self, TypeVar

from framework.api.errors import ObjectError
from framework.api.fields import Fields

DEFAULT_NAMESPACE = "default"

T = TypeVar("T")

# Fixed namespace for generated uids, so the same object always gets the same uid.
_UID_NAMESPACE = uuid.UUID("6f1c1b4e-6b1a-4c36-9a57-3c2f2f7d1e36")


def stable_uid(kind: str, namespace: str, name: str) -> str:
    """A uid for manifests that carry none, derived from kind, namespace and name."""
    return str(uuid.uuid5(_UID_NAMESPACE, f"{kind}/{namespace}/{name}"))


@dataclass(slots=True)
class OwnerReference:
    api_version: str
    kind: str
    name: str
    uid: str
    controller: bool = False

    @classmethod
    def parse(cls, f: Fields) -> OwnerReference:
        return cls(
            api_version=f.string("apiVersion"),
            kind=f.string("kind"),
            name=f.string("name"),
            uid=f.string("uid"),
            controller=f.boolean("controller"),
        )


def controller_reference(owner: KubeObject) -> dict[str, Any]:
    """The ``ownerReferences`` entry that makes ``owner`` an object's controller, as a
    controller writes it on what it creates (the garbage collector deletes it with ``owner``)."""
    return {
        "apiVersion": owner.API_VERSION,
        "kind": owner.KIND,
        "name": owner.name,
        "uid": owner.uid,
        "controller": True,
    }


@dataclass(slots=True)
class ObjectMeta:
    name: str
    namespace: str = ""
    uid: str = ""
    labels: dict[str, str] = field(default_factory=dict)
    annotations: dict[str, str] = field(default_factory=dict)
    owner_references: list[OwnerReference] = field(default_factory=list)
    creation_timestamp: _dt.datetime | None = None
    deletion_timestamp: _dt.datetime | None = None
    resource_version: str = ""
    generation: int = 0

    @classmethod
    def parse(cls, f: Fields, kind: str, namespaced: bool) -> ObjectMeta:
        name = f.string("name")
        if not name:
            raise f.error("name", "Required value: name or generateName is required")
        namespace = (f.string("namespace") or DEFAULT_NAMESPACE) if namespaced else ""
        return cls(
            name=name,
            namespace=namespace,
            uid=f.string("uid") or stable_uid(kind, namespace, name),
            labels=f.string_map("labels"),
            annotations=f.string_map("annotations"),
            owner_references=f.parse_list("ownerReferences", OwnerReference.parse),
            creation_timestamp=f.time("creationTimestamp"),
            deletion_timestamp=f.time("deletionTimestamp"),
            resource_version=f.string("resourceVersion"),
            generation=f.integer("generation"),
        )

    @property
    def key(self) -> str:
        """``namespace/name`` for namespaced objects, ``name`` otherwise (like cache keys)."""
        return f"{self.namespace}/{self.name}" if self.namespace else self.name

    def controller_ref(self) -> OwnerReference | None:
        """The owner reference marked as controller, if any (upstream ``GetControllerOf``)."""
        for ref in self.owner_references:
            if ref.controller:
                return ref
        return None


class KubeObject:
    """What every parsed object offers: kind, apiVersion, metadata and the original manifest.

    Subclasses set ``KIND``, ``API_VERSION`` and ``NAMESPACED`` and override ``parse`` to
    read their spec and status. ``manifest`` is the dict the object was read from and is
    never modified; ``to_dict`` returns a copy with the fields the scheduler writes. Objects
    built in code have no manifest, so their ``to_dict`` carries metadata only (plus what
    the scheduler writes).

    The manifest is kept packed with :mod:`marshal` (a few hundred bytes instead of some
    2.5 KiB of dicts for a small pod: a cluster's bound pods are most of the engine's memory)
    and unpacked on each read; a manifest marshal cannot pack (one holding a YAML timestamp or
    a dict subclass) is kept as given.
    """

    __slots__ = ("_manifest", "api_version", "metadata")

    KIND: ClassVar[str] = ""
    API_VERSION: ClassVar[str] = "v1"
    NAMESPACED: ClassVar[bool] = True

    def __init__(self, metadata: ObjectMeta, manifest: Mapping[str, Any] | None = None):
        if self.NAMESPACED and not metadata.namespace:
            metadata.namespace = DEFAULT_NAMESPACE
        if not metadata.uid:
            metadata.uid = stable_uid(self.KIND, metadata.namespace, metadata.name)
        self.metadata = metadata
        manifest = manifest if manifest is not None else {}
        self._manifest = _packed(manifest)
        self.api_version: str = manifest.get("apiVersion") or self.API_VERSION

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> Self:
        """Read a manifest of this kind; malformed fields raise :class:`ObjectError`."""
        if not isinstance(data, Mapping):
            raise ObjectError(cls.KIND, "", "a manifest must be an object")
        kind = data.get("kind")
        if kind is not None and kind != cls.KIND:
            raise ObjectError(cls.KIND, "kind", f"expected {cls.KIND!r}, got {kind!r}")
        metadata = ObjectMeta.parse(_metadata_fields(cls, data), cls.KIND, cls.NAMESPACED)
        return cls.parse(metadata, Fields(data, _describe(cls, metadata)))

    @classmethod
    def parse(cls, metadata: ObjectMeta, f: Fields) -> Self:
        """Build the object from its metadata and manifest; kinds with a spec override this."""
        return cls(metadata, manifest=f.data)

    @property
    def manifest(self) -> Mapping[str, Any]:
        """The manifest the object was read from; read it, never modify it."""
        packed = self._manifest
        return marshal.loads(packed) if type(packed) is bytes else packed

    @property
    def kind(self) -> str:
        return self.KIND

    def describe(self) -> str:
        """``Kind "namespace/name"``, the prefix of every error about this object."""
        return _describe(type(self), self.metadata)

    @property
    def name(self) -> str:
        return self.metadata.name

    @property
    def namespace(self) -> str:
        return self.metadata.namespace

    @property
    def uid(self) -> str:
        return self.metadata.uid

    @property
    def labels(self) -> dict[str, str]:
        return self.metadata.labels

    @property
    def key(self) -> str:
        return self.metadata.key

    def to_dict(self) -> dict[str, Any]:
        """A deep copy of the manifest with the fields the scheduler writes brought up to date."""
        packed = self._manifest
        data = marshal.loads(packed) if type(packed) is bytes else copy.deepcopy(dict(packed))
        data.setdefault("apiVersion", self.api_version)
        data.setdefault("kind", self.KIND)
        data.setdefault("metadata", _metadata_dict(self.metadata))
        return data

    def deep_copy(self) -> Self:
        """An independent copy. The manifest is shared: it is never modified (see above), and
        copying it would double the cost of the copies the scheduler makes of every pod."""
        return copy.deepcopy(self, {id(self._manifest): self._manifest})

    def _clone_with_metadata(self) -> Self:
        """A new object of this kind sharing the manifest, with metadata of its own; kinds
        that copy by hand fill in their other fields (see ``Pod.deep_copy``)."""
        clone = object.__new__(type(self))
        clone._manifest = self._manifest
        clone.api_version = self.api_version
        clone.metadata = with_own_collections(self.metadata)
        return clone

    def __repr__(self) -> str:
        return f"<{self.describe()}>"


def with_own_collections(obj: T) -> T:
    """A copy of a slots dataclass whose list and dict fields are copied one level deep.

    What the lists and dicts hold is shared, which is safe for the parsed API types: code that
    changes one replaces an element or a whole field, never an element's insides. Only the
    class's own ``__slots__`` are copied, so it is for mutable dataclasses without a slots base.
    """
    clone = object.__new__(type(obj))
    for name in obj.__slots__:  # type: ignore[attr-defined]
        value = getattr(obj, name)
        kind = type(value)
        setattr(clone, name, kind(value) if kind is list or kind is dict else value)
    return clone


def _packed(manifest: Mapping[str, Any]) -> bytes | Mapping[str, Any]:
    """The manifest as marshal bytes, or as given when marshal cannot pack it exactly."""
    if type(manifest) is not dict:
        return manifest
    try:
        return marshal.dumps(manifest)
    except ValueError:  # a value marshal does not know (a datetime, a dict subclass)
        return manifest


def _describe(cls: type[KubeObject], metadata: ObjectMeta) -> str:
    return f'{cls.KIND} "{metadata.key}"'


def _metadata_fields(cls: type[KubeObject], data: Mapping[str, Any]) -> Fields:
    raw = data.get("metadata")
    name = raw.get("name") if isinstance(raw, Mapping) else None
    namespace = raw.get("namespace") if isinstance(raw, Mapping) else None
    shown = f"{namespace or DEFAULT_NAMESPACE}/{name}" if cls.NAMESPACED else name
    return Fields.of(raw, f'{cls.KIND} "{shown if name else ""}"', "metadata")


def _metadata_dict(meta: ObjectMeta) -> dict[str, Any]:
    data: dict[str, Any] = {"name": meta.name}
    if meta.namespace:
        data["namespace"] = meta.namespace
    data["uid"] = meta.uid
    if meta.labels:
        data["labels"] = dict(meta.labels)
    if meta.annotations:
        data["annotations"] = dict(meta.annotations)
    return data
