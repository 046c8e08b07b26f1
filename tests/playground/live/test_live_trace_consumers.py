"""The pages that watch the live trace: their watch (registered, renewed, deleted), the groups
they join, and the Live panel adding up each attempt's events without losing any."""

from __future__ import annotations

import asyncio
import itertools
import json
from datetime import timedelta

import pytest
from channels.db import database_sync_to_async
from channels.layers import get_channel_layer
from django.utils import timezone

from playground.live import broadcast, consumers
from playground.live.consumers import LiveAttempt
from playground.workspaces.models import LiveWatch, SchedulerStatus
from tests.framework.debugger.scenario import NODES, WEB, simulate
from tests.playground.front.rows import pod, store
from tests.playground.live.conftest import connect_and

POD_PAGE = "/ws/w/lab/pods/uid-web/"
DEBUGGER_PAGE = "/ws/w/lab/?view=debugger"


def point(name: str, code: str = "Success", **fields) -> dict:
    return {"kind": "extensionPoint", "point": name, "pod": "default/web", "code": code, **fields}


def call(name: str, plugin: str, code: str = "Success") -> dict:
    return {"kind": "plugin", "point": name, "pod": "default/web", "plugin": plugin, "code": code}


SEQ = itertools.count(1)
"""The order the messages are sent in, as the service numbers them."""


def send(workspace, attempt, events, pod_key="default/web", uid="uid-web", debugger=False):
    broadcast.send_trace_events(
        workspace.pk,
        pod_key,
        uid,
        attempt,
        events,
        to_pod=not debugger,
        to_debugger=debugger,
        seq=next(SEQ),
    )


def watches() -> list[tuple[str, float]]:
    """Each watch's pod and how many seconds it has left."""
    now = timezone.now()
    return [(w.pod, (w.expires - now).total_seconds()) for w in LiveWatch.objects.all()]


# ----------------------------------------------------------------------------------------------
# The watch


def test_a_pod_page_watches_its_pod_while_it_is_open(owner, workspace):
    store(workspace, pod("web"))

    async def scenario(ws, connected, first):
        return await database_sync_to_async(watches)()

    while_open = connect_and(POD_PAGE, owner, scenario)
    assert [pod for pod, _ in while_open] == ["default/web"]
    assert 85 < while_open[0][1] <= consumers.WATCH_SECONDS
    assert watches() == [], "closing the page deletes its watch"


def test_an_open_pages_watch_is_renewed(owner, workspace, monkeypatch):
    monkeypatch.setattr(consumers, "WATCH_SECONDS", 1.0)
    monkeypatch.setattr(consumers, "WATCH_RENEW_SECONDS", 0.2)
    store(workspace, pod("web"))

    async def scenario(ws, connected, first):
        await asyncio.sleep(1.5)  # longer than the watch lasts without renewal
        return await database_sync_to_async(watches)()

    [(pod_key, left)] = connect_and(POD_PAGE, owner, scenario)
    assert pod_key == "default/web" and left > 0.5


def test_a_lapsed_watch_of_a_page_that_died_is_dropped_when_another_registers(owner, workspace):
    store(workspace, pod("web"))
    LiveWatch.objects.create(
        workspace=workspace, pod="", channel="dead", expires=timezone.now() - timedelta(seconds=1)
    )

    async def scenario(ws, connected, first):
        return await database_sync_to_async(watches)()

    assert [pod for pod, _ in connect_and(POD_PAGE, owner, scenario)] == ["default/web"]


def test_the_debugger_page_watches_every_pod_and_other_pages_nothing(owner, workspace):
    async def scenario(ws, connected, first):
        return await database_sync_to_async(watches)()

    assert [pod for pod, _ in connect_and(DEBUGGER_PAGE, owner, scenario)] == [""]
    assert connect_and("/ws/w/lab/?view=queue", owner, scenario) == []
    assert watches() == []


