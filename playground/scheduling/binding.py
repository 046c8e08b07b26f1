"""Binding cycles outside the scheduler service: Bind and PostBind in a Celery task.

The service runs a pod's binding cycle up to PreBind (whose plugins hold state from Reserve),
then sends a ``BindingRequest`` (JSON only) to a ``run_binding_cycles`` task, together with
the other pods that reached Bind in the same stretch of its work. The task runs each pod's
Bind plugins (DefaultBinder binds through DatabaseCluster) in one transaction, fenced by the
lease generation the requests were sent under, then PostBind, and reports each pod's outcome
as a SchedulerCommand ``binding-finished``, which the service turns into the end of that
pod's binding cycle: nothing more on success, Unreserve + Forget + requeue on failure
(upstream handleBindingCycleError).

The second scheduler's requests (``connection_id`` set) bind through the API server instead,
after a fence of their own (``_bind_in_cluster``), in lanes side by side (the requests wait on
the API server, as kube-scheduler's binding goroutines do); the mirror brings the bound pods
back.
"""

from __future__ import annotations

import threading
import time
from collections import OrderedDict
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor, wait
from dataclasses import asdict, dataclass, field
from typing import Any

from django.db import DatabaseError, connection, transaction

from framework.api.pod import Pod
from framework.interface.cycle_state import CycleState
from framework.interface.status import Code, Status
from framework.runtime.framework import Framework
from framework.scheduler.scheduler import Scheduler
from framework.trace import Recorder
from framework.util.clock import RealClock
from playground.clusters.connecting import api_client
from playground.clusters.live_cluster import LiveCluster
from playground.clusters.live_writes import LiveWrites
from playground.clusters.models import ClusterConnection
from playground.clusters.problems import describe
from playground.clusters.second_scheduler import still_leads
from playground.metrics.families import BINDING_DURATION_SECONDS
from playground.metrics.workspace_metrics import WorkspaceMetrics
from playground.scheduling import lease
from playground.scheduling.plugins import playground_registry
from playground.workspaces.cluster import DatabaseCluster, PodKey
from playground.workspaces.models import KubeEvent, SchedulerCommand, Workspace
from playground.workspaces.services import SchedulerSettings, revision_settings

BINDING_FINISHED = SchedulerCommand.BINDING_FINISHED
"""The SchedulerCommand kind a binding task reports with."""
LOST_LEASE = "the scheduler that started this binding cycle no longer holds the lease"
SECOND_SCHEDULER_OFF = "the second scheduler was turned off: the pod is not bound"
LANES = 8
"""Threads a batch of the second scheduler's binds is split over: its requests wait on the API
server, not on the processor, so they overlap (kube-scheduler binds each pod in a goroutine of
its own)."""
BINDERS_KEPT = 8 * LANES
"""Binding schedulers kept per thread (one per workspace and configuration revision, and per
lane for a linked workspace)."""
_LANE_THREADS = ThreadPoolExecutor(max(LANES - 1, 1), thread_name_prefix="binding-lane")
"""The threads of the lanes after the first (which runs on the task's own thread)."""

Lane = tuple[Scheduler, list["_Cycle"]]
"""A binding scheduler and the cycles it binds."""

_CODES = {str(code): code for code in Code}


