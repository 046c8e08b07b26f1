"""The pod websocket: only known pods, resync on connect, each stored attempt's tables."""

from channels.db import database_sync_to_async

from playground.live import broadcast
from playground.workspaces.models import AttemptTrace, ClusterObject, SchedulingAttempt
from tests.playground.front.rows import pod, store
from tests.playground.live.conftest import connect_and, nothing

POINTS = [
    {"kind": "extensionPoint", "point": "preFilter", "code": "Success", "durationSeconds": 0.001},
    {
        "kind": "extensionPoint",
        "point": "filter",
        "code": "Success",
        "durationSeconds": 0.002,
        "data": {"feasibleNodes": ["n1", "n2"], "failedNodes": {}},
    },
    {
        "kind": "extensionPoint",
        "point": "score",
        "code": "Success",
        "durationSeconds": 0.003,
        "data": {"weights": {}, "scores": {}, "totals": {"n1": 300, "n2": 150}},
    },
    {"kind": "extensionPoint", "point": "reserve", "code": "Success", "node": "n1"},
]


def test_a_pod_of_the_workspace_can_be_followed_and_its_attempts_come_first(owner, workspace):
    store(workspace, pod("web"))
    SchedulingAttempt.objects.create(
        workspace=workspace,
        pod_key="default/web",
        pod_uid="uid-web",
        result="Unschedulable",
        message="0/1 nodes are available: 1 Insufficient cpu.",
    )
    connected, first = connect_and("/ws/w/lab/pods/uid-web/", owner, nothing)
    assert connected
    assert first.startswith('<section id="latest-attempt"')
    assert '<table id="pod-attempts">' in first
    assert "0/1 nodes are available: 1 Insufficient cpu." in first
    assert '<span id="pod-state">' in first


def test_a_deleted_pod_with_attempts_can_still_be_followed(owner, workspace):
    SchedulingAttempt.objects.create(
        workspace=workspace, pod_key="default/gone", pod_uid="uid-gone", result="Scheduled"
    )
    connected, first = connect_and("/ws/w/lab/pods/uid-gone/", owner, nothing)
    assert connected and '<span id="pod-state">' not in first


def test_an_unknown_pod_is_refused(owner, workspace):
    connected, _ = connect_and("/ws/w/lab/pods/nope/", owner, nothing)
    assert not connected


def test_people_without_access_are_refused(stranger, workspace):
    store(workspace, pod("web"))
    connected, _ = connect_and("/ws/w/lab/pods/uid-web/", stranger, nothing)
    assert not connected


def test_a_stored_attempt_redraws_the_latest_attempts_tables(owner, workspace):
    store(workspace, pod("web"))
    attempt = SchedulingAttempt.objects.create(
        workspace=workspace,
        pod_key="default/web",
        pod_uid="uid-web",
        result="Scheduled",
        node="n1",
        final_scores={"n1": 300, "n2": 150},
    )

    async def scenario(ws, connected, first):
        assert "<td>preFilter</td>" not in first  # no trace yet
        await database_sync_to_async(AttemptTrace.pack(attempt, POINTS).save)()
        broadcast.send_trace(workspace.pk, attempt_of("web", attempt.pk), POINTS)
        return await ws.receive_from(timeout=5)

    html = connect_and("/ws/w/lab/pods/uid-web/", owner, scenario)
    assert html.startswith('<section id="latest-attempt"')
    assert '<a href="/w/lab/pods/uid-web/attempts/1/"><strong>Attempt 1</strong></a>' in html
    assert "<td>preFilter</td>" in html and "<td>reserve</td>" in html
    assert "n1 ★</span>" in html and 'style="width: 50.0%"' in html


def test_a_recorded_attempt_refreshes_the_attempts_and_the_state(owner, workspace):
    pending = store(workspace, pod("web"))

    def scheduled():
        ClusterObject.objects.filter(pk=pending.pk).update(node_name="n1")
        SchedulingAttempt.objects.create(
            workspace=workspace, pod_key="default/web", pod_uid="uid-web", result="Scheduled"
        )

    async def scenario(ws, connected, first):
        await database_sync_to_async(scheduled)()
        broadcast.send_trace(workspace.pk, attempt_of("web", 1), POINTS)
        return await ws.receive_from(timeout=5)

    html = connect_and("/ws/w/lab/pods/uid-web/", owner, scenario)
    assert '<table id="pod-attempts">' in html
    assert '<span class="badge bound">bound</span> on <strong>n1</strong>' in html


def test_what_an_attempt_did_not_change_is_not_sent_again(owner, workspace):
    store(workspace, pod("web", nodeName="n1"))

    async def scenario(ws, connected, first):
        attempt = await database_sync_to_async(SchedulingAttempt.objects.create)(
            workspace=workspace, pod_key="default/web", pod_uid="uid-web", result="Scheduled"
        )
        broadcast.send_trace(workspace.pk, attempt_of("web", attempt.pk), POINTS)
        return await ws.receive_from(timeout=5)

    html = connect_and("/ws/w/lab/pods/uid-web/", owner, scenario)
    assert '<table id="pod-attempts">' in html, "the new attempt is listed"
    assert 'id="pod-state"' not in html, "the pod's state did not change: not sent again"


def test_a_message_that_changes_nothing_redraws_nothing(owner, workspace):
    """Fragments equal to the page's are not sent again: they would replace its links for
    nothing (the service publishes its queue twice a second, changed or not)."""
    store(workspace, pod("web", nodeName="n1"))

    async def scenario(ws, connected, first):
        broadcast.send_trace(workspace.pk, attempt_of("web", 1), POINTS)
        return await ws.receive_nothing(timeout=0.5)

    assert connect_and("/ws/w/lab/pods/uid-web/", owner, scenario)


def test_another_pods_messages_do_not_arrive(owner, workspace):
    store(workspace, pod("web"))

    async def scenario(ws, connected, first):
        broadcast.send_trace(workspace.pk, attempt_of("other", 8), POINTS)
        return await ws.receive_nothing(timeout=0.3)

    assert connect_and("/ws/w/lab/pods/uid-web/", owner, scenario)


def test_connecting_shows_the_latest_attempts_tables(owner, workspace):
    store(workspace, pod("web"))
    for number in (1, 2):
        attempt = SchedulingAttempt.objects.create(
            workspace=workspace, pod_key="default/web", pod_uid="uid-web"
        )
        AttemptTrace.pack(attempt, POINTS[: number + 1]).save()
    _, first = connect_and("/ws/w/lab/pods/uid-web/", owner, nothing)
    latest = first[: first.index("</section>")]
    assert '<a href="/w/lab/pods/uid-web/attempts/2/"><strong>Attempt 2</strong></a>' in latest
    assert "<td>score</td>" in latest and "<td>reserve</td>" not in latest


def attempt_of(name: str, attempt_id: int) -> dict:
    """An attempt's summary as the service broadcasts it."""
    return {"id": attempt_id, "uid": f"uid-{name}", "pod": f"default/{name}", "result": "Scheduled"}
