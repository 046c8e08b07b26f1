"""The websockets of the playground's pages: one per workspace page, one per pod page.

A consumer joins its group on connect only if the user may access the workspace (otherwise it
closes without accepting), then sends the current state rendered from the database, so a page
that reconnects catches up, then turns each broadcast message (``broadcast.py``) into HTML
fragments htmx swaps in by id. Messages that arrive faster than a page can use them are
coalesced: the latest of each type is rendered at most every RENDER_INTERVAL seconds. Of what
a render gives, only the elements that differ from what the socket sent before go out
(``fragments.SentFragments``): an element sent again would be redrawn for nothing, its buttons
replaced under the person's pointer.
"""

from __future__ import annotations

import asyncio
import logging
from typing import Any

from autobahn.exception import Disconnected
from channels.db import database_sync_to_async
from channels.generic.websocket import AsyncWebsocketConsumer

from playground.front import live
from playground.live import broadcast
from playground.live.fragments import SentFragments
from playground.workspaces.models import ClusterObject, SchedulingAttempt, Workspace

logger = logging.getLogger(__name__)

RENDER_INTERVAL = 0.25
"""Seconds between two renders for one page, at most four updates a second."""
STATE_CHECK_SECONDS = 5.0
"""Seconds between two readings of the scheduler's state by a workspace page's socket, which
sees a lease lapse (its worker died) that no message announces."""
STATE_CHECK = "state.check"
"""The type of the message a workspace socket gives itself to read the state again."""


class LiveConsumer(AsyncWebsocketConsumer):
    """What both consumers share: access, the group, resync on connect, coalesced renders."""

    group: str | None = None
    workspace: Workspace | None = None

    async def connect(self) -> None:
        self.workspace = await database_sync_to_async(self._accessible_workspace)()
        if self.workspace is None or not await database_sync_to_async(self.prepare)():
            await self.close()
            return
        self._pending: dict[str, dict[str, Any]] = {}
        self._renderer: asyncio.Task | None = None
        self._next_render = 0.0
        self._sent = SentFragments()
        self.group = self.group_name()
        await self.channel_layer.group_add(self.group, self.channel_name)
        await self.accept()
        await self._send_html(await database_sync_to_async(self.resync)())

    async def disconnect(self, code: int) -> None:
        if self.group is None:
            return
        if self._renderer is not None:
            self._renderer.cancel()
        await self.channel_layer.group_discard(self.group, self.channel_name)
        self.group = None

    async def receive(self, text_data: str | None = None, bytes_data: bytes | None = None) -> None:
        """Pages only listen."""

    # -- what each consumer defines ---------------------------------------------------------

    def prepare(self) -> bool:
        """Reads the rest of the URL; False closes the socket. Runs in a thread (database)."""
        return True

    def group_name(self) -> str:
        raise NotImplementedError

    def resync(self) -> str:
        raise NotImplementedError

    def update(self, messages: list[dict[str, Any]]) -> str:
        raise NotImplementedError

    # -- coalesced rendering ----------------------------------------------------------------

    async def coalesce(self, message: dict[str, Any]) -> None:
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
            logger.exception("live update of %s failed", self.group)

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
            logger.debug("%s: the page closed its socket before an update", self.group)

    def _accessible_workspace(self) -> Workspace | None:
        slug = self.scope["url_route"]["kwargs"]["slug"]
        workspace = Workspace.objects.filter(slug=slug).first()
        if workspace is None or not workspace.can_access(self.scope["user"]):
            return None
        return workspace


class WorkspaceConsumer(LiveConsumer):
    """A workspace page: the scheduler's state, and what the page's view shows live."""

    _state_checks: asyncio.Task | None = None

    async def connect(self) -> None:
        await super().connect()
        if self.group is not None:
            self._state_checks = asyncio.ensure_future(self._check_state())

    async def disconnect(self, code: int) -> None:
        if self._state_checks is not None:
            self._state_checks.cancel()
        await super().disconnect(code)

    async def _check_state(self) -> None:
        while True:
            await asyncio.sleep(STATE_CHECK_SECONDS)
            await self.coalesce({"type": STATE_CHECK})

    def prepare(self) -> bool:
        self.view = live.LiveView.from_query(self.scope.get("query_string", b""))
        return True

    def group_name(self) -> str:
        return broadcast.workspace_group(self.workspace.pk)

    def resync(self) -> str:
        return live.workspace_resync(self.workspace, self.view)

    def update(self, messages: list[dict[str, Any]]) -> str:
        return live.workspace_update(self.workspace, self.view, messages)

    queue_status = node_usage = attempts_recorded = service_state = LiveConsumer.coalesce


class PodConsumer(LiveConsumer):
    """A pod's page: its latest attempt's tables and its attempts, as each attempt is stored."""

    def prepare(self) -> bool:
        """Only pods the workspace has (or had: their attempts remain) can be followed."""
        uid = self.scope["url_route"]["kwargs"]["uid"]
        known = (
            ClusterObject.objects.filter(workspace=self.workspace, kind="Pod", uid=uid).exists()
            or SchedulingAttempt.objects.filter(workspace=self.workspace, pod_uid=uid).exists()
        )
        self.uid = uid
        return known

    def group_name(self) -> str:
        return broadcast.pod_group(self.workspace.pk, self.uid)

    def resync(self) -> str:
        return live.pod_resync(self.workspace, self.uid)

    def update(self, messages: list[dict[str, Any]]) -> str:
        return live.pod_update(self.workspace, self.uid, messages)

    pod_trace = LiveConsumer.coalesce
