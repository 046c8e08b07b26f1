"""Each extension point's result, streamed to the pages that watch the pod or the workspace.

A page that watches registers a ``LiveWatch`` row (its pod's key, or "" for every pod) and
renews it while its socket is open. The service asks ``refresh()`` every tick whether anyone
watches, and keeps the ``LiveTrace`` among its frameworks' observers only while someone does
(``SchedulerService._set_observers``): with nobody watching, the engine does not even call it.
While it observes, it keeps the events of the watched pods and sends them (``flush``), at most
every ``FLUSH_SECONDS`` on its own and at once when the service asks (the end of a tick, a
debugger stop): one ``trace.events`` message per watched pod to its page, and one for the
attempt under way to the debugger page (``broadcast.send_trace_events``), so a page sees each
extension point shortly after it completes, not once the attempt is stored.

The attempt number comes from the scheduler's current cycle (``Scheduler.current_cycle``, the
queue's count of the pod's attempts, as a debugger stop gives it), not from counting PreFilter
summaries: the cycle knows it even for events that arrive after the pod waited at Permit.
PreEnqueue events come before the attempt they let in: they are sent with attempt None.
"""

from __future__ import annotations

from concurrent.futures import Future
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any

from framework.cluster.interface import pod_uid
from framework.trace import EXTENSION_POINT, TraceEvent
from framework.util.clock import Clock
from playground.live import broadcast
from playground.workspaces.models import LiveWatch

if TYPE_CHECKING:
    from collections.abc import Iterable

    from framework.scheduler.scheduler import Scheduler

REFRESH_SECONDS = 1.0
"""Seconds between two readings of the watches."""
FLUSH_SECONDS = 0.1
"""Seconds at least between two unforced sends."""
PRE_ENQUEUE = "preEnqueue"


@dataclass(slots=True)
class _Batch:
    """One pod's events of one attempt, waiting to be sent."""

    pod: str
    uid: str
    attempt: int | None
    events: list[TraceEvent | dict[str, Any]] = field(default_factory=list)
    """The engine's events as they came (converted to JSON only if sent), and the binding
    task's, already JSON."""

    def json_events(self) -> list[dict[str, Any]]:
        return [e.to_dict() if isinstance(e, TraceEvent) else e for e in self.events]


