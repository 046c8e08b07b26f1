"""The scheduler service: one workspace's kube-scheduler, fed from the database.

A service holds the workspace's SchedulerLease, builds the engine's Scheduler from the current
configuration and the database (as a restarted kube-scheduler lists its informers), and then
advances in ticks (``tick()``), each of which:

1. renews the lease, and stops if another worker took it over or the workspace is gone;
2. delivers the change log written since the last tick to the scheduler as watch events;
3. executes SchedulerCommands: pause, resume, apply-configuration, allow / reject a pod
   waiting at Permit, and binding-finished (a binding task's outcome);
4. unless paused, runs up to ``cycles_per_tick`` scheduling cycles (a pod group's cycle that
   only repeats earlier attempts, a failed gang's retry, ends the tick's cycles);
5. stores and broadcasts the queue, waiting pods and node usage when they changed (looking
   every ``status_interval``, and at once after a command or when a tick finds nothing left
   to do after a busy one).

Every attempt is stored with its full trace and the revision the scheduler ran it under (see
``attempts``). Binding cycles run here up to PreBind; Bind and PostBind go to
``run_binding_cycles`` tasks (see ``binding``), one task for the pods that reached Bind in a
stretch of at most ``binding_batch`` scheduling cycles (and at the end of every tick), so a
burst of pods costs a few tasks and transactions, not one each.
Time comes from the injected clock, so tests drive permit timeouts, backoff and lease expiry
with a FakeClock.

Commands (SchedulerCommand ``kind`` and ``payload``; the outcome is written to ``outcome``):

- ``pause`` / ``resume`` (no payload): stop / restart scheduling cycles; ``Workspace.paused``
  follows.
- ``apply-configuration`` ``{"revision": n}`` (default: the latest revision): rebuild the
  scheduler with it (its configuration and its feature gates), once the bindings out have
  reported; an invalid one is not applied. The revision and gates the scheduler runs with are
  stored in ``SchedulerStatus`` for the pages.
- ``allow`` ``{"uid": ..., "plugin": name}``: allow a pod waiting at Permit for that plugin, or
  for all its pending plugins without ``plugin``.
- ``reject`` ``{"uid": ..., "plugin": name, "message": text}`` (both optional): reject it.
- ``binding-finished`` (written by binding tasks): ``{"uid", "node", "generation", "status":
  null | {"code", "reasons", "plugin"}, "events": [trace events]}``.
- ``stop`` (no payload): the service ends, and releases its lease; commands after it are left
  to the next service. Sent before the workspace is deleted (``workspace_deletion``).
- ``breakpoints`` (no payload): read the workspace's breakpoints again (the debugger).
- ``debug`` ``{"command", "stop", "pace"}``: answers a debugger stop; executed by the stop itself
  (``stops``), and answered "ignored" here, where no stop waits for it.

A workspace linked to a live cluster's connection (``playground.clusters.second_scheduler``)
schedules only while the connection's second scheduler switch is on and the service leads the
cluster's Lease; its writes then go to the API server (``LiveInformerCluster``), and otherwise it
is on standby, the reason stored in ``SchedulerStatus.standby`` for the pages.

While the workspace has breakpoints, a scheduling cycle may stop at one: the service's thread
then waits inside the cycle (``stops.StopController``) until a ``debug`` command answers.
"""

from __future__ import annotations

import contextlib
import logging
import threading
import time
from collections import defaultdict
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from django.conf import settings
from django.db import close_old_connections

from framework.api.pod import Pod
from framework.debugger.breakpoints import Breakpoint as EngineBreakpoint
from framework.debugger.breakpoints import BreakpointError
from framework.debugger.session import Debugger
from framework.interface.status import Code, Status
from framework.runtime.framework import Framework
from framework.runtime.registry import Registry
from framework.trace import FanOut, Observer, TraceEvent
from framework.util.clock import Clock, RealClock
from playground.clusters.leader import ElectionConfig
from playground.clusters.problems import describe
from playground.clusters.second_scheduler import SecondScheduler, Switches, linked_switches
from playground.live import broadcast
from playground.metrics.history import Sampler
from playground.metrics.workspace_metrics import WorkspaceMetrics
from playground.scheduling import lease, status
from playground.scheduling.attempts import AttemptRecorder
from playground.scheduling.binding import BINDING_FINISHED, BindingRequest, status_from_json
from playground.scheduling.informer import InformerCluster
from playground.scheduling.live_trace import LiveTrace
from playground.scheduling.permit_decisions import PermitDecisions
from playground.scheduling.plugins import playground_registry
from playground.scheduling.scheduler import (
    DiscardExecutor,
    PlaygroundScheduler,
    ServiceThreadExecutor,
)
from playground.scheduling.stops import StopController
from playground.workspaces.models import (
    Breakpoint,
    SchedulerCommand,
    SchedulerStatus,
    SchedulingAttempt,
    Workspace,
)
from playground.workspaces.services import SchedulerSettings, default_settings, revision_settings

