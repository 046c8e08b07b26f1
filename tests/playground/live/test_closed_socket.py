"""A page that closes its socket while the consumer sends is not an error."""

from __future__ import annotations

import logging

from asgiref.sync import async_to_sync
from autobahn.exception import Disconnected
from channels.generic.websocket import AsyncWebsocketConsumer

from tests.playground.live.conftest import ANSWER_SECONDS, communicator


def test_a_send_refused_because_the_page_left_ends_quietly(owner, workspace, monkeypatch, caplog):
    async def closed(self, text_data=None, bytes_data=None, close=False):
        raise Disconnected("Attempt to send on a closed protocol")

    monkeypatch.setattr(AsyncWebsocketConsumer, "send", closed)
    ws = communicator("/ws/w/lab/", owner)

    async def run():
        connected, _ = await ws.connect(timeout=ANSWER_SECONDS)
        assert connected
        # The application instance is still alive: it did not end with the exception.
        assert await ws.receive_nothing(timeout=0.3)
        await ws.disconnect()

    with caplog.at_level(logging.WARNING):
        async_to_sync(run)()
    assert not [r for r in caplog.records if r.levelno >= logging.WARNING]
