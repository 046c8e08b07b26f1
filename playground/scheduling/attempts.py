"""Every scheduling attempt the service makes, stored with its full trace and broadcast.

The recorder is the scheduler's observer (it keeps each pod's trace events until its attempt
is reported) and its ``on_attempt`` callback. A pod that waits at Permit is reported twice by
the engine, once as ``Waiting`` and once with the outcome of its binding cycle; both land in
the same SchedulingAttempt row, whose trace then holds the whole attempt. Bind and PostBind
run in a binding task, which sends their events back with its outcome (``add_events``).

Identical attempts of a pod are stored once: an attempt with the same result, message, node
and Filter verdicts as one of the pod's last two distinct attempts adds one to that row's
``repeats`` and moves its ``last_attempted``, its trace not kept (the first one's is the same).
A failed gang is retried without pause, as upstream does, and would otherwise store thousands
of rows a minute; two, not one, because which member is left without room can change from
one retry to the next, so a member may alternate between two outcomes.

Each attempt records the configuration revision its scheduler runs (``configuration_revision``,
set by the service whenever it builds one): the revision in use, not the latest saved, which
the service may not have picked up yet. A rebuilt scheduler's attempts are never folded into
the previous one's (``abandon_open``), so a row's repeats all ran under its revision.

Writing can happen on a thread of its own (``background=True``, as the service runs): packing
the traces and waiting for the database then overlap the next scheduling cycles instead of
holding them up. Batches are written in the order they were flushed, so an attempt's row is
inserted before the update that completes it; an attempt is broadcast once it is stored.
"""

from __future__ import annotations

import logging
import queue
import threading
import time
from collections import defaultdict, deque
from collections.abc import Callable, Hashable
from dataclasses import dataclass, field
from typing import Any

from django.db import close_old_connections, connections, transaction
from django.utils import timezone

from framework.scheduler.schedule_one import SchedulingAttempt as EngineAttempt
from framework.trace import EXTENSION_POINT, PLUGIN, PLUGIN_BATCH, TraceEvent
from playground.live import broadcast
from playground.workspaces.models import AttemptTrace, SchedulingAttempt, number_attempts

logger = logging.getLogger(__name__)

WAITING = "Waiting"
MAX_PENDING_EVENTS = 50_000
"""Events kept per pod between attempts (a gated pod collects PreEnqueue events forever)."""
WRITES_QUEUED = 20
"""Batches at most waiting for the background writer; flushing waits beyond that."""

FOLDED_OUTCOMES = 2
"""A pod's latest distinct outcomes a new attempt may be folded into (see above)."""
RECOUNT_SECONDS = 1.0
"""How often new repeat counts of stored rows are written (and broadcast) at most."""

Event = TraceEvent | dict[str, Any]
Batch = list[tuple[SchedulingAttempt, list[dict[str, Any]] | None]]
"""Attempt rows to write, each with its trace events (None: only its repeats changed)."""


@dataclass(slots=True)
class _Attempt:
    """An attempt's row (saved or not yet) and its trace events so far."""

    row: SchedulingAttempt
    cycle: int
    events: list[dict[str, Any]] = field(default_factory=list)
    outcome: Hashable = None
    """What makes two attempts identical (``_outcome``); None for one still waiting."""
    flushed: bool = False


