"""The websockets of the playground's pages: one per workspace page, one per pod page.

A consumer joins its groups on connect only if the user may access the workspace (otherwise it
closes without accepting), then sends the current state rendered from the database, so a page
that reconnects catches up, then turns each broadcast message (``broadcast.py``) into HTML
fragments htmx swaps in by id. Messages that arrive faster than a page can use them are
coalesced: the latest of each type is rendered at most every RENDER_INTERVAL seconds. Of what
a render gives, only the elements that differ from what the socket sent before go out
(``fragments.SentFragments``): an element sent again would be redrawn for nothing, its buttons
replaced under the person's pointer.

A page that shows the live trace (a pod's page, the debugger page) registers a ``LiveWatch``
while its socket is open, renewed every WATCH_RENEW_SECONDS: the scheduler service streams
extension points only to pods someone watches. ``trace.events`` messages each carry only the
events since the previous one, so they are not coalesced as they come: they are added up into
the current attempt's events (``LiveAttempt``), and that sum is what is rendered.
"""

from __future__ import annotations

import asyncio
import logging
from dataclasses import dataclass, replace
from datetime import timedelta
from typing import Any

from autobahn.exception import Disconnected
from channels.db import database_sync_to_async
from channels.generic.websocket import AsyncWebsocketConsumer
from django.utils import timezone

from playground.front import live
from playground.front.live_panel import stopped_trace
from playground.front.stop_section import stored_stop
from playground.live import broadcast
from playground.live.fragments import SentFragments
from playground.metrics.families import WEBSOCKET_CLIENTS
from playground.workspaces.models import ClusterObject, LiveWatch, SchedulingAttempt, Workspace

logger = logging.getLogger(__name__)

RENDER_INTERVAL = 0.25
"""Seconds between two renders for one page, at most four updates a second."""
STATE_CHECK_SECONDS = 5.0
"""Seconds between two readings of the scheduler's state (and the board) by a workspace page's
socket (``live.STATE_CHECK``), which sees a lease lapse (its worker died) that no message
announces, and catches up with a message the channel layer dropped."""
WATCH_SECONDS = 90.0
"""How long a page's watch lasts unless renewed: a socket that died without closing stops
costing the scheduler this long after its last renewal."""
WATCH_RENEW_SECONDS = 30.0
"""Seconds between two renewals of an open page's watch."""
END_HOLD_SECONDS = 0.3
"""How long the end of a stop waits for the next stop before a page shows it (see show_stop)."""
LIVE_EVENTS_KEPT = 2000
"""Events at most of one attempt a page keeps (a gated pod's PreEnqueue repeats forever)."""


@dataclass(slots=True)
class LiveAttempt:
    """The events of one pod's current attempt, as the ``trace.events`` messages bring them.

    Messages are put in the order of their ``seq`` (the order the service sent them), not of
    their arrival: on the in-memory layer two messages may travel through different event
    loops and overtake each other.
    """

    pod: str
    uid: str
    attempt: int | None
    chunks: tuple[tuple[int, tuple[dict[str, Any], ...]], ...] = ()
    """(seq, events) of each message, in seq order."""
    after: int = 0
    """The last seq of the attempt before this one: a PreEnqueue message with a seq between it
    and this attempt's first came before this attempt and let it in, however late it arrives."""

    @property
    def events(self) -> list[dict[str, Any]]:
        events = [event for _, chunk in self.chunks for event in chunk]
        return events[-LIVE_EVENTS_KEPT:]

    def add(self, message: dict[str, Any]) -> LiveAttempt:
        """This attempt with the message's events, or a new attempt when the message is of
        another pod or attempt (one sent before this attempt's first is stale: ignored).
        PreEnqueue's events (attempt None) stay with the attempt that follows them."""
        attempt, seq = message.get("attempt"), message.get("seq", 0)
        same_pod = (message["pod"], message["uid"]) == (self.pod, self.uid)
        if same_pod and self._joins(attempt, seq):
            chunks = sorted([*self.chunks, (seq, tuple(message["events"]))], key=lambda c: c[0])
            attempt = self.attempt or attempt
            return LiveAttempt(self.pod, self.uid, attempt, tuple(chunks), self.after)
        if self.chunks and seq and seq < self.chunks[0][0]:
            return self
        latest = self.chunks[-1][0] if self.chunks else 0
        return replace(LiveAttempt.of(message), after=latest)

    def _joins(self, attempt: int | None, seq: int) -> bool:
        """Whether a message of this pod belongs to this attempt: the same attempt, this
        attempt's first numbered message after its PreEnqueue, or its PreEnqueue arriving
        after the attempt's first message (messages may overtake each other on the way)."""
        if attempt == self.attempt or (self.attempt is None and attempt):
            return True
        first = self.chunks[0][0] if self.chunks else 0
        return attempt is None and bool(seq) and self.after < seq < first

    @classmethod
    def of(cls, message: dict[str, Any]) -> LiveAttempt:
        chunk = (message.get("seq", 0), tuple(message["events"]))
        return cls(message["pod"], message["uid"], message.get("attempt"), (chunk,))

    def message(self) -> dict[str, Any]:
        """The attempt so far, as a ``trace.events`` message carrying every event."""
        return {
            "type": broadcast.TRACE_EVENTS,
            "pod": self.pod,
            "uid": self.uid,
            "attempt": self.attempt,
            "events": self.events,
        }


