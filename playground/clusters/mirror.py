"""The mirror: a connected workspace follows its cluster with list + watch, as an informer.

For every kind the engine reads, one *stream* per followed namespace (one for a cluster-scoped
kind) lists the objects, keeps the list's resourceVersion, and watches from it with
bookmarks. Every change is written through ``DatabaseCluster``, so the workspace's change log
tells the scheduler service about it as about any edit.

- ADDED / MODIFIED upsert, DELETED deletes. The cluster's resourceVersion of every object is
  kept (``Stream.versions``): an event for a version already applied is not applied again.
- 410 Gone (an ``ERROR`` event, or an ApiException 410) re-lists and reconciles: objects
  that vanished are deleted, changed ones written, unchanged ones (same cluster version, or,
  for objects stored before this mirror started, the same manifest) left alone.
- A stream that ends (timeoutSeconds, or cut) is watched again from the kept version. Failed
  calls (unreachable, 403, ...) set the kind's error and back off exponentially (capped) on
  the injected clock; the other kinds go on.

Whoever wants every change the mirror applies (a recording) adds a callable to ``observers``:
it is called ``(event_type, manifest)`` (ADDED / MODIFIED / DELETED, the object as stored)
after each write, re-list reconciles included, from the thread that made it.

``step()`` makes one call per stream that is due (a list, or one watch of ``watch_seconds``),
so tests drive the mirror without threads; ``run(stop_event)`` gives each stream a thread.

Manifests are stored as the API gives them (the JSON of the response), without
``metadata.managedFields``. The cluster's resourceVersion is not stored in the workspace (its
objects' resourceVersion is the workspace's change id), only kept in memory.
"""

from __future__ import annotations

import json
import logging
import threading
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

import urllib3.exceptions
from django.db import connections
from kubernetes.client import ApiClient
from kubernetes.client.exceptions import ApiException

from framework.api.errors import ObjectError
from framework.api.loader import KINDS, parse_object
from framework.api.meta import KubeObject
from framework.util.clock import Clock
from playground.clusters.kubeconfig import CONNECT_TIMEOUT_SECONDS, READ_TIMEOUT_SECONDS
from playground.clusters.models import ClusterConnection
from playground.clusters.problems import describe
from playground.clusters.watch_events import WatchEvents
from playground.metrics.families import MIRROR_CHANGES_APPLIED
from playground.workspaces import node_lifecycle
from playground.workspaces.cluster import ADDED, DELETED, MODIFIED, DatabaseCluster, manifest_of
from playground.workspaces.models import Workspace

logger = logging.getLogger(__name__)

LIST_PAGE = 500
"""Objects per list request (``limit``); the rest come with ``continue``."""
WATCH_SECONDS = 300
"""timeoutSeconds of a watch: upstream's reflector picks 5 to 10 minutes."""
WATCH_BATCH = 500
"""Watch events applied together at most: those that arrived while the previous ones were
being written (a burst of changes costs a few transactions, not one per change)."""
HALT_CHECK_SECONDS = 0.2
"""How often a quiet watch looks whether the mirror was told to stop."""
BACKOFF_SECONDS = 1.0
BACKOFF_CAP_SECONDS = 60.0
MAX_DOUBLINGS = 30
GONE = 410
NOT_FOUND = 404
NOT_SERVED_SECONDS = 60.0
"""How often a kind the cluster does not serve is looked for again (a restarted API server
may serve an alpha API it did not)."""

ChangeObserver = Callable[[str, dict[str, Any]], None]
"""Told ``(event_type, manifest)`` of every change the mirror applied."""

Key = tuple[str, str]
"""(namespace, name) of an object ("" namespace for cluster-scoped ones)."""


@dataclass(frozen=True)
class Followed:
    """A kind the mirror follows, and where the API serves it."""

    kind: str
    group: str
    version: str
    plural: str
    namespaced: bool
    optional: bool = False
    """An alpha API a cluster serves only when asked to (``--runtime-config`` and a gate): a
    404 for its list means the cluster does not serve it, not that the mirror is failing."""

    def path(self, namespace: str = "") -> str:
        where = f"/namespaces/{namespace}" if namespace else ""
        return f"{self.group_version_path()}{where}/{self.plural}"

    def group_version_path(self) -> str:
        """Where the API lists its group version's resources (discovery)."""
        return f"/apis/{self.group}/{self.version}" if self.group else f"/api/{self.version}"

    @property
    def stored(self) -> bool:
        """Whether the workspace can hold it (the engine's API layer parses the kind)."""
        return self.kind in KINDS


