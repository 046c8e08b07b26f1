"""A workspace's objects in and out as ordinary Kubernetes manifests, and objects in bulk.

Imports take multi-document YAML, a JSON or YAML list, or a ``kind: List`` (what ``kubectl get
-o yaml`` prints). They are all or nothing: every problem (object and field) is reported at
once, and nothing is stored unless there are none. Objects that exist are replaced, as
``kubectl apply`` would. Exports are multi-document YAML with keys sorted, as kubectl prints.
Bulk creation stamps out N copies of one manifest (``{name}-{i}``) in chunks, reporting
progress, so a page can show a progress bar while thousands of objects are written.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass, field, replace
from typing import Any

import yaml
from django.db import transaction

from framework.api.errors import InvalidObjectError, ObjectError, StrictDecodingError
from framework.api.loader import parse_new_object, parse_object
from framework.api.meta import KubeObject
from playground.workspaces.cluster import DatabaseCluster
from playground.workspaces.manifest_lines import field_line, item_node
from playground.workspaces.models import ClusterObject, Workspace

_DUMPER = getattr(yaml, "CSafeDumper", yaml.SafeDumper)
_COMPOSER = getattr(yaml, "CSafeLoader", yaml.SafeLoader)


class _StrictLoader(getattr(yaml, "CSafeLoader", yaml.SafeLoader)):  # type: ignore[misc]
    """Refuses a key given twice in one mapping, as kubectl does; PyYAML keeps the last one,
    which silently merges two documents when a ``---`` is missing."""

    def construct_mapping(self, node: yaml.MappingNode, deep: bool = False) -> dict:
        seen = set()
        for key_node, _ in node.value:
            key = self.construct_object(key_node, deep=True)
            if isinstance(key, str) and key in seen:
                raise yaml.constructor.ConstructorError(
                    None, None, f'mapping key "{key}" already defined', key_node.start_mark
                )
            seen.add(key if isinstance(key, str) else id(key_node))
        return super().construct_mapping(node, deep)


CHUNK_SIZE = 200
"""Objects written per step (one progress report each)."""
MAX_BULK_COUNT = 10_000
"""Copies one bulk creation may make: enough for the largest clusters the engine is built for."""

KIND_ORDER = (
    "Namespace",
    "PriorityClass",
    "RuntimeClass",
    "StorageClass",
    "CSINode",
    "PersistentVolume",
    "PersistentVolumeClaim",
    "Node",
    "Service",
    "ReplicationController",
    "ReplicaSet",
    "StatefulSet",
    "PodDisruptionBudget",
    "Workload",
    "PodGroup",
    "Pod",
)
"""Kinds in the order they are written and exported: what a pod refers to exists before it."""

HOSTNAME_LABEL = "kubernetes.io/hostname"

Progress = Callable[[int, int], None]
"""``on_progress(done, total)``, called after each chunk is written."""


@dataclass(frozen=True, slots=True)
class Problem:
    """One reason an import or bulk creation was refused: which object, which field, what."""

    object: str
    field: str
    message: str
    line: int | None = None
    """Where in the text, when known."""
    where: str = ""
    """The path of the field the problem is on (``field``, or an unknown field's own)."""

    @classmethod
    def of(cls, err: ObjectError) -> Problem:
        return cls(err.owner, err.field, err.problem, where=err.field)

    @classmethod
    def all_of(cls, err: ObjectError) -> list[Problem]:
        """One problem per field an invalid object gets wrong, or per unknown field."""
        return [cls(err.owner, field, message, where=at) for field, message, at in err.places()]

    def __str__(self) -> str:
        where = f"{self.field}: " if self.field else ""
        return f"{self.object}: {where}{self.message}"


class Refused(Exception):
    """Nothing was stored; ``problems`` lists every reason."""

    def __init__(self, problems: list[Problem]) -> None:
        self.problems = problems
        super().__init__("\n".join(str(p) for p in problems))


@dataclass
class ImportResult:
    """What an import stored: ``Kind namespace/name`` of each object created or replaced."""

    created: list[str] = field(default_factory=list)
    replaced: list[str] = field(default_factory=list)

    @property
    def total(self) -> int:
        return len(self.created) + len(self.replaced)


# ----------------------------------------------------------------------------------------------
# Import


def import_manifests(
    workspace: Workspace | int,
    text: str,
    on_progress: Progress | None = None,
    chunk_size: int = CHUNK_SIZE,
) -> ImportResult:
    """Stores every object of the text in one transaction; Refused lists every problem."""
    cluster = DatabaseCluster(workspace)
    objects, positions, found = _parse_all(text)
    named = {}
    for obj, position in zip(objects, positions, strict=True):
        named.setdefault(obj.describe(), position)
    refusals = [*cluster.gate_refusals(objects), *cluster.admission_errors(objects)]
    found += [(named.get(err.owner), Problem.of(err)) for err in refusals]
    if found:
        raise Refused(_on_their_lines(text, found))
    objects.sort(key=_kind_rank)
    existing = cluster.existing_keys(objects)
    result = ImportResult()
    try:
        with transaction.atomic():
            for done, chunk in _chunks(objects, chunk_size):
                cluster.add_many(chunk)
                _report(on_progress, done, len(objects))
    except ObjectError as err:  # something changed since the check (a class was deleted)
        raise Refused([Problem.of(err)]) from None
    for obj in objects:
        key = (obj.kind, obj.namespace, obj.name)
        (result.replaced if key in existing else result.created).append(_label(obj))
    return result


Position = tuple[int, int | None]
"""Where an object is in the text: its document (1-based) and its item in a list document."""
Found = list[tuple[Position | None, Problem]]
"""Problems, each with where its object is in the text when that is known."""


def _parse_all(text: str) -> tuple[list[KubeObject], list[Position], Found]:
    """Every object in the text, where each is, and the problems kube-apiserver's checks find
    in them (unknown fields, invalid values); Refused with each object's problem if any cannot
    be read at all. Objects with problems are still returned, so admission's problems are
    listed with theirs.
    """
    objects: list[KubeObject] = []
    positions: list[Position] = []
    found: Found = []
    all_read = True
    for position, document in _documents(text):
        try:
            objects.append(parse_new_object(document))
        except (InvalidObjectError, StrictDecodingError) as err:
            objects.append(parse_object(document))
            found += [(position, _placed(problem, position)) for problem in Problem.all_of(err)]
        except ObjectError as err:
            all_read = False
            found += [(position, _placed(problem, position)) for problem in Problem.all_of(err)]
            continue
        positions.append(position)
    if not all_read:
        raise Refused(_on_their_lines(text, found))
    if not objects:
        raise Refused([Problem("manifest", "", "no objects found")])
    return objects, positions, found


def _documents(text: str) -> Iterator[tuple[Position, Any]]:
    """(position, document) for each object."""
    try:
        documents = list(yaml.load_all(text, Loader=_StrictLoader))
    except yaml.YAMLError as exc:
        raise Refused([Problem("manifest", "", f"invalid YAML: {exc}")]) from None
    for number, document in enumerate(documents, start=1):
        if document is None:
            continue
        items = _items(document)
        if items is None:
            yield (number, None), document
            continue
        for index, item in enumerate(items, start=1):
            yield (number, index), item


def _on_their_lines(text: str, found: Found) -> list[Problem]:
    """The problems, each with the line of its field in the text. The text is read once more,
    a document at a time up to the last one with a problem, only when there are problems (a
    refused import is rare, a large one is large)."""
    wanted = [position for position, _ in found if position is not None]
    lines: dict[tuple[Position | None, str], int | None] = {}
    if wanted:
        last = max(number for number, _ in wanted)
        for number, document in enumerate(yaml.compose_all(text, Loader=_COMPOSER), start=1):
            if number > last:
                break
            for position, problem in found:
                if position is not None and position[0] == number:
                    index = position[1]
                    node = document if index is None else item_node(document, index - 1)
                    lines[position, problem.where] = field_line(node, problem.where)
    return [
        replace(problem, line=lines.get((position, problem.where))) for position, problem in found
    ]


def _items(document: Any) -> list[Any] | None:
    """The objects of a list document (a list, or ``kind: ...List`` with ``items``)."""
    if isinstance(document, list):
        return document
    if isinstance(document, Mapping) and str(document.get("kind", "")).endswith("List"):
        return list(document.get("items") or [])
    return None


def _placed(problem: Problem, position: Position) -> Problem:
    """Objects without a usable name are named by where they are in the text:
    ``document 2`` or ``document 2, item 5``."""
    if problem.object in ("manifest", "object") or problem.object.endswith('""'):
        number, index = position
        where = f"document {number}" + (f", item {index}" if index is not None else "")
        return replace(problem, object=f"{problem.object} ({where})")
    return problem


# ----------------------------------------------------------------------------------------------
# Export


def export_manifests(workspace: Workspace | int) -> str:
    """Every object of the workspace as multi-document YAML, dependencies first."""
    return dump_manifests(exported_objects(workspace))


def exported_objects(workspace: Workspace | int) -> list[dict[str, Any]]:
    """Every object's manifest, in the export's order (dependencies first, then creation)."""
    workspace_id = workspace if isinstance(workspace, int) else workspace.pk
    rows = ClusterObject.objects.filter(workspace_id=workspace_id).order_by("id")
    manifests = sorted(rows.values_list("kind", "manifest"), key=lambda row: _rank(row[0]))
    return [manifest for _, manifest in manifests]


def dump_manifests(manifests: Iterable[Mapping[str, Any]]) -> str:
    """Multi-document YAML with sorted keys, as ``kubectl get -o yaml`` writes objects."""
    return yaml.dump_all(
        [dict(m) for m in manifests],
        Dumper=_DUMPER,
        sort_keys=True,
        default_flow_style=False,
        allow_unicode=True,
    )


# ----------------------------------------------------------------------------------------------
# Bulk creation


def bulk_create(
    workspace: Workspace | int,
    template: Mapping[str, Any] | str,
    count: int,
    on_progress: Progress | None = None,
    chunk_size: int = CHUNK_SIZE,
) -> list[str]:
    """Creates ``count`` copies of a manifest named ``{name}-{i}`` and returns their names.

    Numbering continues after the highest existing ``{name}-{i}`` of that kind, so a second
    run adds more rather than colliding. Copies of a Node carry their own hostname label (as
    a kubelet sets it). Everything is checked before the first write; each chunk is then its
    own transaction, so the scheduler starts on the first pods while the rest are written.
    """
    manifest = _template(template)
    if not 1 <= count <= MAX_BULK_COUNT:
        raise Refused(
            [Problem("bulk creation", "count", f"must be between 1 and {MAX_BULK_COUNT}")]
        )
    cluster = DatabaseCluster(workspace)
    prototype = _parse_template(manifest)  # its copies are validated, by admission_errors
    start = _next_index(cluster, prototype)
    names = [f"{prototype.name}-{i}" for i in range(start, start + count)]
    copies = [_copy(manifest, prototype, name) for name in names]
    # Copies differ in their names only: the first and the longest stand for all of them.
    samples = [copies[0], *copies[1:][-1:]]
    errors = cluster.admission_errors(samples, replace=False)
    problems = [problem for err in errors for problem in Problem.all_of(err)]
    if problems:
        raise Refused(problems)
    for done, chunk in _chunks(copies, chunk_size):
        cluster.add_many(chunk, replace=False)
        _report(on_progress, done, count)
    return names


def _template(template: Mapping[str, Any] | str) -> dict[str, Any]:
    if isinstance(template, str):
        documents = [d for _, d in _documents(template)]
        if len(documents) != 1:
            raise Refused([Problem("template", "", f"expected one object, found {len(documents)}")])
        template = documents[0]
    if not isinstance(template, Mapping):
        raise Refused([Problem("template", "", "expected an object")])
    return dict(template)


def _parse_template(manifest: dict[str, Any]) -> KubeObject:
    try:
        return parse_object(manifest)
    except ObjectError as err:
        raise Refused([Problem.of(err)]) from None


def _copy(manifest: dict[str, Any], prototype: KubeObject, name: str) -> dict[str, Any]:
    """The template under a new name, without the identity of the object it was copied from."""
    metadata = {
        key: value
        for key, value in (manifest.get("metadata") or {}).items()
        if key not in ("uid", "resourceVersion", "creationTimestamp")
    }
    metadata["name"] = name
    if prototype.kind == "Node":
        metadata["labels"] = {**(metadata.get("labels") or {}), HOSTNAME_LABEL: name}
    return {**manifest, "metadata": metadata}


def _next_index(cluster: DatabaseCluster, prototype: KubeObject) -> int:
    """One more than the highest ``i`` of existing ``{name}-{i}`` objects of the kind."""
    pattern = re.compile(rf"{re.escape(prototype.name)}-(\d+)")
    names = ClusterObject.objects.filter(
        workspace_id=cluster.workspace_id,
        kind=prototype.kind,
        namespace=prototype.namespace,
        name__startswith=f"{prototype.name}-",
    ).values_list("name", flat=True)
    indexes = [int(m.group(1)) for n in names if (m := pattern.fullmatch(n))]
    return max(indexes) + 1 if indexes else 0


# ----------------------------------------------------------------------------------------------


def _chunks(objects: list[Any], size: int) -> Iterator[tuple[int, list[Any]]]:
    """(objects done after this chunk, chunk)."""
    for start in range(0, len(objects), size):
        chunk = objects[start : start + size]
        yield start + len(chunk), chunk


def _report(on_progress: Progress | None, done: int, total: int) -> None:
    if on_progress is not None:
        on_progress(done, total)


def _rank(kind: str) -> int:
    return KIND_ORDER.index(kind) if kind in KIND_ORDER else len(KIND_ORDER)


def _kind_rank(obj: KubeObject) -> int:
    return _rank(obj.kind)


def _label(obj: KubeObject) -> str:
    return f"{obj.kind} {obj.key}"
