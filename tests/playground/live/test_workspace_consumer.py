"""The workspace websocket: who may connect, resync on connect, broadcasts become fragments."""

from datetime import timedelta

import pytest
from channels.db import database_sync_to_async
from channels.layers import get_channel_layer
from django.utils import timezone

from playground.live import broadcast
from playground.workspaces.models import SchedulerLease, SchedulerStatus, Workspace
from tests.playground.front.rows import node, pod, store
from tests.playground.live.conftest import connect_and, nothing

WAITING = {"pod": "default/w", "uid": "uw", "node": "n1", "pendingPlugins": ["Gate"]}


@pytest.mark.parametrize(
    ("who", "origin"),
    [
        ("nobody", "http://127.0.0.1:8000"),
        ("stranger", "http://127.0.0.1:8000"),
        ("owner", "http://evil.example"),
        ("owner", None),
    ],
    ids=[
        "an anonymous visitor",
        "a user without access",
        "a page from another origin",
        "a client that sends no origin",
    ],
)
def test_the_socket_is_refused(owner, stranger, workspace, who, origin):
    user = {"nobody": None, "stranger": stranger, "owner": owner}[who]
    connected, _ = connect_and("/ws/w/lab/", user, nothing, origin)
    assert not connected


def test_an_unknown_workspace_is_refused(owner, workspace):
    connected, _ = connect_and("/ws/w/nope/", owner, nothing)
    assert not connected


def test_a_member_connects_and_gets_the_scheduler_state_at_once(owner, stranger, workspace):
    workspace.members.add(stranger)
    connected, first = connect_and("/ws/w/lab/", stranger, nothing)
    assert connected
    assert first.startswith('<span id="scheduler-badge"')
    assert ">no scheduler</span>" in first


def test_connecting_resynchronises_the_page_from_the_database(owner, workspace):
    SchedulerStatus.objects.create(workspace=workspace, queue={"waiting": [WAITING]})
    _, first = connect_and("/ws/w/lab/?view=permit", owner, nothing)
    assert '<div id="permit-console">' in first
    assert 'href="/w/lab/pods/uw/"' in first


def test_a_queue_status_becomes_the_queue_board(owner, workspace):
    async def scenario(ws, connected, first):
        status = {
            "queue": {"active": [{"pod": "default/a", "uid": "ua", "priority": 5, "attempts": 1}]},
            "waitingPods": [],
            "queueSizes": [[0.0, 1, 0, 0]],
            "paused": False,
        }
        broadcast.send_status(workspace.pk, status)
        return await ws.receive_from(timeout=5)

    html = connect_and("/ws/w/lab/?view=queue&window=60", owner, scenario)
    assert html.startswith('<div id="queue-board">')
    assert "priority 5" in html
    assert "peak 1 pod in the last 1 min" in html  # the page's window, kept live


def test_node_usage_updates_the_bars_of_the_nodes_on_the_page(owner, workspace):
    store(workspace, node("n1"))
    usage = {"requested": 3000, "allocatable": 4000}
    nodes = [
        {"name": "n1", "cpu": usage, "memory": usage, "pods": {"requested": 1, "allocatable": 10}},
        {"name": "elsewhere", "cpu": usage, "memory": usage, "pods": usage},
    ]

    async def scenario(ws, connected, first):
        broadcast.send_node_usage(workspace.pk, nodes)
        return first, await ws.receive_from(timeout=5)

    first, html = connect_and("/ws/w/lab/?view=nodes&page=1", owner, scenario)
    assert '<div class="usage" id="usage-n1">' in first
    assert html.startswith('<div class="usage" id="usage-n1">')
    assert "3 / 4" in html and "1 / 10" in html
    assert "elsewhere" not in html


def test_a_claim_allocated_after_the_usage_was_published_redraws_the_nodes_devices(
    owner, workspace
):
    """PreBind writes an allocation after the scheduler published its usage: the cluster news
    that follows redraws the devices in use, from the stored claims."""
    store(workspace, node("n1"))
    store(workspace, gpu_slice("n1", "gpu-0", "gpu-1"))

    async def scenario(ws, connected, first):
        await database_sync_to_async(store)(workspace, allocated_claim("n1", "gpu-1"))
        broadcast.send_status(workspace.pk, {"queue": {}, "paused": False})
        return first, await ws.receive_from(timeout=5)

    first, html = connect_and("/ws/w/lab/?view=nodes&page=1", owner, scenario)
    assert '<div class="usage" id="devices-n1">' in first and "0 / 2" in first
    assert html.startswith('<div class="usage" id="devices-n1">')
    assert "<span>gpu.example.com</span>" in html and "1 / 2" in html


def gpu_slice(node_name: str, *devices: str) -> dict:
    return {
        "apiVersion": "resource.k8s.io/v1",
        "kind": "ResourceSlice",
        "metadata": {"name": f"{node_name}-gpus"},
        "spec": {
            "driver": "gpu.example.com",
            "nodeName": node_name,
            "pool": {"name": node_name, "generation": 1, "resourceSliceCount": 1},
            "devices": [{"name": name} for name in devices],
        },
    }


def allocated_claim(node_name: str, device: str) -> dict:
    result = {"request": "gpu", "driver": "gpu.example.com", "pool": node_name, "device": device}
    return {
        "apiVersion": "resource.k8s.io/v1",
        "kind": "ResourceClaim",
        "metadata": {"name": "gpu", "namespace": "default"},
        "spec": {"devices": {"requests": [{"name": "gpu", "exactly": {"deviceClassName": "g"}}]}},
        "status": {"allocation": {"devices": {"results": [result]}}},
    }


