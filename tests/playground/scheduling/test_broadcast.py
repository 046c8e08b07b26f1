"""broadcast: group names from ids, and messages that reach consumers in their own event loop."""

from __future__ import annotations

import asyncio
import threading
import time
from concurrent.futures import Future

import pytest
from channels.exceptions import ChannelFull
from channels.layers import get_channel_layer
from channels_redis.core import RedisChannelLayer
from django.conf import settings

from playground.live import broadcast


def test_group_names_are_built_from_ids():
    assert broadcast.workspace_group(7) == "workspace-7"
    assert broadcast.pod_group(7, "0b8f-41aa") == "pod-7-0b8f-41aa"


@pytest.mark.parametrize(
    "uid",
    ["../../etc", "a b", "x" * 65, "ümlaut", ""],
    ids=["a path", "a space", "too long", "not ascii", "empty"],
)
def test_a_uid_that_is_no_safe_group_name_is_hashed(uid):
    group = broadcast.pod_group(7, uid)
    prefix, _, digest = group.rpartition("-")
    assert prefix == "pod-7"
    assert len(digest) == 40 and digest.isalnum()
    assert group == broadcast.pod_group(7, uid)


@pytest.fixture
def in_memory_layer(settings):
    settings.CHANNEL_LAYERS = {"default": {"BACKEND": "channels.layers.InMemoryChannelLayer"}}
    return get_channel_layer()


def consumer_of(layer, group: str) -> Future:
    """A consumer in its own thread and event loop, waiting for one message of ``group``."""
    joined = threading.Event()
    received: Future = Future()

    async def consume() -> None:
        channel = await layer.new_channel()
        await layer.group_add(group, channel)
        receiving = asyncio.ensure_future(layer.receive(channel))
        await asyncio.sleep(0.05)  # it waits on its queue now, as a connected consumer does
        joined.set()
        received.set_result(await receiving)

    threading.Thread(target=lambda: asyncio.run(consume()), daemon=True).start()
    assert joined.wait(5)
    return received


def test_a_message_wakes_a_consumer_waiting_in_its_own_event_loop(in_memory_layer):
    received = consumer_of(in_memory_layer, "workspace-7")

    broadcast.send_status(7, {"paused": True})

    assert received.result(timeout=5) == {"type": "queue.status", "status": {"paused": True}}


def test_attempts_stored_together_go_to_the_workspace_in_one_message(in_memory_layer):
    attempts = [
        {"id": 1, "uid": "u1", "pod": "default/web", "result": "Scheduled"},
        {"id": 2, "uid": "u2", "pod": "default/api", "result": "Scheduled"},
    ]
    to_workspace = consumer_of(in_memory_layer, "workspace-7")

    broadcast.send_attempts(7, attempts)

    assert to_workspace.result(timeout=5) == {"type": "attempts.recorded", "attempts": attempts}


def test_an_attempts_extension_points_go_to_its_pod_with_the_attempt(in_memory_layer):
    attempt = {"id": 1, "uid": "u1", "pod": "default/web", "result": "Scheduled"}
    points = [{"kind": "extensionPoint", "point": "bind", "code": "Success"}]
    to_pod = consumer_of(in_memory_layer, "pod-7-u1")

    broadcast.send_trace(7, attempt, points)

    assert to_pod.result(timeout=5) == {
        "type": "pod.trace",
        "pod": "default/web",
        "uid": "u1",
        "attemptId": 1,
        "attempt": attempt,
        "events": points,
    }


def test_sending_to_a_group_nobody_listens_to_is_harmless(in_memory_layer):
    broadcast.send(broadcast.workspace_group(8), {"type": "queue.status"}).result(timeout=5)


@pytest.fixture
def one_message_layer(settings):
    settings.CHANNEL_LAYERS = {
        "default": {"BACKEND": "channels.layers.InMemoryChannelLayer", "CONFIG": {"capacity": 1}}
    }
    return get_channel_layer()


def test_a_send_a_full_channel_refuses_is_logged_and_its_future_says_so(one_message_layer, caplog):
    channel = "specific.web!page"
    broadcast.send_to_channel(channel, {"type": "queue.status"}).result(timeout=5)

    refused = broadcast.send_followed(channel)

    with pytest.raises(ChannelFull):
        refused.result(timeout=5)
    said = "trace.followed to specific.web!page was not sent: ChannelFull"
    assert _logged(caplog, said), caplog.text


@pytest.mark.skipif(not settings.REDIS_URL, reason="needs Redis (REDIS_URL)")
def test_on_redis_the_pages_of_one_web_process_share_its_capacity():
    """Why a page's own message can be refused: channels_redis keeps one queue per process for
    all its sockets' channels (``specific.<process>!``), and ``capacity`` counts that queue, so
    a busy board's messages waiting in it make a send to another page raise ChannelFull."""
    layer = RedisChannelLayer(
        hosts=[settings.REDIS_URL], prefix=f"{settings.REDIS_KEY_PREFIX}capacity-", capacity=3
    )

    async def scenario() -> None:
        board, page = await layer.new_channel(), await layer.new_channel()
        try:
            for _ in range(3):
                await layer.send(board, {"type": "queue.status"})
            with pytest.raises(ChannelFull):
                await layer.send(page, {"type": "trace.followed"})
        finally:
            await layer.flush()

    asyncio.run(scenario())


def _logged(caplog, text: str, seconds: float = 5.0) -> bool:
    """Whether ``text`` was logged within ``seconds``: a future's callbacks run just after it
    wakes its waiters, on the sending thread."""
    deadline = time.monotonic() + seconds
    while text not in caplog.text:
        if time.monotonic() > deadline:
            return False
        time.sleep(0.01)
    return True


@pytest.mark.skipif(not settings.REDIS_URL, reason="needs Redis (REDIS_URL)")
def test_a_burst_of_sends_waits_for_redis_connections_instead_of_losing_messages(caplog):
    """Every send holds one of channels_redis's pooled connections while it runs, and redis-py's
    pool refuses the 101st (MaxConnectionsError): a tick's burst of trace and state messages
    lost some that way in CI. Sends now take turns."""
    group = broadcast.workspace_group(90_001)
    sends = [broadcast.send(group, {"type": "queue.status", "n": n}) for n in range(400)]

    for sent in sends:
        sent.result(timeout=30)
    assert "was not sent" not in caplog.text