logger = logging.getLogger(__name__)

CYCLES_PER_TICK = 100
"""Scheduling cycles at most between two looks at the change log and the commands (a tick of
them takes 0.1-0.4 s at 5,000 nodes: a command waits no longer than that)."""
STATUS_INTERVAL = 0.5
"""Seconds between two publications of the queue and node usage."""
SIZES_INTERVAL = 2.0
"""Seconds between two samples of the queue sizes chart."""
BINDING_TIMEOUT = 120.0
"""Seconds a binding task may take to report before its pod is requeued."""
BINDING_BATCH = 100
"""Pods at most per binding task. Each task pays for its fence (the lease, the connection, the
cluster's Lease) and its outcomes' round trip once: with batches of 100 instead of 25 (and
ticks of 100 cycles instead of 50) the second scheduler bound a queued burst of 1,000 pods at
199 pods/s instead of 127-163 (README, "Where a burst's time goes")."""

Dispatch = Callable[[list[BindingRequest]], None]
"""Sends a batch of binding requests to a binding task: the tasks module hands in its own
sender (it imports this module, so this one cannot import it), tests a recorder."""


class ServiceStopped(Exception):
    """The service no longer holds its lease (or its workspace is gone)."""


@dataclass(slots=True)
class _Binding:
    """A pod whose Bind was sent to a binding task, and how to end its binding cycle."""

    pod: Pod
    node: str
    sent: float
    done: Callable[[Status | None], None]