FOLLOWED: tuple[Followed, ...] = (
    # Namespaces and classes first: pods are admitted against the PriorityClasses stored.
    Followed("Namespace", "", "v1", "namespaces", False),
    Followed("PriorityClass", "scheduling.k8s.io", "v1", "priorityclasses", False),
    Followed("RuntimeClass", "node.k8s.io", "v1", "runtimeclasses", False),
    Followed("Workload", "scheduling.k8s.io", "v1alpha2", "workloads", True, optional=True),
    Followed("PodGroup", "scheduling.k8s.io", "v1alpha2", "podgroups", True, optional=True),
    Followed("StorageClass", "storage.k8s.io", "v1", "storageclasses", False),
    Followed("CSIDriver", "storage.k8s.io", "v1", "csidrivers", False),
    Followed("CSINode", "storage.k8s.io", "v1", "csinodes", False),
    Followed("DeviceClass", "resource.k8s.io", "v1", "deviceclasses", False),
    Followed("Node", "", "v1", "nodes", False),
    Followed("ResourceSlice", "resource.k8s.io", "v1", "resourceslices", False),
    Followed("PersistentVolume", "", "v1", "persistentvolumes", False),
    Followed("PersistentVolumeClaim", "", "v1", "persistentvolumeclaims", True),
    Followed("CSIStorageCapacity", "storage.k8s.io", "v1", "csistoragecapacities", True),
    Followed("VolumeAttachment", "storage.k8s.io", "v1", "volumeattachments", False),
    Followed("Service", "", "v1", "services", True),
    Followed("ReplicationController", "", "v1", "replicationcontrollers", True),
    Followed("ReplicaSet", "apps", "v1", "replicasets", True),
    Followed("StatefulSet", "apps", "v1", "statefulsets", True),
    Followed("PodDisruptionBudget", "policy", "v1", "poddisruptionbudgets", True),
    Followed("ResourceClaimTemplate", "resource.k8s.io", "v1", "resourceclaimtemplates", True),
    Followed("ResourceClaim", "resource.k8s.io", "v1", "resourceclaims", True),
    Followed("Pod", "", "v1", "pods", True),
)
FOLLOWED_KINDS = tuple(f.kind for f in FOLLOWED)


class Gone(Exception):
    """The kept resourceVersion is older than the server's history: list again."""


class Halted(Exception):
    """The mirror was told to stop: its streams apply nothing more (a successor may be
    mirroring already)."""


@dataclass
class Stream:
    """One list + watch: a kind in one namespace ("" for all, or a cluster-scoped kind)."""

    followed: Followed
    namespace: str = ""
    resource_version: str = ""
    listed: bool = False
    """False until a list has succeeded, and again after 410 Gone."""
    versions: dict[Key, str] = field(default_factory=dict)
    """The cluster's resourceVersion of every object of the stream the workspace holds."""
    error: str = ""
    failures: int = 0
    retry_at: float = 0.0
    relists: int = 0
    skipped: dict[Key, str] = field(default_factory=dict)
    """Objects the workspace refused (the engine cannot read them), with why."""
    last_event_at: float | None = None
    contact_at: float | None = None
    """When the server last answered for the stream (a list, a watch opening, an event)."""
    watching: bool = False
    """A watch is open: changes arrive as they happen."""
    served: bool = True
    """False while the cluster answers that it does not serve the kind (``Followed.optional``)."""

    @property
    def label(self) -> str:
        return f"{self.followed.kind} in {self.namespace}" if self.namespace else self.followed.kind