class LiveConsumer(AsyncWebsocketConsumer):
    """What both consumers share: access, the groups, resync on connect, coalesced renders,
    and the page's watch when it shows the live trace."""

    joined: tuple[str, ...] = ()
    stream = ""
    """The ``stream`` label of playground_websocket_clients."""
    workspace: Workspace | None = None
    _live: LiveAttempt | None = None
    _followed = False
    """Whether the scheduler service said it follows this page's watch (``trace.followed``)."""
    _watch_renewals: asyncio.Task | None = None
    _playing: float | None = None
    """The pace of the last stop shown, while the scheduler plays."""
    _held_end: asyncio.TimerHandle | None = None

    async def connect(self) -> None:
        self.workspace = await database_sync_to_async(self._accessible_workspace)()
        if self.workspace is None or not await database_sync_to_async(self.prepare)():
            await self.close()
            return
        self._pending: dict[str, dict[str, Any]] = {}
        self._renderer: asyncio.Task | None = None
        self._next_render = 0.0
        self._sent = SentFragments()
        self.joined = tuple(self.group_names())
        for group in self.joined:
            await self.channel_layer.group_add(group, self.channel_name)
        await self.accept()
        WEBSOCKET_CLIENTS.labels(self.stream).inc()
        watched = self.watched_pod()
        if watched is not None:
            stored = await database_sync_to_async(self._watch_during)(watched)
            self._watch_renewals = asyncio.ensure_future(self._renew_watch())
            self._playing = (stored["stop"] or {}).get("play")
            stopped = self.stopped_trace(stored["stop"])
            if stopped is not None:  # what the resync's Live panel shows: the stream goes on
                self._live = LiveAttempt.of(stopped)
        await self._send_html(await database_sync_to_async(self.resync)())

    async def disconnect(self, code: int) -> None:
        if not self.joined:
            return
        WEBSOCKET_CLIENTS.labels(self.stream).dec()
        if self._renderer is not None:
            self._renderer.cancel()
        if self._held_end is not None:
            self._held_end.cancel()
        if self._watch_renewals is not None:
            self._watch_renewals.cancel()
            await database_sync_to_async(self._unwatch)()
        for group in self.joined:
            await self.channel_layer.group_discard(group, self.channel_name)
        self.joined = ()

    async def receive(self, text_data: str | None = None, bytes_data: bytes | None = None) -> None:
        """Pages only listen."""

    @property
    def name(self) -> str:
        """The socket in log messages: its first group."""
        return self.joined[0] if self.joined else "a closed socket"

    # -- what each consumer defines ---------------------------------------------------------

    def prepare(self) -> bool:
        """Reads the rest of the URL; False closes the socket. Runs in a thread (database)."""
        return True

    def group_names(self) -> list[str]:
        raise NotImplementedError

    def watched_pod(self) -> str | None:
        """The pod whose live trace the page shows ("" for every pod), or None."""
        return None

    def resync(self) -> str:
        raise NotImplementedError

    def stopped_trace(self, stop: dict[str, Any] | None) -> dict[str, Any] | None:
        """The attempt the stop stopped, as its events so far, if the page shows it."""
        return None

    def update(self, messages: list[dict[str, Any]]) -> str:
        raise NotImplementedError

    # -- the live trace ---------------------------------------------------------------------

    def _watch(self, pod: str) -> None:
        """Registers the page's watch (and drops the workspace's watches that lapsed)."""
        now = timezone.now()
        LiveWatch.objects.filter(workspace=self.workspace, expires__lte=now).delete()
        LiveWatch.objects.update_or_create(
            channel=self.channel_name,
            defaults={
                "workspace": self.workspace,
                "pod": pod,
                "expires": now + timedelta(seconds=WATCH_SECONDS),
            },
        )

    def _watch_during(self, pod: str) -> dict[str, Any]:
        """Registers the watch and reads the stop under way (one trip to a database thread:
        a page's socket opens quickly even on a busy machine)."""
        self._watch(pod)
        return stored_stop(self.workspace)

    def _unwatch(self) -> None:
        LiveWatch.objects.filter(channel=self.channel_name).delete()

    async def _renew_watch(self) -> None:
        while True:
            await asyncio.sleep(WATCH_RENEW_SECONDS)
            try:
                await database_sync_to_async(self._watch)(self.watched_pod() or "")
            except Exception:
                logger.exception("renewing the watch of %s failed", self.name)

    async def show_stop(self, message: dict[str, Any]) -> None:
        """A ``debug.stop``: where the scheduler stopped, or that it went on.

        A stop's end is often followed a moment later by the next stop (a step, the next point
        while playing: the time one extension point takes), so the end is shown only if no
        stop came within END_HOLD_SECONDS, or one pace while playing: the section does not
        blink "not stopped" at every step, and the controls stay in view.
        """
        if self._held_end is not None:
            self._held_end.cancel()
            self._held_end = None
        stop = message.get("stop")
        pace, self._playing = self._playing, (stop or {}).get("play")
        if stop is None:
            loop = asyncio.get_running_loop()
            # Queued by the timer itself, not by a task it would start: such a task could run
            # after the next stop's handler and overwrite that stop with this end.
            self._held_end = loop.call_later(pace or END_HOLD_SECONDS, self._queue, message)
            return
        await self.coalesce(message)

    async def trace_events(self, message: dict[str, Any]) -> None:
        """Adds the message's events to the current attempt's and renders the sum."""
        self._live = LiveAttempt.of(message) if self._live is None else self._live.add(message)
        await self._show_live()

    async def trace_followed(self, message: dict[str, Any]) -> None:
        """The service read the page's watch: from its next tick on it streams the page's
        pod (PreEnqueue included), and the Live panel says so."""
        self._followed = True
        await self._show_live()

    async def _show_live(self) -> None:
        """Renders the Live panel: the attempt so far (if any) and whether it is followed."""
        shown = (
            self._live.message() if self._live is not None else {"type": broadcast.TRACE_FOLLOWED}
        )
        await self.coalesce({**shown, "following": self._followed})

    # -- coalesced rendering ----------------------------------------------------------------

    async def coalesce(self, message: dict[str, Any]) -> None:
        self._queue(message)

    def _queue(self, message: dict[str, Any]) -> None:
        """The message replaces any of its type not yet rendered; a render follows."""
        self._pending[message["type"]] = message
        if self._renderer is None or self._renderer.done():
            self._renderer = asyncio.ensure_future(self._render_pending())

    async def _render_pending(self) -> None:
        loop = asyncio.get_running_loop()
        try:
            while self._pending:
                delay = self._next_render - loop.time()
                if delay > 0:
                    await asyncio.sleep(delay)
                messages = list(self._pending.values())
                self._pending.clear()
                self._next_render = loop.time() + RENDER_INTERVAL
                await self._send_html(await database_sync_to_async(self.update)(messages))
        except asyncio.CancelledError:
            raise
        except Exception:
            logger.exception("live update of %s failed", self.name)

    async def _send_html(self, html: str) -> None:
        """Sends what changed of a fragment, unless the page has gone meanwhile.

        A person who navigates quickly closes the socket while its first state is still being
        rendered; Daphne then refuses the send (autobahn's ``Disconnected``: "Attempt to send on
        a closed protocol") before the disconnect reaches this consumer. Nobody is left to read
        the fragment, and the disconnect that follows cleans up: not an error.
        """
        changed = self._sent.changed(html)
        if not changed:
            return
        try:
            await self.send(text_data=changed)
        except Disconnected:
            logger.debug("%s: the page closed its socket before an update", self.name)

    def _accessible_workspace(self) -> Workspace | None:
        slug = self.scope["url_route"]["kwargs"]["slug"]
        workspace = Workspace.objects.filter(slug=slug).first()
        if workspace is None or not workspace.can_access(self.scope["user"]):
            return None
        return workspace