@pytest.mark.parametrize("view", ["", "overview", "nodes", "pods", "queue", "permit"])
def test_a_change_of_the_schedulers_state_reaches_every_place_that_shows_it(owner, workspace, view):
    def paused_under_a_new_holder():
        Workspace.objects.filter(pk=workspace.pk).update(paused=True)
        expires = timezone.now() + timedelta(seconds=30)
        SchedulerLease.objects.update_or_create(
            workspace=workspace, defaults={"holder": "host:7:task", "expires_at": expires}
        )

    async def scenario(ws, connected, first):
        await database_sync_to_async(paused_under_a_new_holder)()
        broadcast.send_service_state(workspace.pk)
        return first, await ws.receive_from(timeout=5)

    first, html = connect_and(f"/ws/w/lab/?view={view}", owner, scenario)
    assert ">no scheduler</span>" in first
    assert html.startswith('<span id="scheduler-badge" class="scheduler-badge">')
    assert '<span id="service-state" class="badge backoff"' in html
    assert ">scheduler paused</span>" in html and '<span class="holder"' in html
    panel = view in ("overview", "queue")
    assert ('<div id="scheduler-state"' in html) == panel
    if panel:
        assert "<code>host:7:task</code>" in html and ">Resume</button>" in html


def test_a_lease_that_lapses_unannounced_shows_as_no_scheduler(owner, workspace, monkeypatch):
    monkeypatch.setattr("playground.live.consumers.STATE_CHECK_SECONDS", 0.2)
    expires = timezone.now() + timedelta(seconds=1)
    SchedulerLease.objects.create(workspace=workspace, holder="host:7:task", expires_at=expires)

    async def scenario(ws, connected, first):
        return first, await ws.receive_from(timeout=5)

    first, html = connect_and("/ws/w/lab/?view=queue", owner, scenario)
    assert ">scheduler running</span>" in first
    assert ">no scheduler</span>" in html


def test_a_board_whose_message_was_lost_catches_up_at_the_next_state_check(
    owner, workspace, monkeypatch
):
    """A full channel drops messages silently (channels_redis's capacity): the board, which an
    idle scheduler would never send again, is read from the database every few seconds."""
    monkeypatch.setattr("playground.live.consumers.STATE_CHECK_SECONDS", 0.2)

    async def scenario(ws, connected, first):
        await database_sync_to_async(store)(workspace, pod("web", nodeName="n1"))
        return first, await ws.receive_from(timeout=5)  # no message was sent: the check's

    first, html = connect_and("/ws/w/lab/?view=queue", owner, scenario)
    assert '<h3>Bound <span class="badge">0</span></h3>' in first
    assert '<h3>Bound <span class="badge">1</span></h3>' in html
    assert "default/web</a>" in html


def test_news_that_change_nothing_on_the_page_send_nothing(owner, workspace):
    async def scenario(ws, connected, first):
        broadcast.send_status(workspace.pk, {"queue": {}, "paused": False})
        broadcast.send_service_state(workspace.pk)
        return await ws.receive_nothing(timeout=0.5)

    assert connect_and("/ws/w/lab/?view=overview", owner, scenario)


def test_the_overview_sends_only_what_changed_and_keeps_the_schedulers_panel(owner, workspace):
    async def scenario(ws, connected, first):
        await database_sync_to_async(store)(workspace, pod("web"))
        broadcast.send_status(workspace.pk, {"queue": {}, "paused": False})
        return first, await ws.receive_from(timeout=5)

    first, html = connect_and("/ws/w/lab/?view=overview", owner, scenario)
    assert '<div id="scheduler-state"' in first
    assert html.startswith('<div id="overview-summary"')
    assert "scheduler-state" not in html and "scheduler-badge" not in html
    assert '<td>pending pods</td><td class="num">1</td>' in html


def test_a_recorded_attempt_refreshes_the_pods_table(owner, workspace):
    async def scenario(ws, connected, first):
        await database_sync_to_async(store)(workspace, pod("web"))
        attempt = {"id": 1, "pod": "default/web", "uid": "uid-web", "result": "Scheduled"}
        broadcast.send_attempts(workspace.pk, [attempt])
        return await ws.receive_from(timeout=5)

    html = connect_and("/ws/w/lab/?view=pods&page=1", owner, scenario)
    assert html.startswith('<div id="pods-table">')
    assert "default/web" in html


def test_messages_a_view_does_not_show_send_nothing(owner, workspace):
    async def scenario(ws, connected, first):
        broadcast.send_node_usage(workspace.pk, [])
        return await ws.receive_nothing(timeout=0.3)

    assert connect_and("/ws/w/lab/?view=queue", owner, scenario)


def test_leaving_the_page_leaves_the_group(owner, workspace, monkeypatch):
    layer = get_channel_layer()
    left = []
    discard = layer.group_discard

    async def spy(group, channel):
        left.append(group)
        await discard(group, channel)

    monkeypatch.setattr(layer, "group_discard", spy)
    connect_and("/ws/w/lab/", owner, nothing)
    assert left == [f"workspace-{workspace.pk}"]


def test_a_page_that_receives_nothing_for_a_while_keeps_its_socket(owner, workspace):
    """Pages receive only changes, so a socket may wait long: with Redis, longer than the
    channel layer's blocking pop (5 s), which must not end it."""
    layer = get_channel_layer()
    if not hasattr(layer, "brpop_timeout"):
        pytest.skip("only the Redis channel layer blocks on a pop")

    async def scenario(ws, connected, first):
        assert await ws.receive_nothing(timeout=layer.brpop_timeout + 1.5, interval=0.5)
        await database_sync_to_async(store)(workspace, pod("web"))
        broadcast.send_status(workspace.pk, {"queue": {}, "paused": False})
        return await ws.receive_from(timeout=5)

    html = connect_and("/ws/w/lab/?view=overview", owner, scenario)
    assert html.startswith('<div id="overview-summary"')