class Mirror:
    """Follows a connection's cluster into a workspace (see the module)."""

    def __init__(
        self,
        connection: ClusterConnection,
        workspace: Workspace | int,
        api_client: ApiClient,
        clock: Clock,
        *,
        kinds: Iterable[str] | None = None,
        watch_seconds: int = WATCH_SECONDS,
        backoff_seconds: float = BACKOFF_SECONDS,
        backoff_cap_seconds: float = BACKOFF_CAP_SECONDS,
    ) -> None:
        self.connection = connection
        self.workspace_id = workspace if isinstance(workspace, int) else workspace.pk
        self.api_client = api_client
        self.clock = clock
        self.watch_seconds = whole_seconds(watch_seconds)
        self.backoff_seconds = backoff_seconds
        self.backoff_cap_seconds = backoff_cap_seconds
        self.label_selector = connection.label_selector.strip()
        wanted = set(kinds) if kinds is not None else set(FOLLOWED_KINDS)
        unknown = wanted - set(FOLLOWED_KINDS)
        if unknown:
            raise ValueError(f"kinds: not followed by the mirror: {', '.join(sorted(unknown))}")
        namespaces = connection.namespace_list() or [""]
        self.streams: list[Stream] = [
            Stream(followed, namespace)
            for followed in FOLLOWED
            if followed.kind in wanted
            for namespace in (namespaces if followed.namespaced else [""])
        ]
        self.observers: list[ChangeObserver] = []
        self.started = clock.now()
        self.halt = threading.Event()
        """Set by ``start``'s caller to stop: nothing is written after it is set."""
        self._lock = threading.Lock()
        self._local = threading.local()

    # ------------------------------------------------------------------------------------------
    # Driving

    def step(self) -> int:
        """One call for every stream that is due: a list if it has none, else one watch of
        ``watch_seconds``. Returns how many streams made a call."""
        due = [stream for stream in self.streams if stream.retry_at <= self.clock.now()]
        for stream in due:
            self.step_stream(stream)
        return len(due)

    def sync(self) -> None:
        """Lists every stream that has no list yet (the initial sync, without watching)."""
        for stream in self.streams:
            if not stream.listed and stream.retry_at <= self.clock.now():
                self.step_stream(stream)

    def run(self, stop_event: threading.Event) -> None:
        """Follows the cluster until ``stop_event`` is set: a thread per stream. A stream stops
        after its current watch ends (at most ``watch_seconds``)."""
        for thread in self.start(stop_event):
            thread.join()

    def start(self, stop_event: threading.Event) -> list[threading.Thread]:
        """Starts a daemon thread per stream and returns them. Daemons: a quiet watch ends only
        after ``watch_seconds``, and a process told to exit must not wait for it; once
        ``stop_event`` is set its thread writes nothing more."""
        self.halt = stop_event
        threads = [
            threading.Thread(
                target=self._run_stream,
                args=(stream, stop_event),
                name=f"mirror {stream.label}",
                daemon=True,
            )
            for stream in self.streams
        ]
        for thread in threads:
            thread.start()
        return threads

    def _run_stream(self, stream: Stream, stop_event: threading.Event) -> None:
        try:
            while not stop_event.is_set():
                wait = stream.retry_at - self.clock.now()
                if wait > 0:
                    stop_event.wait(wait)
                    continue
                self.step_stream(stream)
        except Halted:
            pass
        finally:
            connections.close_all()  # the thread ends: its database connections with it

    def step_stream(self, stream: Stream) -> None:
        """List or watch once; failures are the stream's error and back off."""
        try:
            if stream.listed:
                self._watch(stream)
            else:
                self._list(stream)
        except Gone:
            self._gone(stream)
        except ApiException as err:
            if err.status == GONE:
                self._gone(stream)
            elif err.status == NOT_FOUND and stream.followed.optional:
                self._not_served(stream)
            else:
                self._failed(stream, err)
        except (urllib3.exceptions.HTTPError, OSError) as err:
            self._forget_connections()
            self._failed(stream, err)
        except ObjectError as err:
            # The workspace refused a write (admission); list again after the backoff.
            stream.listed = False
            self._failed(stream, err, f"the workspace refused an object: {err}")
        else:
            stream.error = ""
            stream.failures = 0

    # ------------------------------------------------------------------------------------------
    # State

    def state(self) -> dict[str, dict[str, Any]]:
        """Per kind, for a page: cluster resourceVersion(s), objects, synced, last error."""
        kinds: dict[str, dict[str, Any]] = {}
        with self._lock:
            for stream in self.streams:
                kind = kinds.setdefault(
                    stream.followed.kind,
                    {
                        "kind": stream.followed.kind,
                        "stored": stream.followed.stored,
                        "served": False,
                        "resource_versions": {},
                        "objects": 0,
                        "synced": True,
                        "error": "",
                        "skipped": {},
                        "relists": 0,
                        "last_event_at": None,
                    },
                )
                kind["resource_versions"][stream.namespace] = stream.resource_version
                kind["objects"] += len(stream.versions)
                kind["served"] = kind["served"] or stream.served
                kind["synced"] = kind["synced"] and _done_listing(stream) and not stream.error
                kind["error"] = kind["error"] or (
                    f"{stream.label}: {stream.error}" if stream.error else ""
                )
                kind["skipped"].update(
                    {_describe_key(key): why for key, why in stream.skipped.items()}
                )
                kind["relists"] += stream.relists
                if stream.last_event_at is not None:
                    kind["last_event_at"] = max(kind["last_event_at"] or 0, stream.last_event_at)
        return kinds

    def versions(self, kind: str) -> dict[str, str]:
        """ "namespace/name" (or name) -> the cluster's resourceVersion, of every object of a
        kind the mirror holds."""
        with self._lock:
            return {
                _describe_key(key): version
                for stream in self.streams
                if stream.followed.kind == kind
                for key, version in stream.versions.items()
            }

    def lag(self) -> float:
        """Seconds the workspace may be behind the cluster: 0 while every stream watches
        (changes arrive as they happen), else the longest time since a stream that is not
        watching last heard from the server (since ``started`` if it never has)."""
        now = self.clock.now()
        with self._lock:
            return max(
                (
                    now - (stream.contact_at if stream.contact_at is not None else self.started)
                    for stream in self.streams
                    if not stream.watching and stream.served
                ),
                default=0.0,
            )

    def status(self) -> str:
        """``failing`` if a kind has an error, else ``syncing`` until every kind has a list."""
        if any(stream.error for stream in self.streams):
            return "failing"
        if not all(_done_listing(stream) for stream in self.streams):
            return "syncing"
        return "synced"

    # ------------------------------------------------------------------------------------------
    # List

    def _list(self, stream: Stream) -> None:
        if stream.followed.optional and not self._serves(stream):
            self._not_served(stream)
            return
        items, version = self._list_items(stream)
        self._reconcile(stream, items)
        stream.resource_version = version
        stream.listed = stream.served = True
        stream.last_event_at = stream.contact_at = self.clock.now()

    def _list_items(self, stream: Stream) -> tuple[list[dict[str, Any]], str]:
        items: list[dict[str, Any]] = []
        token = ""
        while True:
            query = [("limit", LIST_PAGE)]
            if token:
                query.append(("continue", token))
            page = json.loads(self._get(stream, query).data)
            kind = stream.followed.kind
            items.extend(_cleaned(item, kind, page.get("apiVersion", "")) for item in page["items"])
            token = (page.get("metadata") or {}).get("continue") or ""
            if not token:
                return items, (page.get("metadata") or {}).get("resourceVersion", "")

    def _reconcile(self, stream: Stream, items: list[dict[str, Any]]) -> None:
        """Make the workspace hold exactly ``items`` for this stream, writing only changes."""
        self._check_halt()
        listed = {_key(item): item for item in items}
        if not stream.followed.stored:
            with self._lock:
                stream.versions = {key: _version(item) for key, item in listed.items()}
            return
        cluster = self._cluster()
        kind = stream.followed.kind
        stored = {
            (obj.namespace, obj.name): obj for obj in cluster.list(kind, stream.namespace or None)
        }
        writes, recreated = [], []
        for key, item in listed.items():
            current = stored.get(key)
            if current is not None and self._unchanged(stream, key, item, current):
                with self._lock:
                    stream.versions[key] = _version(item)
                continue
            parsed = self._parse(stream, key, item)
            if parsed is None:
                continue
            if current is not None and current.uid != parsed.uid:
                recreated.append(current)
            writes.append((key, item, parsed))
        vanished = [obj for key, obj in stored.items() if key not in listed]
        if vanished or recreated:
            cluster.delete_many(kind, [obj.uid for obj in [*vanished, *recreated]])
        if writes:
            cluster.add_many([parsed for _, _, parsed in writes])
        for obj in [*vanished, *recreated]:
            self._tell(DELETED, manifest_of(obj))
        for key, item, _ in writes:
            replaced = key in stored and stored[key].uid == _uid(item)
            self._tell(MODIFIED if replaced else ADDED, item)
        with self._lock:
            for key, item, _ in writes:
                stream.versions[key] = _version(item)
            for key in [key for key in stream.versions if key not in listed]:
                del stream.versions[key]
        if writes or vanished:
            logger.info(
                "mirror of connection %s: %s re-listed, %d written, %d deleted",
                self.connection.pk,
                stream.label,
                len(writes),
                len(vanished),
            )

    def _unchanged(self, stream: Stream, key: Key, item: dict[str, Any], current: Any) -> bool:
        known = stream.versions.get(key)
        if known is not None:
            return known == _version(item) and current.uid == _uid(item)
        # Stored before this mirror started: the same manifest is the same object.
        try:
            fresh = manifest_of(parse_object(item))
        except ObjectError:
            return False
        if stream.followed.kind == "Node":
            node_lifecycle.reconcile_unschedulable_taint(fresh)  # as DatabaseCluster stores it
        return _comparable(fresh) == _comparable(manifest_of(current))

    # ------------------------------------------------------------------------------------------
    # Watch

    def _watch(self, stream: Stream) -> None:
        query = [
            ("watch", "true"),
            ("allowWatchBookmarks", "true"),
            ("resourceVersion", stream.resource_version),
            ("timeoutSeconds", str(self.watch_seconds)),
        ]
        response = self._get(stream, query, read_timeout=self.watch_seconds + READ_TIMEOUT_SECONDS)
        stream.contact_at, stream.watching = self.clock.now(), True
        events = WatchEvents(response, f"watch {stream.label}")
        try:
            while True:
                self._check_halt()
                batch = events.take(WATCH_BATCH, HALT_CHECK_SECONDS)
                if batch is None:
                    break
                if batch:
                    self._apply_events(stream, batch)
                    stream.contact_at = self.clock.now()
        except urllib3.exceptions.ProtocolError:
            # The stream was cut: the next step watches again from the kept version.
            logger.info("mirror of connection %s: %s watch cut", self.connection.pk, stream.label)
        else:
            stream.contact_at = self.clock.now()
        finally:
            stream.watching = False
            events.close()

    def _apply_events(self, stream: Stream, events: list[Mapping[str, Any]]) -> None:
        """Applies a batch of watch events in order: each run of upserts (or of deletions) of
        distinct objects is written together, in one transaction."""
        run: list[tuple[str, Key, dict[str, Any]]] = []
        keys: set[Key] = set()
        for event in events:
            kind = event.get("type")
            obj = event.get("object") or {}
            if kind in ("ERROR", "BOOKMARK"):
                self._apply_run(stream, run)
                run, keys = [], set()
                if kind == "ERROR":
                    if obj.get("code") == GONE:
                        raise Gone(obj.get("message", ""))
                    raise ApiException(status=obj.get("code") or 500, reason=obj.get("message", ""))
                stream.resource_version = _version(obj)
                continue
            item = _cleaned(obj, stream.followed.kind, obj.get("apiVersion", ""))
            change = DELETED if kind == "DELETED" else ADDED
            key = _key(item)
            if run and (run[-1][0] != change or key in keys):
                self._apply_run(stream, run)
                run, keys = [], set()
            run.append((change, key, item))
            keys.add(key)
        self._apply_run(stream, run)

    def _apply_run(self, stream: Stream, run: list[tuple[str, Key, dict[str, Any]]]) -> None:
        if not run:
            return
        self._check_halt()
        if run[0][0] == DELETED:
            self._delete_all(stream, [(key, item) for _, key, item in run])
        else:
            self._upsert_all(stream, [(key, item) for _, key, item in run])
        stream.resource_version = _version(run[-1][2])
        stream.last_event_at = self.clock.now()

    def _upsert_all(self, stream: Stream, items: list[tuple[Key, dict[str, Any]]]) -> None:
        """ADDED / MODIFIED events of distinct objects: those at a version not applied yet are
        written with one ``add_many`` (an object recreated under its name, with a new uid, is
        deleted first)."""
        fresh = [(key, item) for key, item in items if stream.versions.get(key) != _version(item)]
        if not fresh:
            return
        if not stream.followed.stored:
            with self._lock:
                stream.versions.update((key, _version(item)) for key, item in fresh)
            return
        parsed = [
            (key, item, obj)
            for key, item in fresh
            if (obj := self._parse(stream, key, item)) is not None
        ]
        kind = stream.followed.kind
        cluster = self._cluster()
        current = cluster.uids(kind, [key for key, _, _ in parsed])
        recreated = [
            found
            for key, _, obj in parsed
            if current.get(key, obj.uid) != obj.uid
            and (found := cluster.get(kind, key[1], key[0])) is not None
        ]
        if recreated:
            cluster.delete_many(kind, [obj.uid for obj in recreated])
            for obj in recreated:
                self._tell(DELETED, manifest_of(obj))
        cluster.add_many([obj for _, _, obj in parsed])
        for key, item, obj in parsed:
            self._tell(MODIFIED if current.get(key) == obj.uid else ADDED, item)
        with self._lock:
            stream.versions.update((key, _version(item)) for key, item, _ in parsed)

    def _delete_all(self, stream: Stream, items: list[tuple[Key, dict[str, Any]]]) -> None:
        """DELETED events of distinct objects, deleted with one ``delete_many``."""
        with self._lock:
            for key, _ in items:
                stream.versions.pop(key, None)
                stream.skipped.pop(key, None)
        if not stream.followed.stored:
            return
        cluster = self._cluster()
        current = cluster.uids(stream.followed.kind, [key for key, _ in items])
        cluster.delete_many(
            stream.followed.kind, [current[key] for key, _ in items if key in current]
        )
        for key, item in items:
            if key in current:
                self._tell(DELETED, item)

    # ------------------------------------------------------------------------------------------
    # Helpers

    def _forget_connections(self) -> None:
        """Closes the client's idle pooled connections after a failure of the connection: the
        server may have restarted, and every one of them would fail once before a new one is
        made (with no retries, each failure is a stream's backoff)."""
        self.api_client.rest_client.pool_manager.clear()

    def _check_halt(self) -> None:
        if self.halt.is_set():
            raise Halted

    def _tell(self, event_type: str, manifest: dict[str, Any]) -> None:
        """A change was written to the workspace: counted, and told to the observers."""
        MIRROR_CHANGES_APPLIED.labels(
            str(self.workspace_id), manifest.get("kind", ""), event_type
        ).inc()
        for observer in self.observers:
            observer(event_type, manifest)

    def _get(self, stream: Stream, query: list[tuple[str, Any]], read_timeout: float = 0) -> Any:
        """GET through the official client, returning the raw urllib3 response (plain JSON,
        as the API gives it).

        A GET that the server closes without an answer is sent once more: the pooled
        connection it went out on had been closed by the server while idle (servers and load
        balancers close idle connections; the client retries nothing, so that Test connection
        fails at once on a refused connection or a TLS error)."""
        if self.label_selector:
            query = [*query, ("labelSelector", self.label_selector)]
        return self._get_path(stream.followed.path(stream.namespace), query, read_timeout)

    def _serves(self, stream: Stream) -> bool:
        """Whether the cluster's discovery names the kind's resource. Asked before listing an
        alpha API: discovery answers every user, while a list of a resource the user's role
        does not name is refused (403) before the server looks whether it serves it."""
        followed = stream.followed
        try:
            response = self._get_path(followed.group_version_path(), [], 0)
        except ApiException as err:
            if err.status == NOT_FOUND:
                return False
            raise
        resources = json.loads(response.data).get("resources") or []
        return any(resource.get("name") == followed.plural for resource in resources)

    def _get_path(self, path: str, query: list[tuple[str, Any]], read_timeout: float) -> Any:
        try:
            return self._call(path, query, read_timeout)
        except urllib3.exceptions.MaxRetryError as err:
            if not isinstance(err.reason, urllib3.exceptions.ProtocolError):
                raise
        return self._call(path, query, read_timeout)

    def _call(self, path: str, query: list[tuple[str, Any]], read_timeout: float) -> Any:
        return self.api_client.call_api(
            path,
            "GET",
            query_params=query,
            header_params={"Accept": "application/json"},
            auth_settings=["BearerToken"],
            _preload_content=False,
            _request_timeout=(CONNECT_TIMEOUT_SECONDS, read_timeout or READ_TIMEOUT_SECONDS),
        )

    def _parse(self, stream: Stream, key: Key, item: dict[str, Any]) -> KubeObject | None:
        try:
            parsed = parse_object(item)
        except ObjectError as err:
            with self._lock:
                stream.skipped[key] = str(err)
            return None
        with self._lock:
            stream.skipped.pop(key, None)
        return parsed

    def _gone(self, stream: Stream) -> None:
        logger.info(
            "mirror of connection %s: %s expired (410 Gone), listing again",
            self.connection.pk,
            stream.label,
        )
        stream.listed = False
        stream.relists += 1
        stream.error = ""
        stream.failures = 0

    def _not_served(self, stream: Stream) -> None:
        """The cluster does not serve the kind: nothing to follow and nothing failing. What was
        mirrored of it while it was served goes (the cluster no longer shows it either); the
        kind is looked for again every ``NOT_SERVED_SECONDS``."""
        if stream.served:
            logger.info(
                "mirror of connection %s: %s is not served by the cluster",
                self.connection.pk,
                stream.label,
            )
        self._reconcile(stream, [])
        stream.served = stream.listed = False
        stream.error, stream.failures = "", 0
        stream.contact_at = self.clock.now()
        stream.retry_at = self.clock.now() + NOT_SERVED_SECONDS

    def _failed(self, stream: Stream, err: BaseException, message: str = "") -> None:
        stream.error = message or describe(err, self.connection.server)
        stream.failures += 1
        doublings = min(stream.failures - 1, MAX_DOUBLINGS)  # a float overflows past 1023
        delay = min(self.backoff_cap_seconds, self.backoff_seconds * 2**doublings)
        stream.retry_at = self.clock.now() + delay
        logger.warning(
            "mirror of connection %s: %s failed (%s), retrying in %.0f s",
            self.connection.pk,
            stream.label,
            stream.error,
            delay,
        )

    def _cluster(self) -> DatabaseCluster:
        """A DatabaseCluster per thread (an instance is meant for one thread)."""
        cluster = getattr(self._local, "cluster", None)
        if cluster is None:
            cluster = DatabaseCluster(self.workspace_id, from_api_server=True)
            self._local.cluster = cluster
        return cluster