class WorkspaceConsumer(LiveConsumer):
    """A workspace page: the scheduler's state, and what the page's view shows live."""

    stream = "workspace"

    _state_checks: asyncio.Task | None = None

    async def connect(self) -> None:
        await super().connect()
        if self.joined:
            self._state_checks = asyncio.ensure_future(self._check_state())

    async def disconnect(self, code: int) -> None:
        if self._state_checks is not None:
            self._state_checks.cancel()
        await super().disconnect(code)

    async def _check_state(self) -> None:
        while True:
            await asyncio.sleep(STATE_CHECK_SECONDS)
            await self.coalesce({"type": live.STATE_CHECK})

    def prepare(self) -> bool:
        self.view = live.LiveView.from_query(self.scope.get("query_string", b""))
        return True

    def group_names(self) -> list[str]:
        """The workspace's group; the debugger page also gets every pod's live trace."""
        groups = [broadcast.workspace_group(self.workspace.pk)]
        if self.view.name == live.DEBUGGER:
            groups.append(broadcast.debugger_group(self.workspace.pk))
        return groups

    def watched_pod(self) -> str | None:
        return "" if self.view.name == live.DEBUGGER else None

    def resync(self) -> str:
        return live.workspace_resync(self.workspace, self.view)

    def update(self, messages: list[dict[str, Any]]) -> str:
        return live.workspace_update(self.workspace, self.view, messages)

    queue_status = node_usage = attempts_recorded = service_state = LiveConsumer.coalesce

    async def debug_stop(self, message: dict[str, Any]) -> None:
        """Where the scheduler stopped (or that it went on): the debugger page shows it."""
        if self.view.name == live.DEBUGGER:
            await self.show_stop(message)

    def stopped_trace(self, stop: dict[str, Any] | None) -> dict[str, Any] | None:
        return stopped_trace(stop)