class SchedulerService:
    """One workspace's scheduler, advanced by ``tick()`` while it holds the lease."""

    def __init__(
        self,
        workspace_id: int,
        holder: str,
        *,
        clock: Clock | None = None,
        task_id: str = "",
        registry: Registry | None = None,
        dispatch: Dispatch,
        cycles_per_tick: int = CYCLES_PER_TICK,
        status_interval: float = STATUS_INTERVAL,
        binding_batch: int = BINDING_BATCH,
        background_writes: bool = True,
    ) -> None:
        self.workspace_id = workspace_id
        self.holder = holder
        self.clock: Clock = clock or RealClock()
        self.task_id = task_id
        self.registry = registry
        """The plugins to build profiles from; None: the playground's, for the revision's gates."""
        self.dispatch = dispatch
        self.cycles_per_tick = cycles_per_tick
        self.status_interval = status_interval
        self.binding_batch = binding_batch
        self.lease_seconds = float(settings.SCHEDULER_LEASE_SECONDS)
        self.generation: int | None = None
        self.scheduler: PlaygroundScheduler | None = None
        self.cluster: InformerCluster | None = None
        self.revision: int | None = None
        self.paused = False
        self.bindings: dict[str, _Binding] = {}
        self._unsent: list[BindingRequest] = []
        """Binding requests of this tick not sent yet (see ``_send_bindings``)."""
        self.recorder = AttemptRecorder(workspace_id, background=background_writes)
        self.metrics = WorkspaceMetrics(workspace_id)
        """kube-scheduler's metrics of this workspace, exported to /metrics as they change."""
        self.history = Sampler(workspace_id)
        """Stores the workspace's /metrics series now and then, for the Metrics tab."""
        self.live = LiveTrace(workspace_id, self.clock)
        """Streams each extension point to the pages that watch (see ``_follow_watches``)."""
        self.permit_decisions = PermitDecisions(self._waiting_pod)
        """A person's Allow / Reject, each taken once (two browsers may click at once)."""
        self._watching = False
        self.executor = ServiceThreadExecutor()
        self.cycles = 0
        """Scheduling cycles run since the service started."""
        self._renewed = 0.0
        self._published = float("-inf")
        self._sampled = float("-inf")
        self._sizes: list[list[float]] = []
        self._node_usage: list[dict[str, Any]] | None = None
        self._usage = status.NodeUsage()
        self._broadcast: tuple[dict[str, Any], bool] | None = None
        """The queue and paused flag last broadcast: the same again is not sent."""
        self._cluster_changed = False
        """Changes were delivered since the last broadcast (the overview counts objects)."""
        self._apply_waits = False
        self.busy = False
        """Whether the last tick had anything to do (the loop sleeps after an idle one)."""
        self.stop_requested = False
        """A ``stop`` command was executed: the service ends after this tick."""
        self.stops = StopController(self)
        self.debugger = Debugger([], self.stops)
        self._bound_events: list[dict[str, Any]] = []
        """Bind / PostBind events from binding tasks, for the debugger (see below)."""
        """Observes the frameworks only while the workspace has breakpoints (docs/debugger.md)."""
        self.second: SecondScheduler | None = None
        """The second scheduler's side, while a connection links the workspace to a cluster."""
        self._switches: Switches | None = None
        self._standby = ""
        self._standby_stored: str | None = None
        """The standby reason the pages read (None: not read from the database yet)."""

    # ------------------------------------------------------------------------------------------
    # Lease

    def start(self) -> bool:
        """Takes the lease and builds the scheduler; False when another worker holds the lease."""
        self.executor.adopt_current_thread()
        self.generation = lease.acquire(
            self.workspace_id, self.holder, self._now(), self.lease_seconds, self.task_id
        )
        if self.generation is None:
            return False
        self._renewed = self.clock.now()
        self._link(linked_switches(self.workspace_id))
        stored = SchedulerStatus.objects.filter(workspace_id=self.workspace_id)
        self._standby_stored = stored.values_list("standby", flat=True).first() or ""
        self.rebuild()
        self.announce()
        # The tab's first window then starts from where this scheduler started counting.
        self.history.sample()
        return True

    def stop(self, release: bool = True) -> None:
        """Ends the service; ``release`` gives the lease up so a successor starts at once."""
        self._replace_scheduler()
        self.metrics.clear_gauges()
        self.recorder.close()
        if self.second is not None:
            self.second.stop()
        if release and self.generation is not None:
            lease.release(self.workspace_id, self.holder, self.generation, self._now())
            self.announce()
        # Last: the Metrics tab's final sample is not worth a stop left half done.
        try:
            self.history.sample()
        except Exception:
            logger.exception("workspace %s: the last metrics sample failed", self.workspace_id)

    def renew_lease(self) -> bool:
        """Renews the lease once a third of it has passed: often enough never to let it lapse."""
        now = self.clock.now()
        if now - self._renewed < self.lease_seconds / 3:
            return True
        renewed = lease.renew(
            self.workspace_id, self.holder, self.generation or 0, self._now(), self.lease_seconds
        )
        if renewed:
            self._renewed = now
        return renewed

    # ------------------------------------------------------------------------------------------
    # Building the scheduler from the database

    def rebuild(
        self, settings: SchedulerSettings | None = None, revision: int | None = None
    ) -> None:
        """A new scheduler from ``settings`` (default: the workspace's current revision's) and
        the database, as kube-scheduler starts: list everything, then follow the changes."""
        workspace = Workspace.objects.get(pk=self.workspace_id)
        if settings is None:
            settings, revision = self._current_settings(workspace)
        self._replace_scheduler()
        self.recorder.configuration_revision = revision or SchedulingAttempt.DEFAULT_CONFIGURATION
        if self.second is not None:
            cluster = self.second.cluster(self.recorder.add_victim)
        else:
            cluster = InformerCluster(self.workspace_id, self.recorder.add_victim)
        scheduler = PlaygroundScheduler.from_configuration(
            settings.cfg,
            cluster,
            self.registry or playground_registry(settings.features),
            clock=self.clock,
            observer=self.recorder,
            on_attempt=self.recorder.on_attempt,
            features=settings.features,
            metrics=self.metrics,
        )
        scheduler.binding_executor = self.executor
        scheduler.dispatch_binding = self._dispatch_binding
        if self._switches is not None and not self._switches.preemption:
            for framework in scheduler.profiles.values():
                framework.post_filter_plugins = []  # no victims are deleted for real
        with cluster.consistent_read():
            cluster.sync()
            scheduler.start()
        scheduler.queue.run()
        self.scheduler, self.cluster, self.revision = scheduler, cluster, revision
        self._record_running(revision, settings)
        self.paused = workspace.paused
        self.debugger.scheduler = self.live.scheduler = scheduler
        self._watching = self.live.refresh(force=True)
        self._read_breakpoints()
        self._forget_lost_stop()
        self.stops.forget_play()
        self._sizes = self._stored_sizes()
        self._publish(force=True)

    def _current_settings(self, workspace: Workspace) -> tuple[SchedulerSettings, int | None]:
        current = workspace.current_configuration()
        if current is None:
            return default_settings(), None
        try:
            return revision_settings(self.workspace_id, current.revision), current.revision
        except ValueError:
            logger.exception("workspace %s: revision %s is invalid", workspace, current.revision)
            return default_settings(), None

    def _record_running(self, revision: int | None, settings: SchedulerSettings) -> None:
        """Stores which revision and feature gates the scheduler now runs with, and tells the
        pages when that changed (the profile page shows it)."""
        running = {"revision": revision, "feature_gates": settings.features.to_string()}
        stored = SchedulerStatus.objects.filter(workspace_id=self.workspace_id)
        if stored.values("revision", "feature_gates").first() == running:
            return
        SchedulerStatus.objects.update_or_create(workspace_id=self.workspace_id, defaults=running)
        self.announce()

    def _replace_scheduler(self) -> None:
        """Lets go of the current scheduler: pods waiting at Permit stop waiting, quietly."""
        old = self.scheduler
        if old is None:
            return
        self.scheduler = None
        old.binding_executor = DiscardExecutor()
        framework = next(iter(old.profiles.values()), None)
        if framework is not None:
            for waiting in framework.waiting_pods:
                waiting.reject("", "the scheduler was rebuilt")
        self.recorder.abandon_open("the scheduler was rebuilt while the pod waited at Permit")
        self.bindings.clear()
        self._unsent.clear()

    # ------------------------------------------------------------------------------------------
    # The second scheduler (a workspace standing for a live cluster)

    def schedules_for_real(self) -> bool:
        """An ordinary workspace always schedules; a linked one only as the cluster's leader
        with its connection's switch on."""
        if self._switches is None:
            return True
        return self.second is not None and self.second.active

    def _follow_connection(self) -> None:
        """Reads the linked connection's switches (every tick: turning the second scheduler
        off stops the next cycle) and the cluster Lease. Losing the right to schedule rebuilds
        the scheduler from the database, as a restarted kube-scheduler: pods waiting at
        Permit go back to the queue and no binding sent before is honoured (the binding
        tasks' fence); a change of the preemption switch rebuilds it too."""
        switches = linked_switches(self.workspace_id)
        linked = self._switches.connection_id if self._switches else None
        if (switches.connection_id if switches else None) != linked:
            self._link(switches)
            self.rebuild(self._settings_in_use(), self.revision)
        if self.second is None or switches is None:
            self._set_standby(self._standby if switches else "")
            return
        was_active, preemption = self.second.active, self._switches.preemption
        self._switches = switches
        active = self.second.tick(switches)
        if (was_active and not active) or preemption != switches.preemption:
            self.rebuild(self._settings_in_use(), self.revision)
        self._set_standby(self.second.standby)

    def _link(self, switches: Switches | None) -> None:
        """Follows a new connection (or none); a connection whose credentials cannot be used
        leaves the workspace on standby, saying why."""
        if self.second is not None:
            self.second.stop()
            self.second = None
        self._switches = switches
        self._standby = ""
        if switches is None:
            return
        try:
            workspace = Workspace.objects.get(pk=self.workspace_id)
            settings, _ = self._current_settings(workspace)
            election = ElectionConfig.from_configuration(settings.cfg)
            self.second = SecondScheduler(self.workspace_id, switches, self.clock, election)
        except Exception as err:  # undecryptable or refused kubeconfig: messages name no secret
            logger.warning("workspace %s: the connection cannot be used", self.workspace_id)
            self._standby = f"standby: the connection cannot be used: {describe(err)}"

    def _set_standby(self, reason: str) -> None:
        """Stores why the service does not schedule ("" when it does) for the pages."""
        self._standby = reason
        if reason == self._standby_stored:
            return
        self._standby_stored = reason
        SchedulerStatus.objects.update_or_create(
            workspace_id=self.workspace_id, defaults={"standby": reason}
        )
        self.announce()

    # ------------------------------------------------------------------------------------------
    # The loop

    def tick(self) -> bool:
        """One round of work; False once the service must stop (it lost its lease, or a
        ``stop`` command came)."""
        if self.scheduler is None:
            raise ServiceStopped("the service was not started")
        if not self.renew_lease():
            self._announce_lost()
            return False
        self._follow_connection()
        self.stops.interrupted = False
        self.executor.run_pending()
        changes = self.cluster.dispatch_changes()
        outcomes, commands = self._execute_commands()
        if self.stop_requested:
            return False
        self._show_binding_events_to_the_debugger()
        self._expire_bindings()
        cycles, mark = 0, self.recorder.progress()
        if (
            not self.paused
            and not self._apply_waits
            and not self.stops.interrupted
            and self.schedules_for_real()
        ):
            cycles = self._run_cycles()
        self._send_bindings()
        # Cycles that only repeated earlier attempts (a failed gang retried over and over) do
        # not keep the service from resting between ticks.
        worked = cycles and not self.recorder.only_repeated_since(mark)
        was_busy, self.busy = self.busy, bool(changes or outcomes or commands or worked)
        self._cluster_changed = self._cluster_changed or bool(changes)
        self.recorder.flush()
        self.metrics.publish_gauges()
        self.history.tick()
        self._follow_watches()
        # What a person asked for shows at once, and so does the state a burst of work ends in.
        self._publish(force=bool(commands) or (was_busy and not self.busy))
        return True

    def run(self, stop: threading.Event, poll_seconds: float = 0.1) -> str:
        """Ticks until the lease is lost or ``stop`` is set; returns why it ended.

        An unexpected error rebuilds the scheduler from the database (its state may be half
        changed); if that fails too, the service ends and the lease lapses to a successor.
        """
        self.stops.halt = stop
        while not stop.is_set():
            try:
                if not self.tick():
                    return "stopped by a command" if self.stop_requested else "lost the lease"
            except Exception:
                close_old_connections()
                if not Workspace.objects.filter(pk=self.workspace_id).exists():
                    return "the workspace is gone"
                logger.exception("scheduler service of workspace %s failed", self.workspace_id)
                try:
                    self.rebuild(self._settings_in_use(), self.revision)
                except Exception:
                    logger.exception("rebuilding the scheduler of %s failed", self.workspace_id)
                    return "failed"
                self.busy = False
            if not self.busy:
                stop.wait(poll_seconds)
        return "stopped"

    def _run_cycles(self) -> int:
        queue = self.scheduler.queue
        cycles = 0
        while cycles < self.cycles_per_tick and not self.stops.interrupted:
            queue.run_periodic()
            mark = self.recorder.progress()
            if not self.scheduler.schedule_one():
                break
            cycles += 1
            if self.recorder.only_repeated_since(mark) and self._in_a_pod_group(
                self.recorder.last_repeated
            ):
                break  # a failed gang's retry: the next waits for the next tick
            self.executor.run_pending()  # binding cycles a debugger stop held back
            if len(self._unsent) >= self.binding_batch:
                self._send_bindings()
        self.cycles += cycles
        return cycles

    def _in_a_pod_group(self, pod_key: str) -> bool:
        """Whether the pod is a pod group's member: a failed group is retried without pause,
        so its repeats are paced; other pods' repeats come after a backoff anyway, and many of
        them at once (a node added) keep the tick's full pace."""
        namespace, _, name = pod_key.partition("/")
        pod = self.scheduler.cluster.get("Pod", name, namespace)
        return pod is not None and bool(pod.spec.pod_group_name)

    # ------------------------------------------------------------------------------------------
    # Commands

    def _execute_commands(self) -> tuple[int, int]:
        """Executes pending commands: binding outcomes first, then the others in order.

        An apply waits while bindings are out (their outcomes belong to the scheduler that
        sent them), and the commands after it wait with it, so they keep their order. Returns
        how many binding outcomes and how many other commands were executed.
        """
        pending = list(
            SchedulerCommand.objects.filter(
                workspace_id=self.workspace_id, done_at__isnull=True
            ).order_by("id")
        )
        bindings = [c for c in pending if c.kind == BINDING_FINISHED]
        others = [c for c in pending if c.kind != BINDING_FINISHED]
        # The commands executed, by outcome: most binding outcomes read "bound", so a few
        # plain updates mark them all done.
        done: dict[str, list[int]] = defaultdict(list)
        outcomes = executed = 0
        self._apply_waits = False
        for command in [*bindings, *others]:
            if command.kind == SchedulerCommand.APPLY_CONFIGURATION and self.bindings:
                self._apply_waits = True
                break
            done[self.execute(command.kind, command.payload or {})].append(command.pk)
            outcomes += command.kind == BINDING_FINISHED
            executed += 1
            if self.stop_requested:
                break
        now = self._now()
        for outcome, ids in done.items():
            SchedulerCommand.objects.filter(pk__in=ids).update(done_at=now, outcome=outcome)
        return outcomes, executed - outcomes

    def execute(self, kind: str, payload: dict[str, Any]) -> str:
        """Executes one command (not ``debug``: see ``stops``); returns its outcome."""
        handler = {
            SchedulerCommand.PAUSE: self._pause,
            SchedulerCommand.RESUME: self._resume,
            SchedulerCommand.APPLY_CONFIGURATION: self._apply_configuration,
            SchedulerCommand.ALLOW: self._allow,
            SchedulerCommand.REJECT: self._reject,
            BINDING_FINISHED: self._binding_finished,
            SchedulerCommand.STOP: self._stop,
            SchedulerCommand.BREAKPOINTS: self._breakpoints,
            SchedulerCommand.DEBUG: self._debug_without_a_stop,
        }.get(kind)
        if handler is None:
            return f"not supported: {kind}"
        try:
            return handler(payload)
        except (KeyError, TypeError, ValueError) as err:
            return f"invalid {kind} command: {err}"

    def mark_done(self, command: SchedulerCommand, outcome: str) -> None:
        command.done_at, command.outcome = self._now(), outcome
        command.save(update_fields=["done_at", "outcome"])

    def _breakpoints(self, payload: dict[str, Any]) -> str:
        count = self._read_breakpoints()
        return f"{count} breakpoint{'s' if count != 1 else ''} set"

    def _debug_without_a_stop(self, payload: dict[str, Any]) -> str:
        """A ``debug`` command that came after its stop ended (stops execute their own)."""
        named = payload.get("stop")
        return (
            f"ignored: the scheduler is no longer at stop {named}"
            if named
            else ("ignored: the scheduler is not stopped")
        )

    def _pause(self, payload: dict[str, Any]) -> str:
        self._set_paused(True)
        return "paused"

    def _resume(self, payload: dict[str, Any]) -> str:
        self._set_paused(False)
        return "resumed"

    def _stop(self, payload: dict[str, Any]) -> str:
        self.stop_requested = True
        return "stopped"

    def _set_paused(self, paused: bool) -> None:
        self.paused = paused
        Workspace.objects.filter(pk=self.workspace_id).update(paused=paused)
        self.announce()

    def _apply_configuration(self, payload: dict[str, Any]) -> str:
        """Rebuilds the scheduler from the database with the configuration revision given
        (default: the latest); an invalid revision is not applied."""
        revision = payload.get("revision")
        if revision is None:
            current = Workspace.objects.get(pk=self.workspace_id).current_configuration()
            revision = current.revision if current is not None else None
        try:
            settings = revision_settings(self.workspace_id, revision)
        except Exception as err:
            return f"not applied: revision {revision}: {err}"
        self.rebuild(settings, revision)
        return f"applied revision {revision}" if revision else "applied the default configuration"

    def _allow(self, payload: dict[str, Any]) -> str:
        """Allows a waiting pod for one plugin (``plugin``) or for all its pending plugins."""
        return self.permit_decisions.allow(payload["uid"], payload.get("plugin") or "")

    def _reject(self, payload: dict[str, Any]) -> str:
        """Rejects a waiting pod, in the name of one plugin (``plugin``) or its first pending."""
        plugin, message = payload.get("plugin") or "", payload.get("message") or ""
        return self.permit_decisions.reject(payload["uid"], plugin, message)

    def _waiting_pod(self, uid: str) -> Any:
        framework = next(iter(self.scheduler.profiles.values()))
        return framework.get_waiting_pod(uid)

    # ------------------------------------------------------------------------------------------
    # Observers: the recorder always, the debugger and the live stream only when needed

    def _read_breakpoints(self) -> int:
        """The workspace's breakpoints, from the database; one no longer valid is skipped."""
        breakpoints: list[EngineBreakpoint] = []
        for stored in Breakpoint.objects.filter(workspace_id=self.workspace_id):
            try:
                breakpoints.append(stored.engine_breakpoint())
            except BreakpointError:
                logger.warning(
                    "workspace %s: breakpoint %s is invalid", self.workspace_id, stored.pk
                )
        self.debugger.breakpoints = breakpoints
        self._set_observers()
        return len(breakpoints)

    def _follow_watches(self) -> None:
        """Sends this tick's trace events to the pages that watch, and keeps the live stream
        among the observers only while someone watches (``live_trace``)."""
        self.live.flush(force=True)
        watching = self.live.refresh()
        if watching != self._watching:
            self._watching = watching
            self._set_observers()

    def _show_binding_events_to_the_debugger(self) -> None:
        """Bind and PostBind ran in a binding task; their events reach the debugger once the
        task reported (after the tick's commands, never while they are being executed), so a
        breakpoint there stops with the binder's result, the binding cycle's end waiting."""
        events, self._bound_events = self._bound_events, []
        for event in events:
            self.debugger.on_event(TraceEvent.from_dict(event))

    def _forget_lost_stop(self) -> None:
        """A stop a predecessor (or this service before a rebuild) left behind is over: its
        attempt went with the scheduler that made it; the pod itself is still pending."""
        note = "The scheduler was rebuilt: a stop under way was lost."
        lost = SchedulerStatus.objects.filter(workspace_id=self.workspace_id).exclude(stop=None)
        stale = lost.values_list("stop", flat=True).first()
        if stale is None:
            return
        lost.update(stop=None, debugger_note=note)
        uids = [stale["uid"]] if stale.get("uid") else []
        broadcast.send_stop(self.workspace_id, uids, None, note)

    def _set_observers(self) -> None:
        """Every profile reports to the recorder; to the live stream while a page watches; to
        the debugger (last, so a stop comes after the others heard of its event) while there
        are breakpoints. A workspace nobody watches and without breakpoints pays for neither:
        the engine does not even call them."""
        if self.scheduler is None:
            return
        extra: list[Observer] = []
        if self._watching:
            extra.append(self.live)
        if self.debugger.breakpoints:
            extra.append(self.debugger)
        observer = FanOut(self.recorder, *extra) if extra else self.recorder
        for framework in self.scheduler.profiles.values():
            framework.observer = observer
            if not self.debugger.breakpoints:
                # The debugger turns the per-node form on for the cycles a node breakpoint
                # concerns; without it nobody would turn it off again.
                framework.per_node = False

    # ------------------------------------------------------------------------------------------
    # Binding

    def _dispatch_binding(
        self, framework: Framework, pod: Pod, host: str, done: Callable[[Status | None], None]
    ) -> None:
        """Takes a pod's Bind over; its request leaves with the next batch."""
        self.bindings[pod.uid] = _Binding(pod, host, self.clock.now(), done)
        self._unsent.append(
            BindingRequest(
                workspace_id=self.workspace_id,
                generation=self.generation or 0,
                namespace=pod.namespace,
                name=pod.name,
                uid=pod.uid,
                node=host,
                profile=framework.profile_name(),
                revision=self.revision,
                connection_id=self.second.connection_id if self.second else None,
                identity=self.second.identity if self.second else "",
                lease=self.second.elector.describe() if self.second else "",
                sent_at=time.time(),
            )
        )

    def _send_bindings(self) -> None:
        """Sends the requests not sent yet to one binding task (called between scheduling
        cycles, never inside one)."""
        batch, self._unsent = self._unsent, []
        if not batch:
            return
        try:
            self.dispatch(batch)
        except Exception as err:  # the broker is down: the binding cycles fail at once
            logger.exception("sending the bindings of %d pods failed", len(batch))
            for request in batch:
                status = Status(Code.ERROR, f"sending the binding failed: {err}")
                self._finish_binding(request.uid, status)

    def _binding_finished(self, payload: dict[str, Any]) -> str:
        if payload.get("generation") != self.generation or payload["uid"] not in self.bindings:
            return "ignored: no such binding in progress"
        binding = self.bindings[payload["uid"]]
        self.recorder.add_events(binding.pod.key, payload.get("events") or [])
        self.live.add_events(binding.pod.key, payload.get("events") or [])
        if self.debugger.breakpoints:
            self._bound_events.extend(payload.get("events") or [])
        status = status_from_json(payload.get("status"))
        self._finish_binding(payload["uid"], status)
        return "bound" if status is None else f"failed: {status.message()}"

    def _finish_binding(self, uid: str, status: Status | None) -> None:
        binding = self.bindings.pop(uid, None)
        if binding is not None:
            binding.done(status)

    def _expire_bindings(self) -> None:
        now = self.clock.now()
        late = [uid for uid, b in self.bindings.items() if now - b.sent > BINDING_TIMEOUT]
        for uid in late:
            message = f"the binding task did not report within {BINDING_TIMEOUT:g} seconds"
            self._finish_binding(uid, Status(Code.ERROR, message))

    # ------------------------------------------------------------------------------------------
    # Publishing

    def publish_status(self) -> None:
        """Stores and broadcasts the queue, waiting pods and node usage now, if they changed."""
        self._publish(force=True)

    def _publish(self, force: bool = False) -> None:
        """Stores the status when it changed or the sizes were sampled, and broadcasts what
        changed: the queue (or paused flag, or the cluster), and node usage. Pages redraw
        what they receive, so an idle scheduler sends nothing."""
        now = self.clock.now()
        if not force and now - self._published < self.status_interval:
            return
        self._published = now
        bindings = {uid: (b.pod, b.node, b.sent) for uid, b in self.bindings.items()}
        queue = status.queue_document(self.scheduler, now, self.recorder.last_failure, bindings)
        sampled = now - self._sampled >= SIZES_INTERVAL
        if sampled:
            self._sampled = now
            self._sizes = [*self._sizes, status.sizes_sample(queue, now)][
                -status.QUEUE_SIZES_KEPT :
            ]
        news = self._cluster_changed or self._broadcast != (queue, self.paused)
        if news or sampled:
            document = {
                "queue": queue,
                "waiting_pods": queue["waiting"],
                "queue_sizes": self._sizes,
            }
            SchedulerStatus.objects.update_or_create(
                workspace_id=self.workspace_id, defaults=document
            )
        if news:
            self._broadcast, self._cluster_changed = (queue, self.paused), False
            broadcast.send_status(
                self.workspace_id,
                {
                    "queue": queue,
                    "waitingPods": queue["waiting"],
                    "queueSizes": self._sizes,
                    "paused": self.paused,
                },
            )
        usage = self._usage.of(self.scheduler)
        if usage is not self._node_usage and usage != self._node_usage:
            self._node_usage = usage
            broadcast.send_node_usage(self.workspace_id, usage)

    def _stored_sizes(self) -> list[list[float]]:
        stored = SchedulerStatus.objects.filter(workspace_id=self.workspace_id).first()
        return list(stored.queue_sizes) if stored is not None else []

    def announce(self) -> None:
        """Tells the pages that the scheduler's state changed (after writing it)."""
        broadcast.send_service_state(self.workspace_id)

    def _announce_lost(self) -> None:
        logger.warning("workspace %s: %s lost the scheduler lease", self.workspace_id, self.holder)
        self._replace_scheduler()

    # ------------------------------------------------------------------------------------------

    def _settings_in_use(self) -> SchedulerSettings:
        with contextlib.suppress(Exception):
            return revision_settings(self.workspace_id, self.revision)
        return default_settings()

    def _now(self) -> datetime:
        return datetime.fromtimestamp(self.clock.now(), tz=UTC)