# ----------------------------------------------------------------------------------------------
# The Live panel


def test_the_debugger_page_gets_every_pods_events_on_the_debugger_group(owner, workspace):
    async def scenario(ws, connected, first):
        assert 'id="live-trace"' not in first, "the page renders the idle panel itself"
        send(workspace, 1, [point("preFilter"), point("filter")], "shop/api", "u-api", True)
        return await ws.receive_from(timeout=5)

    html = connect_and(DEBUGGER_PAGE, owner, scenario)
    assert html.startswith('<section id="live-trace"')
    assert '<a href="/w/lab/pods/u-api/"><strong>shop/api</strong></a>' in html
    assert "attempt 1" in html
    assert "<td>preFilter</td>" in html and "<td>filter</td>" in html


def test_other_workspace_views_take_every_workspace_message_and_show_no_live_trace(
    owner, workspace
):
    async def scenario(ws, connected, first):
        stop = {"type": "debug.stop", "stop": None, "note": ""}
        await get_channel_layer().group_send(broadcast.workspace_group(workspace.pk), stop)
        send(workspace, 1, [point("preFilter")], debugger=True)  # not a group it joined
        active = [{"pod": "default/a", "uid": "ua", "priority": 5, "attempts": 1}]
        status = {"queue": {"active": active}, "waitingPods": [], "queueSizes": []}
        # Sent on this loop (the consumer's): broadcast.send would pick the sender thread's
        # loop while the consumer is busy with debug.stop, and the in-memory layer's queue,
        # not thread-safe, may then not wake the consumer up.
        message = {"type": broadcast.QUEUE_STATUS, "status": status}
        await get_channel_layer().group_send(broadcast.workspace_group(workspace.pk), message)
        html = await ws.receive_from(timeout=5)  # the socket lived through debug.stop
        return html, await ws.receive_nothing(timeout=0.3)

    html, then_nothing = connect_and("/ws/w/lab/?view=queue", owner, scenario)
    assert html.startswith('<div id="queue-board">') and "priority 5" in html
    assert "live-trace" not in html and then_nothing


def test_the_pod_page_adds_up_the_events_of_the_attempt(owner, workspace):
    store(workspace, pod("web"))

    async def scenario(ws, connected, first):
        send(workspace, 1, [point("preEnqueue"), point("preFilter"), call("filter", "Fit")])
        first_render = await ws.receive_from(timeout=5)
        send(workspace, 1, [call("filter", "Fit", code="Unschedulable"), point("filter")])
        return first_render, await ws.receive_from(timeout=5)

    first_render, html = connect_and(POD_PAGE, owner, scenario)
    assert "running filter" in first_render and "<td>filter</td>" not in first_render
    assert "<td>preEnqueue</td>" in html and "<td>preFilter</td>" in html, "nothing is lost"
    assert "<td>filter</td>" in html and "↳ Fit" in html
    assert "running" not in html


def test_messages_coalesced_while_a_render_waits_lose_no_event(owner, workspace, monkeypatch):
    """The latest message of a type is all a render sees: it must carry every event so far."""
    monkeypatch.setattr(consumers, "RENDER_INTERVAL", 0.4)
    store(workspace, pod("web"))

    async def scenario(ws, connected, first):
        send(workspace, 1, [point("preFilter")])
        await ws.receive_from(timeout=5)
        for name in ("filter", "preScore", "score"):  # within one render interval
            send(workspace, 1, [point(name)])
        html = await ws.receive_from(timeout=5)
        return html, await ws.receive_nothing(timeout=0.6)

    html, then_nothing = connect_and(POD_PAGE, owner, scenario)
    assert then_nothing, "one render for the three messages"
    rows = [line for line in html.splitlines() if 'class="point-row"' in line]
    assert [row.split("<td>")[1].split("<")[0] for row in rows] == [
        "preFilter",
        "filter",
        "preScore",
        "score",
    ]


