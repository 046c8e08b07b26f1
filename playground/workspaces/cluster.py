"""A workspace's cluster in the database: the engine's Cluster protocol over ClusterObject rows
and their change log, ObjectChange.

Views, imports, the scheduler service and binding tasks all write through ``DatabaseCluster``.
Every write locks the workspace row, appends an ObjectChange and updates the object in one
transaction; the change's id becomes the object's resourceVersion. Taking the lock before the
id is allocated makes a workspace's change ids commit in increasing order, so a reader that
follows the log by id (``changes_since``) never skips a change that committed late. The log
keeps each new manifest as it was written, before its id was known: ``changes_since`` adds the
resourceVersion (saving a second write per change).

Objects come back parsed, through a process-wide cache (``playground.workspaces.parsed``); they
are shared, so copy one before changing it, as with the engine's InMemoryCluster.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from typing import Any, NamedTuple

from django.db import transaction
from django.utils import timezone

from framework.admission import priority, runtime_class
from framework.admission.dra_admin_access import NamespaceLabels, admin_access_errors
from framework.admission.namespace_lifecycle import (
    SYSTEM_NAMESPACES,
    NamespacePhase,
    namespace_error,
    phases_of,
)
from framework.api import pod_group
from framework.api.errors import ObjectError
from framework.api.fields import format_time
from framework.api.loader import (
    KINDS,
    NewObject,
    decode_new_object,
    parse_object,
    parse_updated_object,
)
from framework.api.meta import KubeObject
from framework.api.pod import Pod, PodCondition
from framework.api.runtime_class import RuntimeClass
from framework.api.scheduling import PriorityClass
from framework.cluster.interface import AlreadyExistsError, BindError, NotFoundError
from framework.cluster.resource_claim_controller import ResourceClaimController
from playground.workspaces import node_lifecycle, resource_claims
from playground.workspaces.models import ClusterObject, KubeEvent, ObjectChange, Workspace
from playground.workspaces.parsed import PARSED_OBJECTS
from playground.workspaces.row_updates import update_rows
from playground.workspaces.workload_gate import gate_refusal, generic_workload_enabled

WatchHandler = Callable[[str, Any, Any], None]
ObjectOrManifest = KubeObject | Mapping[str, Any]

ADDED, MODIFIED, DELETED = ObjectChange.ADDED, ObjectChange.MODIFIED, ObjectChange.DELETED
DISPATCH_BATCH = 1000
"""Changes read from the log at a time when delivering them to watchers."""
DELETE_BATCH = 500
"""Objects deleted per statement by ``delete_many`` (a database limits a query's parameters)."""


class ConflictError(Exception):
    """An update made from an outdated resourceVersion (the API server's Conflict)."""


class ClusterChange(NamedTuple):
    """One entry of the change log, as a watch delivers it; ``id`` is its resourceVersion."""

    id: int
    event_type: str
    old: KubeObject | None
    new: KubeObject | None


class DatabaseCluster:
    """The engine's ``Cluster`` for one workspace, stored in ClusterObject and ObjectChange.

    Watchers registered with ``watch`` get every change after the position the watch started
    from, when ``dispatch_changes()`` is called, and right after each write made through this
    instance (as InMemoryCluster delivers them). An instance is meant for one thread.
    """

    def __init__(self, workspace: Workspace | int, from_api_server: bool = False) -> None:
        """``from_api_server``: the objects written were admitted by a real API server already
        (the mirror, replays), so admission's refusals are not repeated: a watch stream may
        bring a pod before its namespace, and a cluster may hold two default PriorityClasses.
        Otherwise new objects in a namespace the workspace lacks and a second default
        PriorityClass are refused, as kube-apiserver refuses them."""
        self.workspace_id: int = workspace if isinstance(workspace, int) else workspace.pk
        self.from_api_server = from_api_server
        self._watchers: list[WatchHandler] = []
        self._position: int | None = None
        self._dispatching = False
        self._batch: _BindingBatch | None = None

    def __repr__(self) -> str:
        return f"<DatabaseCluster of workspace {self.workspace_id}>"

    # ------------------------------------------------------------------------------------------
    # Reads

    def get(self, kind: str, name: str, namespace: str = "") -> KubeObject | None:
        rows = (
            self._objects()
            .filter(kind=kind, namespace=namespace, name=name)
            .order_by()
            .values_list("resource_version", "manifest")
        )
        for version, manifest in rows:
            return self._parse(kind, namespace, name, version, manifest)
        return None

    def list(self, kind: str, namespace: str | None = None) -> list[KubeObject]:
        """Objects of a kind in creation order (how the in-memory cluster lists them too)."""
        rows = self._objects().filter(kind=kind)
        if namespace is not None:
            rows = rows.filter(namespace=namespace)
        fields = ("kind", "namespace", "name", "resource_version", "manifest")
        return [self._parse(*row) for row in rows.order_by("id").values_list(*fields)]

    def uids(self, kind: str, keys: Iterable[tuple[str, str]]) -> dict[tuple[str, str], str]:
        """(namespace, name) -> uid of the stored objects of a kind among ``keys`` (one query
        per namespace and DELETE_BATCH names): what a writer of many objects needs to know of
        them. Each query names the namespace, so the unique key's index finds the rows: by
        kind and names alone, every pod of the workspace was read for each watch batch."""
        by_namespace: dict[str, set[str]] = {}
        for namespace, name in keys:
            by_namespace.setdefault(namespace, set()).add(name)
        found: dict[tuple[str, str], str] = {}
        for namespace, names in by_namespace.items():
            for chunk in _batches(sorted(names), DELETE_BATCH):
                rows = self._objects().filter(kind=kind, namespace=namespace, name__in=chunk)
                for name, uid in rows.order_by().values_list("name", "uid"):
                    found[(namespace, name)] = uid
        return found

    def kinds(self) -> list[str]:
        return sorted(self._objects().order_by().values_list("kind", flat=True).distinct())

    def latest_change_id(self) -> int:
        """The id (resourceVersion) of the workspace's latest change, 0 if none."""
        latest = self._changes().order_by("-id").values_list("id", flat=True).first()
        return latest or 0

    def changes_since(self, change_id: int, limit: int | None = None) -> list[ClusterChange]:
        """The changes after ``change_id``, oldest first, with the objects before and after."""
        rows = (
            self._changes()
            .filter(id__gt=change_id)
            .order_by("id")
            .values_list(
                "id", "event_type", "kind", "namespace", "name", "old_manifest", "new_manifest"
            )
        )
        if limit is not None:
            rows = rows[:limit]
        return [
            ClusterChange(
                change_id,
                event_type,
                self._parse_version(kind, namespace, name, old),
                self._parse_version(kind, namespace, name, _stamped(new, change_id)),
            )
            for change_id, event_type, kind, namespace, name, old, new in rows
        ]

    @contextmanager
    def consistent_read(self) -> Iterator[int]:
        """Reads inside see the cluster as of one change id (yielded); watches start there.

        Writers wait meanwhile. Use it to list a cluster and then follow it without missing or
        repeating a change, as a starting scheduler does::

            with cluster.consistent_read():
                scheduler.start()   # lists every kind, then watches
        """
        with self._write_lock():
            self._position = self.latest_change_id()
            yield self._position

    # ------------------------------------------------------------------------------------------
    # Watching

    def watch(self, handler: WatchHandler) -> None:
        """Calls ``handler(event_type, old, new)`` for every change from now on (or from the
        start of the enclosing ``consistent_read``)."""
        if self._position is None:
            self._position = self.latest_change_id()
        self._watchers.append(handler)

    def dispatch_changes(self) -> int:
        """Delivers every change made since the last delivery to the watchers, in order.

        Changes written by handlers while this runs are delivered after the ones before them,
        as an informer queues them. Returns how many changes were delivered.
        """
        if self._dispatching or not self._watchers or self._position is None:
            return 0
        self._dispatching = True
        delivered = 0
        try:
            while changes := self.changes_since(self._position, DISPATCH_BATCH):
                for change in changes:
                    self._position = change.id
                    for handler in list(self._watchers):
                        handler(change.event_type, change.old, change.new)
                delivered += len(changes)
        finally:
            self._dispatching = False
        return delivered

    # ------------------------------------------------------------------------------------------
    # Writes

    def add(self, obj: ObjectOrManifest) -> KubeObject:
        """Creates the object, or replaces it if it exists (as InMemoryCluster.add)."""
        return self.add_many([obj])[0]

    def create(self, obj: ObjectOrManifest) -> KubeObject:
        """Creates the object; AlreadyExistsError if one with its kind and name exists."""
        return self.add_many([obj], replace=False)[0]

    def add_many(
        self, objects: Iterable[ObjectOrManifest], replace: bool = True
    ) -> list[KubeObject]:
        """Creates (or, with ``replace``, replaces) several objects in one transaction.

        Nothing is stored if any object is invalid (ObjectError), appears twice, or exists
        when ``replace`` is false (AlreadyExistsError).
        """
        checks = _Checks(objects)
        parsed = checks.objects
        _refuse_duplicates(parsed)
        for refusal in self.gate_refusals(checks.given_objects()):
            raise refusal
        with self._write_lock():
            existing = self._rows_by_key(parsed)
            if not replace:
                _refuse_existing(parsed, existing)
            parsed = [checks.as_update(obj, existing.get(_key(obj))) for obj in parsed]
            batch = self._with_generated_claims(parsed, existing)
            batch += self._claims_for_waiting_pods(parsed, existing)
            stored = self._write_many(batch, existing, checks)
            if len(batch) != len(parsed):
                asked = {_key(o) for o in parsed}
                stored = [o for o in stored if _key(o) in asked]
        self._after_write()
        return stored

    def _with_generated_claims(
        self, parsed: list[KubeObject], existing: dict[tuple[str, str, str], ClusterObject]
    ) -> list[KubeObject]:
        """New pods get their claims from templates, as the ResourceClaim controller does (a
        real cluster's controller does it for objects from its API server: its claims come
        mirrored)."""
        if self.from_api_server:
            return parsed
        new_pods = [
            o for o in parsed if _key(o) not in existing and resource_claims.needs_claims(o)
        ]
        if not new_pods:
            return parsed
        rows = self._objects().filter(
            kind__in=resource_claims.CLAIM_KINDS, namespace__in={p.namespace for p in new_pods}
        )
        stored = [self._parse_row(row) for row in rows.order_by("id")]
        return resource_claims.with_generated_claims(
            parsed, lambda obj: _key(obj) not in existing, stored
        )

    def _claims_for_waiting_pods(
        self, parsed: list[KubeObject], existing: dict[tuple[str, str, str], ClusterObject]
    ) -> list[KubeObject]:
        """Stored pods that waited for a template of the batch get their claims now, as the
        controller syncs a template's pods when it appears; ``existing`` learns their rows."""
        templates = {(o.namespace, o.name) for o in parsed if o.kind == "ResourceClaimTemplate"}
        if not templates or self.from_api_server:
            return []
        in_batch = {_key(o) for o in parsed}
        rows = self._objects().filter(kind="Pod", namespace__in={ns for ns, _ in templates})
        waiting = {
            _key(pod): (row, pod)
            for row in rows.order_by("id")
            if (pod := self._parse_row(row))
            and _key(pod) not in in_batch
            and resource_claims.waits_for(pod, templates)
        }
        if not waiting:
            return []
        claim_rows = self._objects().filter(
            kind__in=resource_claims.CLAIM_KINDS, namespace__in={ns for ns, _ in templates}
        )
        stored = [self._parse_row(row) for row in claim_rows.order_by("id")]
        pods = [pod for _, pod in waiting.values()]
        expanded = resource_claims.with_generated_claims(pods, lambda obj: True, stored + parsed)
        existing.update({key: row for key, (row, _) in waiting.items()})
        return expanded

    def admission_errors(
        self, objects: Iterable[ObjectOrManifest], replace: bool = True, as_new: bool = False
    ) -> list[ObjectError]:
        """Every reason ``add_many`` would refuse these objects (it stops at the first one),
        without writing anything: for forms and imports that list all problems at once.
        ``as_new``: as if none of them were stored (checked as creates, not updates)."""
        checks = _Checks(objects, keep_going=True)
        parsed = checks.objects
        errors = [*checks.errors, *self.gate_refusals(checks.given_objects())]
        existing = self._rows_by_key(parsed) if parsed and not as_new else {}
        classes = _BatchPriorityClasses(self, parsed)
        namespaces = self._namespace_phases(parsed)
        now = timezone.now()
        seen: set[tuple[str, str, str]] = set()
        for obj in parsed:
            key = _key(obj)
            row = existing.get(key)
            if key in seen:
                errors.append(ObjectError(obj.describe(), "", "appears more than once"))
            elif row is not None and not replace:
                errors.append(ObjectError(obj.describe(), "", "already exists"))
            elif row is not None:
                if err := _uid_change(obj, row) or checks.update_error(obj, row):
                    errors.append(err)
            else:
                outcome = self._checked_creation(obj, classes, namespaces, now, checks)
                if isinstance(outcome, ObjectError):
                    errors.append(outcome)
            seen.add(key)
        return errors

    def gate_refusals(self, given: list[KubeObject]) -> list[ObjectError]:
        """Pod groups a person writes while the workspace's scheduler runs without
        GenericWorkload (``workload_gate``); a live cluster's are taken as they are."""
        refusals = [] if self.from_api_server else [r for o in given if (r := gate_refusal(o))]
        if refusals and generic_workload_enabled(self.workspace_id):
            return []
        return refusals

    def existing_keys(self, objects: Iterable[KubeObject]) -> set[tuple[str, str, str]]:
        """(kind, namespace, name) of those objects that are stored already."""
        objects = list(objects)
        return set(self._rows_by_key(objects)) if objects else set()

    def update(self, obj: ObjectOrManifest) -> KubeObject:
        """Replaces an existing object; NotFoundError if there is none, ConflictError if the
        object carries a resourceVersion other than the stored one (an outdated copy). A
        manifest is checked as kube-apiserver checks an update against the stored object
        (ObjectError): a pod's spec, for one, may not change but for a few fields."""
        given = obj if isinstance(obj, KubeObject) else parse_object(obj)
        if not isinstance(obj, KubeObject):
            for refusal in self.gate_refusals([given]):
                raise refusal
        with self._write_lock():
            row = self._row(given.kind, given.namespace, given.name)
            if row is None:
                raise NotFoundError(f'{resource_name(given.kind)} "{given.name}" not found')
            version = given.metadata.resource_version
            if version and version != str(row.resource_version):
                raise ConflictError(
                    f'Operation cannot be fulfilled on {resource_name(given.kind)} "'
                    f'{given.name}": the object has been modified; please apply your changes '
                    "to the latest version and try again"
                )
            parsed = given if isinstance(obj, KubeObject) else updated_object(obj, row.manifest)
            stored = self._replace(row, parsed)
        self._after_write()
        return stored

    def delete(self, obj: KubeObject) -> None:
        """Deletes the stored object with this object's kind, namespace and name."""
        with self._write_lock():
            row = self._row(obj.kind, obj.namespace, obj.name)
            if row is None:
                raise NotFoundError(f'{resource_name(obj.kind)} "{obj.name}" not found')
            self._append_change(DELETED, row, old=row.manifest, new=None)
            row.delete()
        self._after_write()
        if obj.kind == "Pod":
            self._release_claims([row.manifest])

    def delete_many(self, kind: str, uids: Iterable[str]) -> int:
        """Deletes the stored objects of a kind that have these uids, in one transaction, each
        with its DELETED change (as ``delete`` one at a time would, in fewer statements); uids
        not stored are skipped. Returns how many objects were deleted."""
        with self._write_lock():
            rows = []
            for chunk in _batches(list(dict.fromkeys(uids)), DELETE_BATCH):
                rows.extend(self._objects().filter(kind=kind, uid__in=chunk))
            rows.sort(key=lambda row: row.pk)  # in creation order, as a list would show them
            changes = [self._change(DELETED, row, old=row.manifest, new=None) for row in rows]
            ObjectChange.objects.bulk_create(changes)
            for chunk in _batches([row.pk for row in rows], DELETE_BATCH):
                self._objects().filter(pk__in=chunk).delete()
        self._after_write()
        if kind == "Pod":
            self._release_claims([row.manifest for row in rows])
        return len(rows)

    def _release_claims(self, pods: list[Mapping[str, Any]]) -> None:
        """What the ResourceClaim controller does when pods go: their reservations freed,
        claims nobody uses deallocated, claims made for them (from templates, or by the
        scheduler for DRA extended resources) deleted, as the garbage collector would. Without
        it a deleted pod's devices stay allocated. A real cluster's controller does it for
        objects from its API server."""
        if self.from_api_server:
            return
        controller = ResourceClaimController(self)
        for manifest in pods:
            has_claims = (manifest.get("spec") or {}).get("resourceClaims") or (
                manifest.get("status") or {}
            ).get("extendedResourceClaimStatus")
            if has_claims:
                controller.pod_deleted(parse_object(manifest))

    def bind(self, namespace: str, name: str, uid: str, node_name: str) -> None:
        """Sets ``spec.nodeName`` as the API server's Binding subresource, with its checks, and
        marks the pod PodScheduled=True as the API server does. Inside ``binding_batch`` the
        checks are made at once and the write waits for the end of the batch."""
        if self._batch is not None:
            self._batch.bind(namespace, name, uid, node_name)
            return
        with self._write_lock():
            row = self._row("Pod", namespace, name)
            if row is None:
                raise BindError(f'pods "{name}" not found')
            self._replace(row, _bound(self._parse_row(row), uid, node_name))
        self._after_write()

    def bind_many(self, bindings: Sequence[Binding]) -> list[str]:
        """Binds several pods in one transaction; per binding, in order, why the API server
        refused it ("" when it was bound). Each is checked as ``bind`` checks it, seeing the
        bindings before it (a pod named twice is bound once)."""
        refusals = []
        with self.binding_batch((b.namespace, b.name) for b in bindings):
            for binding in bindings:
                try:
                    self.bind(*binding)
                except BindError as err:
                    refusals.append(str(err))
                else:
                    refusals.append("")
        return refusals

    @contextmanager
    def binding_batch(self, pods: Iterable[tuple[str, str]]) -> Iterator[dict[PodKey, Pod]]:
        """A transaction for many binds: ``bind`` and ``record_event`` calls inside it are
        written together when the block ends (one insert for all their changes).

        Yields the stored pods named by ``pods`` ((namespace, name); read in one query). The
        workspace's lock is held throughout, so each bind is checked against what is stored,
        exactly as the API server checks it, and refused with its text (BindError) at once.
        Other writes made inside the block go to the database at once, after the binds before
        them. Nothing is written if the block raises.
        """
        with self._write_lock():
            self._batch = _BindingBatch(self, self._pod_rows(list(pods)))
            try:
                yield {key: self._parse_row(row) for key, row in self._batch.rows.items()}
                self._batch.write()
            finally:
                self._batch = None
        self._after_write()

    def update_pod_status(
        self,
        namespace: str,
        name: str,
        condition: dict[str, str] | None = None,
        nominated_node_name: str | None = None,
    ) -> None:
        """Patches a pod's condition (type/status/reason/message) and/or nominatedNodeName."""
        with self._write_lock():
            row = self._row("Pod", namespace, name)
            if row is None:
                raise NotFoundError(f'pods "{name}" not found')
            patched = self._parse_row(row).deep_copy()
            if nominated_node_name is not None:
                patched.status.nominated_node_name = nominated_node_name
            if condition is not None:
                _set_condition(patched.status.conditions, PodCondition(**condition))
            self._replace(row, patched)
        self._after_write()

    def record_event(self, event: dict[str, Any]) -> None:
        """Stores a Kubernetes Event (Scheduled, FailedScheduling, Preempted...)."""
        row = self._event_row(event)
        if self._batch is not None:
            self._batch.events.append(row)
        else:
            row.save()

    def _event_row(self, event: dict[str, Any]) -> KubeEvent:
        """The workspace's row of an event (not saved)."""
        regarding = event.get("regarding") or {}
        return KubeEvent(
            workspace_id=self.workspace_id,
            regarding_kind=regarding.get("kind", ""),
            regarding_namespace=regarding.get("namespace", ""),
            regarding_name=regarding.get("name", ""),
            type=event.get("type", ""),
            reason=event.get("reason", ""),
            action=event.get("action", ""),
            note=event.get("note", ""),
        )

    # ------------------------------------------------------------------------------------------
    # Rows and parsing

    def _objects(self) -> Any:
        return ClusterObject.objects.filter(workspace_id=self.workspace_id)

    def _changes(self) -> Any:
        return ObjectChange.objects.filter(workspace_id=self.workspace_id)

    def _row(self, kind: str, namespace: str, name: str) -> ClusterObject | None:
        rows = self._objects().filter(kind=kind, namespace=namespace, name=name).order_by()
        return next(iter(rows), None)

    def _pod_rows(self, keys: list[PodKey]) -> dict[PodKey, ClusterObject]:
        if not keys:
            return {}
        namespaces, names = {ns for ns, _ in keys}, {name for _, name in keys}
        rows = self._objects().filter(kind="Pod", namespace__in=namespaces, name__in=names)
        rows = rows.order_by()
        wanted = set(keys)
        return {key: row for row in rows if (key := (row.namespace, row.name)) in wanted}

    def _rows_by_key(self, objects: list[KubeObject]) -> dict[tuple[str, str, str], ClusterObject]:
        # Every column of the unique key is constrained, so the database looks each object up
        # in its index: without the namespaces, it read every object of the kinds named.
        rows = (
            self._objects()
            .filter(
                kind__in={o.kind for o in objects},
                namespace__in={o.namespace for o in objects},
                name__in={o.name for o in objects},
            )
            .order_by()
        )
        wanted = {_key(o) for o in objects}
        return {key: row for row in rows if (key := (row.kind, row.namespace, row.name)) in wanted}

    def _parse(
        self, kind: str, namespace: str, name: str, version: int, manifest: Mapping[str, Any]
    ) -> KubeObject:
        return PARSED_OBJECTS.parse((self.workspace_id, kind, namespace, name, version), manifest)

    def _parse_row(self, row: ClusterObject) -> Any:
        return self._parse(row.kind, row.namespace, row.name, row.resource_version, row.manifest)

    def _parse_version(
        self, kind: str, namespace: str, name: str, manifest: Mapping[str, Any] | None
    ) -> KubeObject | None:
        if manifest is None:
            return None
        version = int(manifest.get("metadata", {}).get("resourceVersion") or 0)
        return self._parse(kind, namespace, name, version, manifest)

    # ------------------------------------------------------------------------------------------
    # Writing rows

    @contextmanager
    def _write_lock(self) -> Iterator[None]:
        """A transaction holding the workspace row's lock (see the module docstring).

        The lock is ``FOR NO KEY UPDATE``: writers of the workspace's objects wait for each
        other, while rows that only refer to the workspace (events, attempts, commands) are
        inserted meanwhile. ``FOR UPDATE`` would hold each of those inserts until the write
        commits, as their foreign-key check takes a ``KEY SHARE`` lock on the same row: a
        mirror writing a burst held back the binding tasks' events that way.

        Inside a binding batch the lock is held already; the binds made so far are written
        first, so that this write comes after them in the change log, and the batch reads the
        rows again afterwards (this write may change them)."""
        if self._batch is not None:
            self._batch.write()
            yield
            self._batch.rows.clear()
            return
        with transaction.atomic():
            locked = Workspace.objects.select_for_update(no_key=True).filter(pk=self.workspace_id)
            if not list(locked.values_list("pk", flat=True)):
                raise NotFoundError(f"workspace {self.workspace_id} does not exist")
            yield

    def _write_many(
        self,
        objects: list[KubeObject],
        existing: dict[tuple[str, str, str], ClusterObject],
        checks: _Checks,
    ) -> list[KubeObject]:
        """Writes in the given order; runs of new objects are inserted together, and the
        changes of runs of replaced objects too (a mirror's burst of bound pods)."""
        classes = _BatchPriorityClasses(self, objects)
        namespaces = self._namespace_phases(objects)
        now = timezone.now()
        stored: list[KubeObject] = []
        creations: list[_Creation] = []
        replacements: list[tuple[ClusterObject, KubeObject]] = []
        replaced: set[tuple[str, str, str]] = set()
        for obj in objects:
            row = existing.get(_key(obj))
            if row is None:
                stored.extend(self._replace_run(replacements))
                replacements, replaced = [], set()
                outcome = self._checked_creation(obj, classes, namespaces, now, checks)
                if isinstance(outcome, ObjectError):
                    raise outcome
                creations.append(outcome)
                continue
            stored.extend(self._insert(creations))
            creations = []
            if _key(obj) in replaced:  # its change reads the row the earlier one wrote
                stored.extend(self._replace_run(replacements))
                replacements, replaced = [], set()
            replacements.append((row, obj))
            replaced.add(_key(obj))
        stored.extend(self._replace_run(replacements))
        stored.extend(self._insert(creations))
        return stored

    def _checked_creation(
        self,
        obj: KubeObject,
        classes: _BatchPriorityClasses,
        namespaces: NamespacePhase,
        now: dt.datetime,
        checks: _Checks,
    ) -> _Creation | ObjectError:
        """What creating the object stores, or the first reason kube-apiserver refuses it, in
        its order: mutating admission (NamespaceLifecycle, Priority resolving a pod's
        priority, RuntimeClass setting its overhead), validation, validating admission
        (Priority's one default class, RuntimeClass's overhead check)."""
        refusal = namespace_error(obj, namespaces)
        if refusal is not None:
            return refusal
        try:
            creation = self._creation(obj, classes, now)
        except ObjectError as err:
            return err
        refusal = checks.validation_error(obj, lambda name: self._namespace_labels(name, checks))
        if refusal is None and not self.from_api_server:
            refusal = self._validating_admission(obj, creation, classes)
        return creation if refusal is None else refusal

    def _validating_admission(
        self, obj: KubeObject, creation: _Creation, classes: _BatchPriorityClasses
    ) -> ObjectError | None:
        """Priority's one default PriorityClass, RuntimeClass's overhead of a pod."""
        try:
            if isinstance(obj, PriorityClass):
                return priority.priority_class_error(obj, classes.before(obj))
            if obj.kind == "Pod":
                runtime_class.validate_pod(creation.manifest, obj.describe(), classes.runtime)
        except ObjectError as err:
            return err
        return None

    def _namespace_labels(self, name: str, checks: _Checks) -> Mapping[str, str] | None:
        """A namespace's labels, from the write's objects or the stored ones (None if none)."""
        for obj in checks.objects:
            if obj.kind == "Namespace" and obj.name == name:
                return obj.labels
        row = self._row("Namespace", "", name)
        return self._parse_row(row).labels if row is not None else None

    def _namespace_phases(self, batch: list[KubeObject]) -> NamespacePhase:
        """NamespaceLifecycle's view: the batch's Namespaces, then stored ones (every
        namespace exists when the check is off)."""
        if self.from_api_server:
            return _ANY_NAMESPACE
        in_batch = phases_of([o for o in batch if o.kind == "Namespace"])
        wanted = {o.namespace for o in batch if o.NAMESPACED} - set(SYSTEM_NAMESPACES)
        rows = self._objects().filter(kind="Namespace", name__in=wanted) if wanted else []
        stored = phases_of([self._parse_row(row) for row in rows])
        return lambda name: phase if (phase := in_batch(name)) is not None else stored(name)

    def _creation(
        self, obj: KubeObject, classes: _BatchPriorityClasses, now: dt.datetime
    ) -> _Creation:
        """What creating the object stores: its admitted manifest, and its change."""
        manifest = manifest_of(obj)
        manifest["metadata"].setdefault("creationTimestamp", format_time(now))
        if obj.kind == "Pod":
            priority.admit_pod(manifest, obj.describe(), classes)
            if not self.from_api_server:
                runtime_class.admit_pod(manifest, obj.describe(), classes.runtime)
        elif obj.kind == "PodGroup" and not self.from_api_server:
            pod_group.with_defaults(manifest)
            priority.admit_pod_group(manifest, obj.describe(), classes)
        elif obj.kind == "Node":
            node_lifecycle.reconcile_unschedulable_taint(manifest)
        change = ObjectChange(
            workspace_id=self.workspace_id,
            event_type=ADDED,
            kind=obj.kind,
            namespace=obj.namespace,
            name=obj.name,
            new_manifest=manifest,
        )
        return _Creation(manifest, change)

    def _insert(self, creations: list[_Creation]) -> list[KubeObject]:
        """Rows for new objects: a few statements for any number of them."""
        if not creations:
            return []
        changes = ObjectChange.objects.bulk_create([c.change for c in creations])
        rows = []
        for creation, change in zip(creations, changes, strict=True):
            _stamp(creation.manifest, change.id)
            rows.append(self._new_row(change, creation.manifest))
        ClusterObject.objects.bulk_create(rows)
        return [self._parse_row(row) for row in rows]

    def _replace(self, row: ClusterObject, obj: KubeObject) -> KubeObject:
        """Stores a new version of an existing object; its uid and creation time stay."""
        manifest = manifest_of(obj)
        _keep_identity(manifest, row, obj)
        if obj.kind == "Node":
            node_lifecycle.reconcile_unschedulable_taint(manifest)
        change = self._append_change(MODIFIED, row, old=row.manifest, new=manifest)
        row.manifest = manifest
        row.uid = manifest["metadata"]["uid"]
        row.resource_version = change.id
        stored = self._parse_row(row)
        row.node_name, row.scheduler_name, row.priority, row.phase = _columns(stored)
        row.save(update_fields=_REPLACED_FIELDS)
        return stored

    def _replace_run(
        self, replacements: list[tuple[ClusterObject, KubeObject]]
    ) -> list[KubeObject]:
        """``_replace`` for objects of distinct rows: one insert for their changes, one
        statement for the rows (Django's bulk_update builds a CASE per row and column through
        the ORM, and a save per row compiles an UPDATE each: see ``row_updates``)."""
        if len(replacements) < 2:
            return [self._replace(row, obj) for row, obj in replacements]
        changes, manifests = [], []
        for row, obj in replacements:
            manifest = manifest_of(obj)
            _keep_identity(manifest, row, obj)
            if obj.kind == "Node":
                node_lifecycle.reconcile_unschedulable_taint(manifest)
            manifests.append(manifest)
            changes.append(self._change(MODIFIED, row, old=row.manifest, new=manifest))
        changes = ObjectChange.objects.bulk_create(changes)
        stored = []
        for (row, _), manifest, change in zip(replacements, manifests, changes, strict=True):
            _stamp(manifest, change.id)
            row.manifest, row.uid, row.resource_version = (
                manifest,
                manifest["metadata"]["uid"],
                change.id,
            )
            stored.append(self._parse_row(row))
            row.node_name, row.scheduler_name, row.priority, row.phase = _columns(stored[-1])
        update_rows([row for row, _ in replacements], _REPLACED_FIELDS)
        return stored

    def _append_change(
        self,
        event_type: str,
        row: ClusterObject,
        old: dict[str, Any] | None,
        new: dict[str, Any] | None,
    ) -> ObjectChange:
        change = self._change(event_type, row, old, new)
        change.save()
        if new is not None:
            _stamp(new, change.id)
        return change

    def _change(
        self,
        event_type: str,
        row: ClusterObject,
        old: dict[str, Any] | None,
        new: dict[str, Any] | None,
    ) -> ObjectChange:
        return ObjectChange(
            workspace_id=self.workspace_id,
            event_type=event_type,
            kind=row.kind,
            namespace=row.namespace,
            name=row.name,
            old_manifest=old,
            new_manifest=new,
        )

    def _new_row(self, change: ObjectChange, manifest: dict[str, Any]) -> ClusterObject:
        row = ClusterObject(
            workspace_id=self.workspace_id,
            kind=change.kind,
            namespace=change.namespace,
            name=change.name,
            uid=manifest["metadata"]["uid"],
            resource_version=change.id,
            manifest=manifest,
        )
        row.node_name, row.scheduler_name, row.priority, row.phase = _columns(self._parse_row(row))
        return row

    def _after_write(self) -> None:
        if self._watchers:
            self.dispatch_changes()


_REPLACED_FIELDS = [
    "manifest",
    "uid",
    "resource_version",
    "node_name",
    "scheduler_name",
    "priority",
    "phase",
    "updated",
]


class _Creation(NamedTuple):
    manifest: dict[str, Any]
    change: ObjectChange


class Binding(NamedTuple):
    """One pod to bind (the arguments of ``DatabaseCluster.bind``)."""

    namespace: str
    name: str
    uid: str
    node_name: str


PodKey = tuple[str, str]
"""(namespace, name) of a pod."""


class _BindingBatch:
    """The binds of an open ``binding_batch``: checked at once, written together.

    ``rows`` are the pods' rows as the batch changes them (a bound pod's row holds its new
    manifest), so later binds in the batch see the earlier ones.
    """

    def __init__(self, cluster: DatabaseCluster, rows: dict[PodKey, ClusterObject]) -> None:
        self.cluster = cluster
        self.rows = rows
        self.bound: dict[PodKey, KubeObject] = {}
        """Pods bound in the batch and not yet written, as they will be stored."""
        self.events: list[KubeEvent] = []

    def bind(self, namespace: str, name: str, uid: str, node_name: str) -> None:
        key = (namespace, name)
        if key not in self.rows:
            row = self.cluster._row("Pod", namespace, name)
            if row is None:
                raise BindError(f'pods "{name}" not found')
            self.rows[key] = row
        stored = self.bound.get(key) or self.cluster._parse_row(self.rows[key])
        self.bound[key] = _bound(stored, uid, node_name)

    def write(self) -> None:
        """Writes the binds and events made so far in the batch."""
        bound, self.bound = self.bound, {}
        if bound:
            self.cluster._replace_run([(self.rows[key], obj) for key, obj in bound.items()])
        events, self.events = self.events, []
        KubeEvent.objects.bulk_create(events)


def _any_namespace(name: str) -> str | None:
    return ""


_ANY_NAMESPACE: NamespacePhase = _any_namespace
"""Every namespace exists (NamespaceLifecycle off)."""


class _BatchPriorityClasses:
    """PriorityClasses (and RuntimeClasses) for admission: those being written in the same
    batch, then stored ones."""

    def __init__(self, cluster: DatabaseCluster, batch: list[KubeObject]) -> None:
        self._cluster = cluster
        self._objects = batch
        self._batch = {o.name: o for o in batch if isinstance(o, PriorityClass)}
        self._stored: list[PriorityClass] | None = None

    def get(self, name: str) -> PriorityClass | None:
        return self._batch.get(name) or self._cluster.get("PriorityClass", name)

    def global_default(self) -> PriorityClass | None:
        return priority.global_default([*self._stored_only(), *self._batch.values()])

    def runtime(self, name: str) -> RuntimeClass | None:
        """The RuntimeClass of that name, written in the batch or stored (for RuntimeClass
        admission of the batch's pods)."""
        for obj in self._objects:
            if isinstance(obj, RuntimeClass) and obj.name == name:
                return obj
        return self._cluster.get("RuntimeClass", name)

    def before(self, pc: PriorityClass) -> list[PriorityClass]:
        """The classes there when ``pc`` is created: stored ones, and the batch's before it."""
        listed = list(self._batch)
        earlier = listed[: listed.index(pc.name)] if pc.name in self._batch else listed
        return [*self._stored_only(), *(self._batch[name] for name in earlier)]

    def _stored_only(self) -> list[PriorityClass]:
        if self._stored is None:
            self._stored = self._cluster.list("PriorityClass")
        return [c for c in self._stored if c.name not in self._batch]


# ----------------------------------------------------------------------------------------------
# Manifests


def manifest_of(obj: KubeObject) -> dict[str, Any]:
    """The manifest to store for an object: ``to_dict()`` with its identity spelled out, and the
    fields the engine changes in place on objects it then updates (labels, annotations, a
    PersistentVolume's claimRef), which ``to_dict()`` does not write back."""
    data = _json_ready(obj.to_dict())
    metadata = dict(data.get("metadata") or {})
    metadata["name"] = obj.name
    if obj.namespace:
        metadata["namespace"] = obj.namespace
    else:
        metadata.pop("namespace", None)
    metadata["uid"] = obj.uid
    _set_or_drop(metadata, "labels", dict(obj.metadata.labels))
    _set_or_drop(metadata, "annotations", dict(obj.metadata.annotations))
    data["metadata"] = metadata
    if obj.kind == "PersistentVolume":
        _write_claim_ref(data, obj.spec.claim_ref)
    return data


def _write_claim_ref(data: dict[str, Any], ref: Any) -> None:
    spec = data.setdefault("spec", {})
    if ref is None:
        spec.pop("claimRef", None)
        return
    written = dict(spec.get("claimRef") or {})
    for key, value in (("namespace", ref.namespace), ("name", ref.name), ("uid", ref.uid)):
        _set_or_drop(written, key, value)
    spec["claimRef"] = written


def _json_ready(value: Any) -> Any:
    """Timestamps that a YAML loader turned into datetimes, back in the API's text form."""
    if isinstance(value, dict):
        return {key: _json_ready(item) for key, item in value.items()}
    if isinstance(value, list):
        return [_json_ready(item) for item in value]
    if isinstance(value, dt.datetime):
        return format_time(value if value.tzinfo else value.replace(tzinfo=dt.UTC))
    if isinstance(value, dt.date):
        return value.isoformat()
    return value


def _stamp(manifest: dict[str, Any], version: int) -> None:
    manifest["metadata"]["resourceVersion"] = str(version)


def _stamped(manifest: dict[str, Any] | None, version: int) -> dict[str, Any] | None:
    """A logged manifest with the resourceVersion it was stored under (a shallow copy)."""
    if manifest is None:
        return None
    metadata = {**manifest.get("metadata", {}), "resourceVersion": str(version)}
    return {**manifest, "metadata": metadata}


def _keep_identity(manifest: dict[str, Any], row: ClusterObject, obj: KubeObject) -> None:
    """uid and creationTimestamp are the stored object's; naming another uid is an error."""
    err = _uid_change(obj, row)
    if err is not None:
        raise err
    metadata = manifest["metadata"]
    metadata["uid"] = row.uid
    created = (row.manifest.get("metadata") or {}).get("creationTimestamp")
    if created:
        metadata["creationTimestamp"] = created


def _uid_change(obj: KubeObject, row: ClusterObject) -> ObjectError | None:
    given = (obj.manifest.get("metadata") or {}).get("uid")
    if given and given != row.uid:
        return ObjectError(
            obj.describe(), "metadata.uid", f'Invalid value: "{given}": field is immutable'
        )
    return None


def _columns(obj: KubeObject) -> tuple[str, str, int, str]:
    """(node_name, scheduler_name, priority, phase): the pod columns pages filter on."""
    if not isinstance(obj, Pod):
        return "", "", 0, ""
    return obj.spec.node_name, obj.spec.scheduler_name, obj.spec.priority, obj.status.phase


def _set_or_drop(data: dict[str, Any], key: str, value: Any) -> None:
    if value:
        data[key] = value
    else:
        data.pop(key, None)


# ----------------------------------------------------------------------------------------------
# Checks


def _bound(pod: Pod, uid: str, node_name: str) -> Pod:
    """The pod as a Binding leaves it (on node, PodScheduled=True); BindError with the API
    server's text if it would refuse the binding."""
    refusal = binding_refusal(pod, uid)
    if refusal:
        raise BindError(refusal)
    bound = pod.deep_copy()
    bound.spec.node_name = node_name
    _set_condition(
        bound.status.conditions,
        PodCondition("PodScheduled", "True", last_transition_time=_now_in_seconds()),
    )
    return bound


def binding_refusal(pod: Pod, uid: str) -> str:
    """Why the API server would refuse to bind this pod, or "" (its texts, in its order)."""
    if uid and pod.uid != uid:
        return (
            f'Operation cannot be fulfilled on pods/binding "{pod.name}": the UID in the '
            f"precondition ({uid}) does not match the UID in record ({pod.uid}). "
            "The object might have been deleted and then recreated"
        )
    if pod.metadata.deletion_timestamp is not None:
        return f"pod {pod.name} is being deleted, cannot be assigned to a host"
    if pod.spec.node_name:
        return f'pod {pod.name} is already assigned to node "{pod.spec.node_name}"'
    if pod.spec.scheduling_gates:
        return f"pod {pod.name} has non-empty .spec.schedulingGates"
    return ""


def resource_name(kind: str) -> str:
    """The resource as the API server names it in errors: ``pods``,
    ``priorityclasses.scheduling.k8s.io``."""
    plural = kind.lower() + ("es" if kind.endswith("s") else "s")
    cls = KINDS.get(kind)
    group = cls.API_VERSION.rpartition("/")[0] if cls is not None else ""
    return f"{plural}.{group}" if group else plural


def updated_object(manifest: Mapping[str, Any], old: Mapping[str, Any]) -> KubeObject:
    """A manifest replacing the stored ``old`` as kube-apiserver takes an update: the Priority
    plugin keeps a pod's priority, then the kind's update rules (ObjectError)."""
    if manifest.get("kind") == "Pod":
        manifest = priority.admit_pod_update(manifest, old)
    return parse_updated_object(manifest, old)


class _Checks:
    """The objects of a write, with what kube-apiserver checks of each that came as a manifest
    (from a person: the editor, an import, bulk creation); parsed objects (the live mirror's,
    the store's own writes) are taken as read."""

    def __init__(self, objects: Iterable[ObjectOrManifest], keep_going: bool = False) -> None:
        """Decodes each manifest: ObjectError for the first that does not decode, or with
        ``keep_going`` every such error kept in ``errors`` and the object left out. Checks
        are then looked up by kind, namespace and name."""
        self.objects: list[KubeObject] = []
        self.errors: list[ObjectError] = []
        self._new: dict[tuple[str, str, str], NewObject] = {}
        for obj in objects:
            if isinstance(obj, KubeObject):
                self.objects.append(obj)
                continue
            try:
                new = decode_new_object(obj)
            except ObjectError as err:
                if not keep_going:
                    raise
                self.errors.append(err)
                continue
            self._new.setdefault(_key(new.obj), new)
            self.objects.append(new.obj)

    def given_objects(self) -> list[KubeObject]:
        """The objects that came as manifests (from a person)."""
        return [new.obj for new in self._new.values()]

    def validation_error(self, obj: KubeObject, labels_of: NamespaceLabels) -> ObjectError | None:
        """Why validation refuses creating ``obj``, if it came as a manifest and it does (the
        DRA admin-access check, which reads its namespace's labels, comes first)."""
        new = self._new.get(_key(obj))
        if new is None:
            return None
        return new.validation_error(admin_access_errors(new.obj, labels_of))

    def update_error(self, obj: KubeObject, row: ClusterObject) -> ObjectError | None:
        try:
            self.as_update(obj, row)
        except ObjectError as err:
            return err
        return None

    def as_update(self, obj: KubeObject, row: ClusterObject | None) -> KubeObject:
        """``obj`` as it replaces ``row``: a manifest is checked as kube-apiserver checks an
        update of the stored object (ObjectError), and keeps what an update takes from it."""
        new = self._new.get(_key(obj))
        if row is None or new is None:
            return obj
        return updated_object(new.given, row.manifest)


def _key(obj: KubeObject) -> tuple[str, str, str]:
    return obj.kind, obj.namespace, obj.name


def _batches(items: list[Any], size: int) -> Iterator[list[Any]]:
    for start in range(0, len(items), size):
        yield items[start : start + size]


def _refuse_duplicates(objects: list[KubeObject]) -> None:
    seen: set[tuple[str, str, str]] = set()
    for obj in objects:
        if _key(obj) in seen:
            raise ObjectError(obj.describe(), "", "appears more than once")
        seen.add(_key(obj))


def _refuse_existing(
    objects: list[KubeObject], existing: dict[tuple[str, str, str], ClusterObject]
) -> None:
    for obj in objects:
        if _key(obj) in existing:
            raise AlreadyExistsError(f'{resource_name(obj.kind)} "{obj.name}" already exists')


def _set_condition(conditions: list[PodCondition], condition: PodCondition) -> None:
    """Replaces the condition of the same type, or appends it."""
    for index, existing in enumerate(conditions):
        if existing.type == condition.type:
            conditions[index] = condition
            return
    conditions.append(condition)


def _now_in_seconds() -> dt.datetime:
    """Timestamps in manifests have whole seconds."""
    return timezone.now().replace(microsecond=0)
