"""Websocket clients that carry a real session cookie through the project's ASGI stack."""

from __future__ import annotations

import pytest
from asgiref.sync import async_to_sync
from channels.testing import WebsocketCommunicator
from django.contrib.auth import get_user_model
from django.test import Client

from playground.asgi import application
from playground.workspaces.models import Workspace

ORIGIN = "http://127.0.0.1:8000"
ANSWER_SECONDS = 15
"""How long a socket may take to open and send its first message: the consumer reads the
database first, and a CI machine running the browser tests beside can take over the
communicator's default second (CI saw it once)."""


@pytest.fixture(autouse=True)
def render_at_once(monkeypatch):
    monkeypatch.setattr("playground.live.consumers.RENDER_INTERVAL", 0.0)


@pytest.fixture
def owner(transactional_db):
    return get_user_model().objects.create_user("ada", password="x")


@pytest.fixture
def stranger(transactional_db):
    return get_user_model().objects.create_user("eve", password="x")


@pytest.fixture
def workspace(owner):
    return Workspace.objects.create(name="Lab", slug="lab", owner=owner)


def session_cookie(user) -> str:
    client = Client()
    client.force_login(user)
    return f"sessionid={client.cookies['sessionid'].value}"


def communicator(path: str, user=None, origin: str | None = ORIGIN) -> WebsocketCommunicator:
    headers = [(b"host", b"127.0.0.1:8000")]
    if origin is not None:
        headers.append((b"origin", origin.encode()))
    if user is not None:
        headers.append((b"cookie", session_cookie(user).encode()))
    return WebsocketCommunicator(application, path, headers=headers)


def connect_and(path: str, user, scenario, origin: str | None = ORIGIN):
    """Connects, hands the communicator and the first message to ``scenario``, disconnects."""
    ws = communicator(path, user, origin)

    async def run():
        connected, _ = await ws.connect(timeout=ANSWER_SECONDS)
        try:
            first = await ws.receive_from(timeout=ANSWER_SECONDS) if connected else None
            return await scenario(ws, connected, first)
        finally:
            await ws.disconnect()

    return async_to_sync(run)()


async def nothing(ws, connected, first):
    """A scenario that only looks at the connection and its first message."""
    return connected, first