def test_a_new_attempt_starts_afresh(owner, workspace):
    store(workspace, pod("web"))

    async def scenario(ws, connected, first):
        send(workspace, 1, [point("preFilter"), point("postFilter", "Unschedulable")])
        await ws.receive_from(timeout=5)
        send(workspace, None, [point("preEnqueue")])
        before = await ws.receive_from(timeout=5)
        send(workspace, 2, [point("preFilter")])
        return before, await ws.receive_from(timeout=5)

    before, html = connect_and(POD_PAGE, owner, scenario)
    assert "before its next attempt" in before and "postFilter" not in before
    assert "attempt 2" in html and "postFilter" not in html
    assert "<td>preEnqueue</td>" in html, "PreEnqueue stays with the attempt it let in"


def test_the_pod_page_is_idle_until_an_attempt_of_its_pod_comes(owner, workspace, client):
    store(workspace, pod("web"))
    client.force_login(owner)
    page = client.get("/w/lab/pods/uid-web/").content.decode()
    live = page.index('id="live-trace"')
    assert live < page.index("<h2>Latest attempt</h2>")
    assert "Waiting for the scheduler to follow this page" in page[live:]
    assert "Waiting for the next attempt of this pod" in page[live:]

    debugger = client.get("/w/lab/debugger/").content.decode()
    assert 'id="live-trace"' in debugger
    assert "Waiting for the next attempt of any pod" in debugger


@pytest.mark.parametrize(
    ("path", "said"),
    [
        (POD_PAGE, "Waiting for the next attempt of this pod"),
        (DEBUGGER_PAGE, "Waiting for the next attempt of any pod"),
    ],
    ids=["pod page", "debugger page"],
)
def test_the_live_panel_says_when_the_service_follows_the_page(owner, workspace, path, said):
    store(workspace, pod("web"))

    async def scenario(ws, connected, first):
        [channel] = await database_sync_to_async(
            lambda: list(LiveWatch.objects.values_list("channel", flat=True))
        )()
        broadcast.send_followed(channel)
        return await ws.receive_from(timeout=5)

    html = connect_and(path, owner, scenario)
    assert html.startswith('<section id="live-trace"')
    assert "The scheduler follows this page:" in html and said in html


# ----------------------------------------------------------------------------------------------
# Adding up


@pytest.mark.parametrize(
    ("first", "then", "kept"),
    [
        (("default/web", 1), ("default/web", 1), 2),
        (("default/web", None), ("default/web", 1), 2),
        (("default/web", 1), ("default/web", None), 1),
        (("default/web", 1), ("default/web", 2), 1),
        (("default/web", 1), ("default/api", 1), 1),
    ],
    ids=["same attempt", "PreEnqueue then its attempt", "after it", "next attempt", "other pod"],
)
def test_what_a_message_adds_to(first, then, kept):
    def message(pod_key, attempt):
        return {"pod": pod_key, "uid": pod_key, "attempt": attempt, "events": [point("x")]}

    live = LiveAttempt.of(message(*first)).add(message(*then))
    assert len(live.events) == kept
    assert (live.pod, live.attempt) == then


def test_messages_that_overtake_each_other_are_put_back_in_the_order_sent():
    def message(seq, point_name, attempt=1):
        events = [{"kind": "extensionPoint", "point": point_name, "code": "Success"}]
        return {"pod": "default/web", "uid": "u", "attempt": attempt, "events": events, "seq": seq}

    live = LiveAttempt.of(message(5, "preFilter"))
    for seq, name in ((6, "filter"), (8, "score"), (7, "preScore")):
        live = live.add(message(seq, name))
    assert [e["point"] for e in live.events] == ["preFilter", "filter", "preScore", "score"]
    # A message of an earlier attempt that arrives late does not replace the attempt shown.
    assert live.add(message(2, "postFilter", attempt=0)) is live


