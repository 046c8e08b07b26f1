"""The workspace websocket: who may connect, resync on connect, broadcasts become fragments."""

import pytest
from channels.layers import get_channel_layer

from playground.live import broadcast
from playground.workspaces.models import SchedulerStatus
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
    assert first.startswith('<span id="service-state"')
    assert "scheduler stopped" in first


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


def test_the_service_state_is_shown_on_every_view(owner, workspace):
    async def scenario(ws, connected, first):
        broadcast.send_service_state(workspace.pk, "paused", "worker:1:abc", 3)
        return await ws.receive_from(timeout=5)

    html = connect_and("/ws/w/lab/", owner, scenario)
    assert html.startswith('<span id="service-state" class="badge backoff"')
    assert "scheduler paused" in html


def test_a_recorded_attempt_refreshes_the_pods_table(owner, workspace):
    store(workspace, pod("web"))

    async def scenario(ws, connected, first):
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