@dataclass(frozen=True, slots=True)
class BindingRequest:
    """What a binding task needs, all of it JSON: which pod goes where, under which lease."""

    workspace_id: int
    generation: int
    namespace: str
    name: str
    uid: str
    node: str
    profile: str
    revision: int | None = None
    """The configuration revision the service runs (None: the default configuration)."""
    connection_id: int | None = None
    """For a workspace standing for a live cluster: the connection to bind through."""
    identity: str = ""
    """The identity the service leads the cluster's Lease with (the second scheduler)."""
    lease: str = ""
    """That Lease, ``namespace/name``."""
    sent_at: float = 0.0
    """Unix time the service sent the request (playground_binding_duration_seconds)."""

    @property
    def pod_key(self) -> tuple[str, str]:
        return self.namespace, self.name

    def to_json(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> BindingRequest:
        return cls(**data)


def status_to_json(status: Status | None) -> dict[str, Any] | None:
    if status is None or status.is_success():
        return None
    return {"code": str(status.code), "reasons": status.all_reasons(), "plugin": status.plugin}


def status_from_json(data: dict[str, Any] | None) -> Status | None:
    if not data:
        return None
    status = Status(_CODES.get(data.get("code", ""), Code.ERROR), *data.get("reasons", []))
    return status.with_plugin(data.get("plugin", ""))


# ----------------------------------------------------------------------------------------------
# The task's side


def run_bindings(requests: Sequence[BindingRequest]) -> list[SchedulerCommand]:
    """Binds a batch of pods; records and returns one outcome command per pod, in order.

    The pods of one lease generation are bound in one transaction that first checks the
    generation and holds the lease row to the end, so a successor that took over meanwhile
    (and rebuilt from the database, where the pods are still pending) never sees a binding
    land behind its back. Each pod's Bind is checked and answered on its own, as the API
    server answers each Binding; PostBind runs once the binds are committed.
    """
    outcomes: list[SchedulerCommand] = []
    for group in _by_lease(requests):
        outcomes.extend(_run_group(group))
    return _record(outcomes)


def _record(outcomes: list[SchedulerCommand]) -> list[SchedulerCommand]:
    """Stores the outcomes of the workspaces that still exist: one deleted while its pods were
    being bound has nobody to tell (and its rows would break the insert). The workspaces are
    locked until the insert, so a deletion cannot slip in between."""
    with transaction.atomic():
        alive = _kept_from_deletion({outcome.workspace_id for outcome in outcomes})
        return SchedulerCommand.objects.bulk_create(
            [outcome for outcome in outcomes if outcome.workspace_id in alive]
        )


def _kept_from_deletion(ids: set[int]) -> set[int]:
    """Those of the workspaces that exist, locked against deletion to the transaction's end.

    On PostgreSQL the lock is ``FOR KEY SHARE``, the one an insert's foreign-key check takes:
    it keeps a deletion out but waits for no writer of the workspace's objects (a mirror
    writing a burst holds the row ``FOR NO KEY UPDATE``). SQLite orders writers itself."""
    if not ids or connection.vendor != "postgresql":
        return set(Workspace.objects.filter(pk__in=ids).values_list("pk", flat=True))
    table = connection.ops.quote_name(Workspace._meta.db_table)
    with connection.cursor() as cursor:
        cursor.execute(f"SELECT id FROM {table} WHERE id = ANY(%s) FOR KEY SHARE", [list(ids)])
        return {row[0] for row in cursor.fetchall()}


def _by_lease(requests: Sequence[BindingRequest]) -> list[list[BindingRequest]]:
    """The requests grouped by workspace, generation, revision and connection, in order."""
    groups: dict[tuple[Any, ...], list[BindingRequest]] = {}
    for request in requests:
        key = (
            request.workspace_id,
            request.generation,
            request.revision,
            request.connection_id,
            request.identity,
            request.lease,
        )
        groups.setdefault(key, []).append(request)
    return list(groups.values())


@dataclass(slots=True)
class _Cycle:
    """One pod's Bind and PostBind: what they ran with and what they reported."""

    request: BindingRequest
    recorder: Recorder = field(default_factory=Recorder)
    state: CycleState = field(default_factory=CycleState)
    framework: Framework | None = None
    pod: Pod | None = None
    status: Status | None = None


def _run_group(requests: list[BindingRequest]) -> list[SchedulerCommand]:
    first = requests[0]
    if _workspace_gone(first.workspace_id):
        return []
    if first.connection_id is not None:
        return [_outcome(cycle) for cycle in _bind_in_cluster(requests)]
    cycles = [_Cycle(request) for request in requests]
    binder = _binder(first.workspace_id, first.revision)
    try:
        with transaction.atomic():
            if lease.holds(first.workspace_id, first.generation):
                _bind_all(binder, cycles)
            elif _workspace_gone(first.workspace_id):
                return []
            else:
                for cycle in cycles:
                    cycle.status = Status(Code.ERROR, LOST_LEASE)
    except DatabaseError as err:  # nothing of the batch was written
        for cycle in cycles:
            cycle.status = Status(Code.ERROR, f"binding failed: {err}")
    for cycle in cycles:
        if cycle.status is None and cycle.framework is not None:
            _post_bind(cycle)
    return [_outcome(cycle) for cycle in cycles]


def _bind_in_cluster(requests: list[BindingRequest]) -> list[_Cycle]:
    """The second scheduler's binds: through the API server, once the fence holds.

    The fence: the lease generation the requests were sent under is still the service's, the
    connection still links the workspace with its second scheduler on, and the cluster Lease
    still names the identity the service led with. Otherwise no pod is bound and each goes
    back to the queue (its binding cycle fails). The API server itself refuses to bind a pod
    twice (409), so a bind racing a takeover cannot bind twice either.

    The pods are read once, then bound in ``LANES`` lanes side by side, each through a binder
    and client of its own; the events are sent once every bind is done, and stored here.
    """
    first = requests[0]
    cycles = [_Cycle(request) for request in requests]
    connection = ClusterConnection.objects.filter(
        pk=first.connection_id, workspace_id=first.workspace_id, second_scheduler=True
    ).first()
    why = "" if connection is not None else SECOND_SCHEDULER_OFF
    if not why and not lease.holds(first.workspace_id, first.generation):
        why = LOST_LEASE
    if why:
        return _failed(cycles, why)
    try:
        binders = _live_binders(connection, first.workspace_id, first.revision)
    except Exception as err:  # a key or kubeconfig problem: its message names no secret
        return _failed(cycles, f"the connection cannot be used: {describe(err)}")
    why = still_leads(binders[0].cluster.writes.client, first.lease, first.identity)
    if why:
        return _failed(cycles, why)
    pods = binders[0].cluster.pods_named(c.request.pod_key for c in cycles)
    lanes = [(binder, cycles[i :: len(binders)]) for i, binder in enumerate(binders)]
    lanes = [(binder, lane) for binder, lane in lanes if lane]
    try:
        _on_lanes(lambda binder, lane: _bind_lane(binder, lane, pods), lanes)
    finally:  # the binds made stand, so do their events
        sent = _on_lanes(lambda binder, _: binder.cluster.send_held_events(), lanes)
        KubeEvent.objects.bulk_create(row for rows in sent for row in rows)
    return cycles


def _on_lanes(work: Callable[[Scheduler, list[_Cycle]], Any], lanes: list[Lane]) -> list[Any]:
    """``work`` on each lane, the lanes side by side (the first on the calling thread); returns
    once every lane is done, also when one raised."""
    others = [_LANE_THREADS.submit(work, *lane) for lane in lanes[1:]]
    try:
        first = work(*lanes[0])
    finally:
        wait(others)
    return [first, *(future.result() for future in others)]


def _bind_lane(binder: Scheduler, cycles: list[_Cycle], pods: dict[PodKey, Pod]) -> None:
    """Bind and PostBind of each cycle in turn, through the lane's own binder."""
    with binder.cluster.binding_lane(pods):
        for cycle in cycles:
            cycle.status = _bind(binder, cycle, pods.get(cycle.request.pod_key))
            if cycle.status is None and cycle.framework is not None:
                _post_bind(cycle)


def _failed(cycles: list[_Cycle], why: str) -> list[_Cycle]:
    for cycle in cycles:
        cycle.status = Status(Code.ERROR, why)
    return cycles


def _workspace_gone(workspace_id: int) -> bool:
    """Deleted since the service sent the requests: nobody is left to hear their outcomes."""
    return not Workspace.objects.filter(pk=workspace_id).exists()


def _bind_all(binder: Scheduler, cycles: list[_Cycle]) -> None:
    with binder.cluster.binding_batch(c.request.pod_key for c in cycles) as pods:
        for cycle in cycles:
            cycle.status = _bind(binder, cycle, pods.get(cycle.request.pod_key))


def _bind(binder: Scheduler, cycle: _Cycle, stored: Pod | None) -> Status | None:
    request = cycle.request
    framework = binder.profiles.get(request.profile)
    if framework is None:
        return Status.error(f'profile not found for scheduler name "{request.profile}"')
    if stored is None:
        return Status.error(f'pods "{request.name}" not found')
    cycle.pod = stored.deep_copy()
    cycle.pod.spec.node_name = request.node
    framework.observer = cycle.recorder
    try:
        status = binder.bind(framework, cycle.state, cycle.pod, request.node)
    finally:
        framework.observer = None
    if status is None or status.is_success():
        cycle.framework = framework
        return None
    return status


def _post_bind(cycle: _Cycle) -> None:
    framework = cycle.framework
    framework.observer = cycle.recorder
    try:
        framework.run_post_bind_plugins(cycle.state, cycle.pod, cycle.request.node)
    finally:
        framework.observer = None


def _outcome(cycle: _Cycle) -> SchedulerCommand:
    request = cycle.request
    if request.sent_at:
        result = "success" if cycle.status is None or cycle.status.is_success() else "error"
        BINDING_DURATION_SECONDS.labels(str(request.workspace_id), result).observe(
            max(0.0, time.time() - request.sent_at)
        )
    payload = {
        "uid": request.uid,
        "node": request.node,
        "generation": request.generation,
        "status": status_to_json(cycle.status),
        "events": [event.to_dict() for event in cycle.recorder.events],
    }
    return SchedulerCommand(
        workspace_id=request.workspace_id, kind=BINDING_FINISHED, payload=payload
    )


class _Binders(threading.local):
    """Schedulers that only bind, built once per thread, workspace and configuration (and, for
    the second scheduler, connection and credentials: their client's connections to the API
    server are kept open for the next batch, as kube-scheduler keeps its client's)."""

    def __init__(self) -> None:
        self.by_key: OrderedDict[tuple[Any, ...], Scheduler] = OrderedDict()

    def get(self, key: tuple[Any, ...], build: Callable[[], Scheduler]) -> Scheduler:
        binder = self.by_key.get(key)
        if binder is None:
            binder = self.by_key[key] = build()
            while len(self.by_key) > BINDERS_KEPT:
                _, dropped = self.by_key.popitem(last=False)
                if isinstance(dropped.cluster, LiveCluster):
                    dropped.cluster.writes.client.close()
        self.by_key.move_to_end(key)
        return binder


_binders = _Binders()


def _binder(workspace_id: int, revision: int | None) -> Scheduler:
    def build() -> Scheduler:
        return _binding_scheduler(
            revision_settings(workspace_id, revision), DatabaseCluster(workspace_id), workspace_id
        )

    return _binders.get((workspace_id, revision), build)


def _binding_scheduler(settings: SchedulerSettings, cluster: Any, workspace_id: int) -> Scheduler:
    """A scheduler for Bind and PostBind, with the revision's configuration and feature gates
    (a revision never changes, so the gates of the service that sent the request); its Bind and
    PostBind timings go to the workspace's exported metrics."""
    return Scheduler.from_configuration(
        settings.cfg,
        cluster,
        playground_registry(settings.features),
        features=settings.features,
        metrics=WorkspaceMetrics(workspace_id),
    )


def _live_binders(
    connection: ClusterConnection, workspace_id: int, revision: int | None
) -> list[Scheduler]:
    """The binding schedulers of a linked workspace, one per lane, each writing through a
    client of its own to the connection's cluster (new ones when the connection's
    credentials changed)."""
    credentials = (
        connection.in_cluster,
        connection.kubeconfig_encrypted,
        connection.context,
    )
    key = (workspace_id, revision, connection.pk, credentials)
    settings: SchedulerSettings | None = None

    def build() -> Scheduler:
        nonlocal settings
        settings = settings or revision_settings(workspace_id, revision)
        cluster = LiveCluster(workspace_id, LiveWrites(api_client(connection), RealClock()))
        return _binding_scheduler(settings, cluster, workspace_id)

    return [_binders.get((*key, lane), build) for lane in range(LANES)]