class PodConsumer(LiveConsumer):
    """A pod's page: its latest attempt's tables and its attempts, as each attempt is stored."""

    stream = "pod"

    def prepare(self) -> bool:
        """Only pods the workspace has (or had: their attempts remain) can be followed."""
        uid = self.scope["url_route"]["kwargs"]["uid"]
        known = (
            ClusterObject.objects.filter(workspace=self.workspace, kind="Pod", uid=uid).exists()
            or SchedulingAttempt.objects.filter(workspace=self.workspace, pod_uid=uid).exists()
        )
        self.uid = uid
        self.pod_key = _pod_key(self.workspace, uid)
        return known

    def group_names(self) -> list[str]:
        return [broadcast.pod_group(self.workspace.pk, self.uid)]

    def watched_pod(self) -> str | None:
        return self.pod_key or None

    def resync(self) -> str:
        return live.pod_resync(self.workspace, self.uid)

    def update(self, messages: list[dict[str, Any]]) -> str:
        return live.pod_update(self.workspace, self.uid, messages)

    pod_trace = LiveConsumer.coalesce
    debug_stop = LiveConsumer.show_stop

    def stopped_trace(self, stop: dict[str, Any] | None) -> dict[str, Any] | None:
        return stopped_trace(stop, self.uid)


def _pod_key(workspace: Workspace, uid: str) -> str:
    """The pod's namespace/name, from the cluster or, once it is deleted, its attempts."""
    pod = ClusterObject.objects.filter(workspace=workspace, kind="Pod", uid=uid).first()
    if pod is not None:
        return pod.key
    attempt = SchedulingAttempt.objects.filter(workspace=workspace, pod_uid=uid).first()
    return attempt.pod_key if attempt is not None else ""