class LiveTrace:
    """An observer of the engine that streams the watched pods' trace events."""

    def __init__(self, workspace_id: int, clock: Clock, scheduler: Scheduler | None = None) -> None:
        self.workspace_id = workspace_id
        self.clock = clock
        self.scheduler = scheduler
        """The scheduler whose ``current_cycle`` numbers the attempts (set again at rebuilds)."""
        self._pods: frozenset[str] = frozenset()
        self._everyone = False
        self._refreshed = float("-inf")
        self._answers: dict[str, Future | None] = {}
        """channel -> the send of its ``trace.followed``, for each page whose watch was read:
        each page is told once, unless that send failed (``_answer``)."""
        self._flushed = clock.now()
        self._batches: list[_Batch] = []
        """Events to send, in order: one batch per pod and attempt."""
        self._filling: dict[str, _Batch] = {}
        """pod key -> the batch its next events join."""
        self._last: dict[str, tuple[str, int | None]] = {}
        """pod key -> (uid, attempt) of its latest event: for events outside its cycle."""
        self._latest: _Batch | None = None
        self._sent = 0
        """Messages sent so far: each one's ``seq``, so pages order what they receive."""
        """The batch the latest event joined: the attempt under way, for the debugger page."""

    # ------------------------------------------------------------------------------------------
    # Who watches

    @property
    def watching(self) -> bool:
        return self._everyone or bool(self._pods)

    def refresh(self, force: bool = False) -> bool:
        """Reads the live watches again (at most once every REFRESH_SECONDS, unless forced);
        whether anyone watches. Events of pods nobody watches any more are dropped; a page
        watching for the first time is told it is followed (``broadcast.send_followed``):
        the service observes its pod from its next tick on (``_answer``)."""
        now = self.clock.now()
        if force or now - self._refreshed >= REFRESH_SECONDS:
            self._refreshed = now
            watches = dict(
                LiveWatch.objects.filter(
                    workspace_id=self.workspace_id,
                    expires__gt=datetime.fromtimestamp(now, tz=UTC),
                ).values_list("channel", "pod")
            )
            pods = set(watches.values())
            self._everyone = "" in pods
            self._pods = frozenset(pods - {""})
            self._forget_unwatched()
            self._answer(watches.keys())
        return self.watching

    def _answer(self, channels: Iterable[str]) -> None:
        """Tells each page whose watch is read for the first time that it is followed, and
        again, at the next reading, any page whose answer failed: channels_redis refuses a send
        to one page's channel (ChannelFull) while the page's web process has ``capacity``
        messages waiting for its sockets, and the answer is sent only once: the page would
        wait for it for ever. A send still under way is left to finish."""
        channels = set(channels)
        self._answers = {
            channel: send
            for channel, send in self._answers.items()
            if channel in channels and not _failed(send)
        }
        for channel in channels - self._answers.keys():
            self._answers[channel] = broadcast.send_followed(channel)

    def watched(self, pod_key: str) -> bool:
        return self._everyone or pod_key in self._pods

    def _forget_unwatched(self) -> None:
        if self._everyone:
            return
        self._batches = [b for b in self._batches if b.pod in self._pods]
        self._filling = {pod: b for pod, b in self._filling.items() if pod in self._pods}
        self._last = {pod: last for pod, last in self._last.items() if pod in self._pods}

    # ------------------------------------------------------------------------------------------
    # The observer

    def on_event(self, event: TraceEvent) -> None:
        """Keeps a watched pod's event; an extension point's end sends what is due."""
        if not (self._everyone or event.pod in self._pods):
            return
        uid, attempt = self._attempt_of(event)
        self._batch(event.pod, uid, attempt).events.append(event)
        if event.kind == EXTENSION_POINT:
            self.flush()

    def add_events(self, pod: str, events: list[dict[str, Any]]) -> None:
        """Events that ran elsewhere (Bind and PostBind, in a binding task), in JSON form:
        they belong to the pod's latest attempt."""
        if not events or not self.watched(pod):
            return
        uid, attempt = self._last.get(pod) or (self._uid_of(pod), None)
        self._batch(pod, uid, attempt).events.extend(events)

    def _attempt_of(self, event: TraceEvent) -> tuple[str, int | None]:
        """The pod's uid and attempt number: its cycle's if it is the current one."""
        if event.point == PRE_ENQUEUE:
            return self._uid_of(event.pod), None
        cycle = getattr(self.scheduler, "current_cycle", None)
        if cycle is not None and cycle.pod_info.pod.key == event.pod:
            last = self._last[event.pod] = (cycle.pod_info.pod.uid, cycle.attempt)
            return last
        return self._last.get(event.pod) or (self._uid_of(event.pod), None)

    def _uid_of(self, pod_key: str) -> str:
        return pod_uid(getattr(self.scheduler, "cluster", None), pod_key)

    def _batch(self, pod: str, uid: str, attempt: int | None) -> _Batch:
        """The batch these events join: the pod's current one, unless they belong to another
        attempt (PreEnqueue's events join the attempt that follows them)."""
        batch = self._filling.get(pod)
        if batch is not None and batch.uid == uid and batch.attempt == attempt:
            pass
        elif batch is not None and batch.attempt is None and batch.uid in (uid, ""):
            batch.uid, batch.attempt = uid, attempt  # the pod's PreEnqueue, then its attempt
        else:
            batch = self._filling[pod] = _Batch(pod, uid, attempt)
            self._batches.append(batch)
        self._latest = batch
        return batch

    # ------------------------------------------------------------------------------------------
    # Sending

    def flush(self, force: bool = False) -> int:
        """Sends the events kept, one message per pod (and attempt), unless the last send was
        less than FLUSH_SECONDS ago and ``force`` is not set; returns the messages sent."""
        if not self._batches:
            return 0
        now = self.clock.now()
        if not force and now - self._flushed < FLUSH_SECONDS:
            return 0
        self._flushed = now
        batches, self._batches, self._filling = self._batches, [], {}
        sent = 0
        for batch in batches:
            # The debugger page follows the attempt under way: of a burst of pods it gets the
            # latest one's events, one message a flush, not one per pod (which would flood its
            # channel layer's queue and make every page of its web process miss updates).
            to_pod = batch.pod in self._pods
            to_debugger = self._everyone and batch is self._latest
            if to_pod or to_debugger:
                self._sent += 1
                broadcast.send_trace_events(
                    self.workspace_id,
                    batch.pod,
                    batch.uid,
                    batch.attempt,
                    batch.json_events(),
                    to_pod=to_pod,
                    to_debugger=to_debugger,
                    seq=self._sent,
                )
                sent += 1
        return sent


def _failed(send: Future | None) -> bool:
    """Whether a send is over without having delivered (None: there was no layer to send to)."""
    return send is not None and send.done() and (send.cancelled() or send.exception() is not None)