def _cleaned(item: Mapping[str, Any], kind: str, api_version: str) -> dict[str, Any]:
    """The object as stored: kind and apiVersion spelled out (a list's items lack them),
    without managedFields (bookkeeping of server-side apply, large and never read)."""
    cleaned = dict(item)
    cleaned.setdefault("kind", kind)
    if api_version:
        cleaned.setdefault("apiVersion", api_version)
    metadata = dict(cleaned.get("metadata") or {})
    metadata.pop("managedFields", None)
    cleaned["metadata"] = metadata
    return cleaned


def _done_listing(stream: Stream) -> bool:
    """Listed, or answered that the cluster does not serve the kind."""
    return stream.listed or not stream.served


def _key(item: Mapping[str, Any]) -> Key:
    metadata = item.get("metadata") or {}
    return metadata.get("namespace", ""), metadata.get("name", "")


def _version(item: Mapping[str, Any]) -> str:
    return (item.get("metadata") or {}).get("resourceVersion", "")


def _uid(item: Mapping[str, Any]) -> str:
    return (item.get("metadata") or {}).get("uid", "")


def _comparable(manifest: Mapping[str, Any]) -> dict[str, Any]:
    metadata = {k: v for k, v in (manifest.get("metadata") or {}).items() if k != "resourceVersion"}
    return {**manifest, "metadata": metadata}


def whole_seconds(value: float) -> int:
    """A watch's timeoutSeconds: kube-apiserver parses it as an integer and answers ``1.5``
    with 400 ``strconv.ParseInt: parsing "1.5": invalid syntax``."""
    if not float(value).is_integer() or value < 1:
        raise ValueError(f"watch_seconds: must be a whole number of seconds, at least 1: {value}")
    return int(value)


def _describe_key(key: Key) -> str:
    return f"{key[0]}/{key[1]}" if key[0] else key[1]
