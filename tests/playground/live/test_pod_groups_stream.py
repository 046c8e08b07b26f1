"""The PodGroups page and a group's page, live: a connect draws them from the database, and
each ``queue.status`` the scheduler publishes moves the members and the quorum bar."""

from __future__ import annotations

from channels.db import database_sync_to_async

from playground.live import broadcast
from playground.workspaces.models import SchedulingAttempt
from tests.playground.front.rows import store
from tests.playground.front.test_pod_groups_page import member, pod_group
from tests.playground.live.conftest import connect_and, nothing


def waiting(*names: str, seconds: float = 300.0) -> list[dict]:
    return [
        {
            "pod": f"default/{name}",
            "uid": f"uid-{name}",
            "node": "n1",
            "pendingPlugins": ["GangScheduling"],
            "secondsLeft": {"GangScheduling": seconds},
        }
        for name in names
    ]


def status(*waiting_names: str, gated: tuple[str, ...] = ()) -> dict:
    entries = waiting(*waiting_names)
    held = [
        {"pod": f"default/{n}", "uid": f"uid-{n}", "plugins": ["GangScheduling"]} for n in gated
    ]
    return {"queue": {"waiting": entries, "gated": held}, "waitingPods": entries, "paused": False}


def a_gang_of_three(workspace) -> None:
    store(workspace, pod_group("g", 3))
    for name in ("g-0", "g-1", "g-2"):
        store(workspace, member(name, "g"))


def test_connecting_draws_the_groups_from_the_database(owner, workspace):
    a_gang_of_three(workspace)
    _, first = connect_and("/ws/w/lab/?view=pod-groups", owner, nothing)
    assert '<div id="pod-groups">' in first
    assert "0 of 3 placed, waiting for 3" in first


def test_a_queue_status_moves_the_members_and_the_quorum_bar(owner, workspace):
    a_gang_of_three(workspace)

    async def scenario(ws, connected, first):
        broadcast.send_status(workspace.pk, status("g-0", "g-1", gated=("g-2",)))
        return await ws.receive_from(timeout=5)

    html = connect_and("/ws/w/lab/?view=pod-groups", owner, scenario)
    assert html.startswith('<div id="pod-groups">')
    assert "2 of 3 placed, waiting for 1" in html
    assert "waiting at Permit for the quorum, 5:00 left of 5:00" in html
    assert "held at PreEnqueue by GangScheduling" in html


def test_a_groups_page_follows_its_group_only(owner, workspace):
    a_gang_of_three(workspace)
    store(workspace, pod_group("other", 2))

    async def scenario(ws, connected, first):
        broadcast.send_status(workspace.pk, status("g-0", "g-1", "g-2"))
        return first, await ws.receive_from(timeout=5)

    first, html = connect_and("/ws/w/lab/?view=pod-group&group=default/g", owner, scenario)
    assert '<section id="pod-group-members"' in first and '<div id="pod-group-cycle">' in first
    assert html.startswith('<section id="pod-group-members"')
    assert "3 of 3 placed" in html and "waiting for" not in html
    assert "other" not in first + html


def test_a_groups_page_of_a_group_that_is_gone_shows_the_state_only(owner, workspace):
    _, first = connect_and("/ws/w/lab/?view=pod-group&group=default/gone", owner, nothing)
    assert first.startswith('<span id="scheduler-badge"')
    assert "pod-group" not in first


def test_a_groups_page_redraws_its_cycle_once_attempts_are_stored(owner, workspace):
    a_gang_of_three(workspace)

    async def scenario(ws, connected, first):
        await database_sync_to_async(SchedulingAttempt.objects.create)(
            workspace=workspace,
            pod_key="default/g-1",
            pod_uid="uid-g-1",
            number=1,
            result="Unschedulable",
            message="0/2 nodes are available: 2 Insufficient cpu.",
        )
        broadcast.send_attempts(workspace.pk, [{"uid": "uid-g-1"}])
        return first, await ws.receive_from(timeout=5)

    first, html = connect_and("/ws/w/lab/?view=pod-group&group=default/g", owner, scenario)
    assert "No member has been tried yet" in first
    assert html.startswith('<div id="pod-group-cycle">')
    assert "Why the group failed" in html and "2 Insufficient cpu." in html