class AttemptRecorder:
    """Observer and attempt sink of one scheduler service.

    Attempts are written in batches (``flush()``, once per tick of the service): two
    statements for any number of attempts, rather than two per attempt; with ``background``,
    by a writer thread (``close()`` writes what is left and ends it).
    """

    def __init__(self, workspace_id: int, background: bool = False) -> None:
        self.workspace_id = workspace_id
        self.configuration_revision = SchedulingAttempt.DEFAULT_CONFIGURATION
        """The revision the scheduler runs (``DEFAULT_CONFIGURATION``: none), for new rows."""
        self._writer = _Writer(self._write) if background else None
        self._pending: dict[str, list[Event]] = defaultdict(list)
        self._open: dict[str, _Attempt] = {}
        """Attempts of pods waiting at Permit, by uid, to complete when their cycle ends."""
        self._unsaved: dict[int, _Attempt] = {}
        """Attempts to write at the next flush, by id() of their row."""
        self._refolded: dict[int, SchedulingAttempt] = {}
        """Rows flushed before whose repeats changed since, by id()."""
        self._recent: dict[str, deque[_Attempt]] = {}
        """uid -> the pod's latest distinct finished attempts, to fold repeats into."""
        self._recounted_at = 0.0
        self.fresh = 0
        """How many attempts were recorded that were not repeats (it only grows)."""
        self.repeated = 0
        """How many attempts were folded into an earlier one (it only grows)."""
        self.last_repeated = ""
        """The pod (namespace/name) of the latest attempt folded into an earlier one."""
        self.victims: list[str] = []
        """Pods the scheduler deleted (preemption) since the last attempt was recorded."""
        self.last_failure: dict[str, tuple[str, list[str]]] = {}
        """uid -> (message, rejecting plugins) of the pod's latest failed attempt."""

    # ------------------------------------------------------------------------------------------
    # The observer

    def on_event(self, event: TraceEvent) -> None:
        events = self._pending[event.pod]
        events.append(event)
        if len(events) > MAX_PENDING_EVENTS:
            del events[: MAX_PENDING_EVENTS // 2]

    def add_victim(self, pod: Any) -> None:
        """A pod the scheduler deleted (preemption): reported with the next attempt."""
        self.victims.append(pod.key)

    def add_events(self, pod: str, events: list[dict[str, Any]]) -> None:
        """Trace events that happened elsewhere (the binding task), in JSON form."""
        self._pending[pod].extend(events)

    def abandon_open(self, message: str) -> None:
        """Ends the attempts of pods waiting at Permit when their scheduler goes away; the
        next scheduler's attempts are not folded into this one's (it may run another
        configuration)."""
        for attempt in self._open.values():
            attempt.row.result, attempt.row.message = "Error", message
            self._unsaved[id(attempt.row)] = attempt
        self._open.clear()
        self._recent.clear()
        self.flush(force=True)
        self._pending.clear()

    # ------------------------------------------------------------------------------------------
    # Attempts

    def on_attempt(self, attempt: EngineAttempt) -> None:
        pending = self._pending.pop(attempt.pod, [])
        events = [e if isinstance(e, dict) else e.to_dict() for e in pending]
        victims, self.victims = self.victims, []
        record = self._open.pop(attempt.uid, None)
        self._remember_failure(attempt, events)
        if record is not None and record.cycle == attempt.cycle:
            record.events = record.events + events
            _fill(record.row, attempt, victims or record.row.victims)
        else:
            outcome = None if attempt.result == WAITING else _outcome(attempt, pending)
            if not victims and self._fold(attempt.uid, outcome):
                self.last_repeated = attempt.pod
                return
            row = SchedulingAttempt(
                workspace_id=self.workspace_id, configuration_revision=self.configuration_revision
            )
            record = _Attempt(row, attempt.cycle)
            record.events, record.outcome = events, outcome
            _fill(record.row, attempt, victims)
        self._unsaved[id(record.row)] = record
        self.fresh += 1
        if attempt.result == WAITING:
            self._open[attempt.uid] = record
        else:
            self._remember_outcome(attempt.uid, record)

    def only_repeated_since(self, mark: tuple[int, int]) -> bool:
        """Whether the attempts recorded since ``mark`` (a ``progress()``) were all repeats,
        and there was one."""
        return self.fresh == mark[0] and self.repeated > mark[1]

    def progress(self) -> tuple[int, int]:
        return self.fresh, self.repeated

    def _fold(self, uid: str, outcome: Hashable) -> bool:
        """Counts the attempt as a repeat of the pod's recent one with the same outcome, if
        there is one (True)."""
        same = next((r for r in self._recent.get(uid, ()) if r.outcome == outcome), None)
        if outcome is None or same is None:
            return False
        same.row.repeats += 1
        self.repeated += 1
        same.row.last_attempted = timezone.now()
        if same.flushed:
            self._refolded[id(same.row)] = same.row
        return True

    def _remember_outcome(self, uid: str, record: _Attempt) -> None:
        recent = self._recent.setdefault(uid, deque(maxlen=FOLDED_OUTCOMES))
        if record.outcome is None:
            recent.clear()  # an attempt that cannot be folded into ends the run of repeats
        else:
            recent.appendleft(record)

    def flush(self, force: bool = False) -> int:
        """Writes the attempts recorded since the last flush, then broadcasts them (in the
        background writer, if there is one); returns how many there were. Rows written before
        whose repeats went up since are written at most every ``RECOUNT_SECONDS`` (unless
        ``force``): a failed gang is retried many times a second."""
        batch: Batch = [(r.row, r.events) for r in self._unsaved.values()]
        for record in self._unsaved.values():
            record.flushed = True
            if record.outcome is not None:  # finished: its events are the batch's now
                record.events = []
        now = time.monotonic()
        if force or now >= self._recounted_at + RECOUNT_SECONDS:
            batch += [
                (row, None) for key, row in self._refolded.items() if key not in self._unsaved
            ]
            self._refolded.clear()
            self._recounted_at = now
        self._unsaved.clear()
        if batch and self._writer is not None:
            self._writer.put(batch)
        elif batch:
            self._write(batch)
        return len(batch)

    def wait_written(self) -> None:
        """Returns once every batch flushed so far is written."""
        if self._writer is not None:
            self._writer.join()

    def close(self) -> None:
        """Writes what was flushed and ends the background writer (no-op without one)."""
        writer, self._writer = self._writer, None
        if writer is not None:
            writer.stop()

    def _write(self, batch: Batch) -> None:
        """Inserts new rows, updates those written before (a pod that waited at Permit), and
        replaces their traces. Which is which is decided here, in writing order, and so are the
        new attempts' numbers (from the pod's attempts stored before). In one transaction: a
        page never reads an attempt without its trace (the Score tables, the filter matrix)."""
        new = [row for row, _ in batch if row.pk is None]
        changed = [row for row, events in batch if row.pk is not None and events is not None]
        recounted = [row for row, events in batch if row.pk is not None and events is None]
        with transaction.atomic():
            number_attempts(new)
            SchedulingAttempt.objects.bulk_create(new)
            for row in changed:
                row.save()
            for row in recounted:
                row.save(update_fields=["repeats", "last_attempted"])
            AttemptTrace.objects.filter(attempt__in=changed).delete()
            traced = [(row, events) for row, events in batch if events is not None]
            AttemptTrace.objects.bulk_create(
                AttemptTrace.pack(row, events) for row, events in traced
            )
        self._broadcast(batch)

    def _remember_failure(self, attempt: EngineAttempt, events: list[dict[str, Any]]) -> None:
        if attempt.result in ("Scheduled", WAITING):
            self.last_failure.pop(attempt.uid, None)
            return
        plugins = sorted(
            {e["plugin"] for e in events if e.get("plugin") and e.get("code") != "Success"}
        )
        self.last_failure[attempt.uid] = (attempt.message, plugins)

    def _broadcast(self, batch: Batch) -> None:
        """One message for the workspace's pages, one per attempt for its pod's page."""
        summaries = [summary(row) for row, _ in batch]
        broadcast.send_attempts(self.workspace_id, summaries)
        for attempt, (_, events) in zip(summaries, batch, strict=True):
            points = [e for e in events or () if e.get("kind") == EXTENSION_POINT]
            broadcast.send_trace(self.workspace_id, attempt, points)


def summary(row: SchedulingAttempt) -> dict[str, Any]:
    """An attempt as pages and the live stream show it (no trace)."""
    return {
        "id": row.pk,
        "pod": row.pod_key,
        "uid": row.pod_uid,
        "number": row.number,
        "profile": row.profile,
        "result": row.result,
        "node": row.node,
        "message": row.message,
        "evaluatedNodes": row.evaluated_nodes,
        "feasibleNodes": row.feasible_nodes,
        "nominatedNode": row.nominated_node,
        "repeats": row.repeats,
    }


def _outcome(attempt: EngineAttempt, events: list[Event]) -> Hashable:
    """What two attempts share when they are the same to a person reading them: result,
    message, node and every Filter verdict."""
    verdicts = []
    for event in events:
        if isinstance(event, dict) or event.point != "filter":
            continue
        if event.kind == PLUGIN:
            verdicts.append((event.plugin, event.node, event.code, tuple(event.reasons)))
        elif event.kind == PLUGIN_BATCH:
            failed = event.data.get("failed", {})
            verdicts.append((event.plugin, tuple(event.data.get("nodes", ())), repr(failed)))
    return (attempt.profile, attempt.result, attempt.message, attempt.node, tuple(verdicts))


def _fill(row: SchedulingAttempt, attempt: EngineAttempt, victims: list[str]) -> None:
    row.pod_key = attempt.pod
    row.pod_uid = attempt.uid
    row.profile = attempt.profile
    row.cycle = attempt.cycle
    row.result = attempt.result
    row.node = attempt.node or ""
    row.message = attempt.message
    row.evaluated_nodes = attempt.evaluated_nodes
    row.feasible_nodes = attempt.feasible_nodes
    row.nominated_node = attempt.nominated_node or ""
    row.final_scores = dict(attempt.final_scores)
    row.victims = list(victims)


class _Writer:
    """A thread that writes batches in the order they are put, with its own connection."""

    def __init__(self, write: Callable[[Batch], None]) -> None:
        self._write = write
        self._queue: queue.Queue[Batch | None] = queue.Queue(maxsize=WRITES_QUEUED)
        self._thread = threading.Thread(target=self._run, name="attempt-writer", daemon=True)
        self._thread.start()

    def put(self, batch: Batch) -> None:
        self._queue.put(batch)

    def join(self) -> None:
        self._queue.join()

    def stop(self) -> None:
        self._queue.put(None)
        self._thread.join()

    def _run(self) -> None:
        try:
            while (batch := self._queue.get()) is not None:
                try:
                    self._write(batch)
                except Exception:  # the attempts are lost, the scheduler is not
                    logger.exception("writing %d attempts failed", len(batch))
                    close_old_connections()
                finally:
                    self._queue.task_done()
            self._queue.task_done()
        finally:
            connections.close_all()  # this thread's own