def test_a_pre_enqueue_that_arrives_after_its_attempt_still_joins_it():
    def message(seq, point_name, attempt):
        events = [{"kind": "extensionPoint", "point": point_name, "code": "Success"}]
        return {"pod": "default/web", "uid": "u", "attempt": attempt, "events": events, "seq": seq}

    live = LiveAttempt.of(message(3, "postFilter", 1))
    live = live.add(message(5, "preFilter", 2))  # overtook the PreEnqueue sent before it
    live = live.add(message(4, "preEnqueue", None))
    assert live.attempt == 2
    assert [e["point"] for e in live.events] == ["preEnqueue", "preFilter"]
    # One sent before the attempt before (seq 2 < 3) is stale: it changes nothing.
    assert live.add(message(2, "preEnqueue", None)) is live


# ----------------------------------------------------------------------------------------------
# During a stop


def stop_document(stop_id: str, play: float | None = None) -> dict:
    """A stop at Score of default/web as the service stores it, with its attempt's events."""
    _, stops, _ = simulate(NODES + WEB, "score")
    document = {
        **json.loads(json.dumps(stops[0].to_dict())),
        "events": [event.to_dict() for event in stops[0].events],
        "id": stop_id,
        "since": 1_800_000_000.0,
        "deadline": 1_800_000_600.0,
        "play": play,
        "uid": "uid-web",
        "summary": "default/web attempt 1: score",
    }
    return json.loads(json.dumps(document))


def test_a_page_opened_during_a_stop_shows_the_attempts_points_so_far_and_adds_to_them(
    owner, workspace
):
    SchedulerStatus.objects.create(workspace=workspace, stop=stop_document("1-1"))

    async def scenario(ws, connected, first):
        send(workspace, 1, [point("score"), call("reserve", "VolumeBinding")], debugger=True)
        return first, await ws.receive_from(timeout=5)

    first, html = connect_and(DEBUGGER_PAGE, owner, scenario)
    assert "Stopped at score" in first and "running score" in first
    assert "<td>preFilter</td>" in first and "<td>preScore</td>" in first
    assert "<td>preFilter</td>" in html and "<td>score</td>" in html, "the stream goes on"


def test_while_playing_the_end_of_a_stop_waits_for_the_next_one(owner, workspace):
    """(A page opened during the stop knows it plays from the stored stop.)"""
    playing = stop_document("1-1", 5.0)
    SchedulerStatus.objects.create(workspace=workspace, stop=playing)

    async def scenario(ws, connected, first):
        group = broadcast.workspace_group(workspace.pk)
        message = {"type": broadcast.DEBUG_STOP, "note": ""}
        await get_channel_layer().group_send(group, {**message, "stop": None})
        held = await ws.receive_nothing(timeout=0.6)  # a render would say "not stopped"
        await get_channel_layer().group_send(group, {**message, "stop": stop_document("1-2", 5.0)})
        return first, held, await ws.receive_from(timeout=5)

    first, held, html = connect_and(DEBUGGER_PAGE, owner, scenario)
    assert 'value="1-1"' in first and "playing at 5 s" in first
    assert held, "the end of the stop waited for the next one"
    assert 'value="1-2"' in html and "not-stopped" not in html
    assert 'id="debugger-play"' not in html, "Pause is the same button"


def test_once_playing_reaches_the_end_the_page_says_so_one_pace_later(owner, workspace):
    playing = stop_document("1-1", 0.2)
    SchedulerStatus.objects.create(workspace=workspace, stop=playing)

    async def scenario(ws, connected, first):
        group = broadcast.workspace_group(workspace.pk)
        message = {"type": broadcast.DEBUG_STOP, "note": ""}
        await get_channel_layer().group_send(group, {**message, "stop": None})
        return await ws.receive_from(timeout=5)

    assert 'data-testid="not-stopped"' in connect_and(DEBUGGER_PAGE, owner, scenario)
