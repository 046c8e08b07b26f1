"""The playground's answer to the debugger's stops: a wait in the scheduler service's thread.

The engine's Debugger (``framework.debugger.session``) calls a controller at each stop and
blocks until it answers with a command. Here the controller is a ``StopController``: it stores
the stop in ``SchedulerStatus.stop``, tells the pages, and then waits, looking every
``poll_seconds`` at the workspace's commands, until one of them answers the stop:

- ``debug`` ``{"command": step | next | continue | run | abort, "stop": id}`` answers the stop
  named (without ``stop``: whichever stop the scheduler is at). A command naming a stop that
  has ended is answered "ignored", so of two browsers clicking at once one command applies.
- ``debug`` ``{"command": "play", "pace": seconds}`` advances one extension point every
  ``pace`` seconds (``next`` by itself) until ``pause`` or any other command. Play belongs to
  the attempt it was pressed in: a stop of another attempt (another pod's, or this pod's next
  one) waits for a command.

Meanwhile the workspace's scheduler keeps its promises: the lease is renewed, ``breakpoints``,
``pause`` / ``resume`` and Permit's ``allow`` / ``reject`` are executed (the binding cycles they
resume wait until the stop ends, as the service thread is the only one that runs them), and
binding outcomes wait their turn in the database. When the breakpoints change so that none
would stop where the scheduler stands, the stop continues by itself and says so (a Clear all
leaves no stop waiting). A stop left alone for ``settings.DEBUGGER_STOP_SECONDS`` continues by
itself and says so; a lost lease, a stopping worker or a ``stop`` command (the workspace is
being deleted) aborts the attempt.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from dataclasses import dataclass
from typing import Any, Protocol

from django.conf import settings

from framework.cluster.interface import pod_uid
from framework.debugger.session import (
    ABORT,
    CANNOT_ABORT,
    COMMANDS,
    CONTINUE,
    NEXT,
    Debugger,
    Stop,
    describe_stop,
)
from framework.util.clock import Clock
from playground.live import broadcast
from playground.scheduling.live_trace import LiveTrace
from playground.scheduling.scheduler import ServiceThreadExecutor
from playground.workspaces.models import SchedulerCommand, SchedulerStatus

PLAY, PAUSE = "play", "pause"
PLAYING_KEPT = 100
"""Attempts whose Play is remembered at most (an attempt plays until its binding cycle ends,
which may come after other pods' cycles)."""
POLL_SECONDS = 0.1
"""How often a stop looks at the commands, the lease and the time."""
DURING_A_STOP = frozenset(
    {
        SchedulerCommand.BREAKPOINTS,
        SchedulerCommand.PAUSE,
        SchedulerCommand.RESUME,
        SchedulerCommand.ALLOW,
        SchedulerCommand.REJECT,
    }
)
"""Commands executed while the scheduler is stopped; the others wait until the stop ends (and
the ones after them too, so they keep their order), except ``debug`` commands, which are
addressed to the stop itself."""


class StoppedService(Protocol):
    """What a stop needs of the scheduler service it holds (``service.SchedulerService``),
    which hands itself in: the service builds its stop controller, so this module cannot
    import the service's."""

    workspace_id: int
    clock: Clock
    generation: int | None
    cluster: Any
    live: LiveTrace
    executor: ServiceThreadExecutor
    debugger: Debugger

    def renew_lease(self) -> bool: ...

    def execute(self, kind: str, payload: dict[str, Any]) -> str: ...

    def mark_done(self, command: SchedulerCommand, outcome: str) -> None: ...

    def announce(self) -> None: ...

    def publish_status(self) -> None: ...


@dataclass(slots=True)
class _Answer:
    """What the pending commands said to the stop."""

    command: str = ""
    """The command that answers the stop, if one came."""
    outcome: str = ""
    """``play`` or ``pause`` when one of them came."""
    deleting: bool = False
    """A ``stop`` command waits: the workspace is being deleted."""


def aborted_note(document: dict[str, Any]) -> str:
    """What the pages say once an Abort ended the attempt (the engine's error path for that
    point requeues the pod, through backoff)."""
    return (
        f"The attempt of {document['pod']} (attempt {document['attempt']}) was aborted at "
        f"{document['point']}: it ended with an Error, and the pod went back to the queue."
    )


class StopController:
    """Waits at the debugger's stops for a person's command (see the module's docstring)."""

    def __init__(
        self,
        service: StoppedService,
        *,
        poll_seconds: float = POLL_SECONDS,
        stop_seconds: float | None = None,
    ) -> None:
        self.service = service
        self.poll_seconds = poll_seconds
        self.stop_seconds = float(
            settings.DEBUGGER_STOP_SECONDS if stop_seconds is None else stop_seconds
        )
        self.halt = threading.Event()
        """Set when the worker stops: a stop under way aborts its attempt."""
        self.interrupted = False
        """The last stop ended because the service must end (lease lost, worker stopping,
        ``stop`` command): the service runs no more cycles this tick."""
        self.playing: OrderedDict[tuple[str, int], float] = OrderedDict()
        """Seconds per extension point of each attempt that plays, by (pod uid, attempt): an
        attempt number counts a pod's attempts since the scheduler was built (``forget_play``
        when it is built again)."""
        self.current: dict[str, Any] | None = None
        """The stop under way (its document), None while the scheduler runs."""
        self._count = 0
        self._note = ""

    def __call__(self, stop: Stop) -> str:
        self._count += 1
        now = self.service.clock.now()
        document = {
            "id": f"{self.service.generation or 0}-{self._count}",
            "since": now,
            "deadline": now + self.stop_seconds,
            "play": None,
            "uid": pod_uid(self.service.cluster, stop.pod),
            "summary": describe_stop(stop),
            **stop.to_dict(),
            "events": [event.to_dict() for event in stop.events],  # the Live panel after a reload
        }
        document["play"] = self.playing.get(_attempt(document))  # Play was pressed in it
        self.service.live.flush(force=True)  # the pages watching see what led here first
        # What ended the previous stop by itself (no breakpoint stops there any more, its time
        # ran out) stays in sight at this one, until a person answers it.
        self._show(document, note=self._note)
        try:
            # Work submitted meanwhile (a Permit timeout firing, a pod allowed by hand) waits
            # for the stop to end: it must not run inside the cycle that is stopped.
            with self.service.executor.deferring():
                return self._wait(stop, document)
        finally:
            self._show(None, note=self._note)

    # -- waiting ----------------------------------------------------------------------------

    def _wait(self, stop: Stop, document: dict[str, Any]) -> str:
        self._note, self.interrupted = "", False
        pace = document["play"]
        due = document["since"] + pace if pace is not None else None
        while True:
            answer = self._answer_from_commands(stop, document)
            if answer.command:
                return answer.command
            if answer.outcome == PLAY:
                due = self.service.clock.now() + self.playing[_attempt(document)]
            elif answer.outcome == PAUSE:
                due = None
            if reason := self._reason_to_abort(answer):
                self.interrupted = True
                self._note = f"The attempt at {document['summary']} was aborted: {reason}."
                return ABORT
            now = self.service.clock.now()
            if due is not None and now >= due:
                return NEXT
            if now >= document["deadline"]:
                minutes = self.stop_seconds / 60
                self._note = (
                    f"The stop at {document['summary']} continued by itself after "
                    f"{minutes:g} minute{'s' if minutes != 1 else ''} without a command."
                )
                return CONTINUE
            self.halt.wait(self.poll_seconds)

    def _reason_to_abort(self, answer: _Answer) -> str:
        if self.halt.is_set():
            return "the scheduler worker is stopping"
        if not self.service.renew_lease():
            return "the scheduler lost its lease"
        if answer.deleting:
            return "the workspace is being deleted"
        return ""

    def _answer_from_commands(self, stop: Stop, document: dict[str, Any]) -> _Answer:
        """Executes the pending commands a stop can execute; returns the stop's answer, if one
        of them is a ``debug`` command for this stop, or changed the breakpoints so that none
        would stop here any more."""
        answer = _Answer()
        held_back = False
        pending = SchedulerCommand.objects.filter(
            workspace_id=self.service.workspace_id, done_at__isnull=True
        ).order_by("id")
        for command in pending:
            if command.kind == SchedulerCommand.DEBUG:
                outcome = self._debug(command.payload or {}, document, answer)
            elif command.kind in DURING_A_STOP and not held_back:
                outcome = self.service.execute(command.kind, command.payload or {})
                if command.kind == SchedulerCommand.BREAKPOINTS:
                    outcome = self._after_breakpoints_changed(stop, document, answer, outcome)
            else:
                held_back = True
                answer.deleting = answer.deleting or command.kind == SchedulerCommand.STOP
                continue
            self.service.mark_done(command, outcome)
            if answer.command:
                break
        return answer

    def _after_breakpoints_changed(
        self, stop: Stop, document: dict[str, Any], answer: _Answer, outcome: str
    ) -> str:
        """Continues when no breakpoint set now would stop here (``Debugger.still_stops_at``):
        a stop nobody asked for must not wait for a command."""
        if self.service.debugger.still_stops_at(stop):
            return outcome
        answer.command = CONTINUE
        self.playing.pop(_attempt(document), None)
        self._note = (
            f"The stop at {document['summary']} continued by itself: no breakpoint stops "
            "there any more."
        )
        return f"{outcome}; continued from {document['summary']}"

    def _debug(self, payload: dict[str, Any], document: dict[str, Any], answer: _Answer) -> str:
        named = payload.get("stop")
        if named not in (None, "", document["id"]):
            return f"ignored: the scheduler is no longer at stop {named}"
        command = payload.get("command")
        attempt = _attempt(document)
        if command == PLAY:
            pace = payload.get("pace", 0.5)
            if not isinstance(pace, int | float) or not 0 < pace <= 60:
                return f"invalid debug command: pace {pace!r} is not a number of seconds in (0, 60]"
            self._play(attempt, float(pace))
            answer.outcome = PLAY
            self._show({**document, "play": float(pace)}, note="")
            return f"playing at {pace:g} s per extension point"
        if command == PAUSE:
            self.playing.pop(attempt, None)
            answer.outcome = PAUSE
            self._show({**document, "play": None}, note="")
            return "paused playing"
        if command not in COMMANDS:
            choices = ", ".join((*COMMANDS, PLAY, PAUSE))
            return f"invalid debug command: {command!r} is not one of {choices}"
        self.playing.pop(attempt, None)
        answer.command = command
        if command == ABORT and document["point"] in CANNOT_ABORT:
            return f"run at {document['summary']} (abort is taken as run at {document['point']})"
        if command == ABORT:
            self._note = aborted_note(document)
        return f"{command} at {document['summary']}"

    def forget_play(self) -> None:
        """The scheduler was built anew: its attempts count from 1 again."""
        self.playing.clear()

    def _play(self, attempt: tuple[str, int], pace: float) -> None:
        self.playing[attempt] = pace
        self.playing.move_to_end(attempt)
        while len(self.playing) > PLAYING_KEPT:
            self.playing.popitem(last=False)

    # -- showing ----------------------------------------------------------------------------

    def _show(self, document: dict[str, Any] | None, note: str) -> None:
        """Stores the stop (None: the scheduler goes on) and tells the pages."""
        previous, self.current = self.current, document
        SchedulerStatus.objects.update_or_create(
            workspace_id=self.service.workspace_id,
            defaults={"stop": document, "debugger_note": note},
        )
        uids = {d["uid"] for d in (previous, document) if d is not None and d.get("uid")}
        broadcast.send_stop(self.service.workspace_id, sorted(uids), document, note)
        self.service.announce()
        if document is not None and previous is None:
            self.service.publish_status()  # the board shows the stopped pod in flight


def _attempt(document: dict[str, Any]) -> tuple[str, int]:
    """The attempt a stop belongs to: its pod's uid (a pod made again under the same name is
    another pod) and the attempt's number."""
    return document["uid"] or document["pod"], document["attempt"]
