"""The queue board: every place a pending pod can be, the bound pods and the sizes chart."""

import pytest

from playground.workspaces.models import SchedulerStatus, SchedulingAttempt
from tests.playground.front.rows import pod, store

QUEUE = {
    "active": [{"pod": "default/a", "uid": "ua", "priority": 10, "attempts": 0}],
    "backoff": [
        {"pod": "default/b", "uid": "ub", "priority": 0, "attempts": 2, "backoffSeconds": 3.5}
    ],
    "unschedulable": [
        {
            "pod": "default/u",
            "uid": "uu",
            "plugins": ["NodeResourcesFit"],
            "message": "0/2 nodes are available: 2 Insufficient cpu.",
        }
    ],
    "gated": [{"pod": "default/g", "uid": "ug", "plugins": ["SchedulingGates"], "message": ""}],
    "inFlight": [{"pod": "default/f", "uid": "uf"}],
    "waiting": [{"pod": "default/w", "uid": "uw", "node": "n1", "pendingPlugins": ["Gate"]}],
    "binding": [{"pod": "default/x", "uid": "ux", "node": "n2", "seconds": 0.4}],
}


@pytest.fixture
def status(workspace):
    return SchedulerStatus.objects.create(
        workspace=workspace,
        queue=QUEUE,
        waiting_pods=QUEUE["waiting"],
        queue_sizes=[[0.0, 1, 1, 2], [10.0, 3, 0, 2]],
    )


def test_each_column_shows_what_matters_in_it(logged_in, status):
    content = logged_in.get("/w/lab/queue/").content.decode()
    assert "priority 10" in content
    assert "3.5 s left" in content
    assert '<span class="label">NodeResourcesFit</span>' in content
    assert "0/2 nodes are available: 2 Insufficient cpu." in content
    assert '<span class="label">SchedulingGates</span>' in content
    assert 'href="/w/lab/pods/uf/"' in content
    assert "on n1, waiting for" in content
    assert "to n2, 0.4 s" in content


def test_each_pod_links_to_its_latest_attempt_by_the_number_its_page_shows(
    logged_in, workspace, status
):
    """The scheduler's own count (``attempts``) starts again with every new scheduler; the
    board shows the number of the pod's latest stored attempt instead."""
    for _ in range(3):
        SchedulingAttempt.objects.create(
            workspace=workspace, pod_key="default/b", pod_uid="ub", result="Unschedulable"
        )
    content = logged_in.get("/w/lab/queue/").content.decode()
    backoff = content[content.index('id="column-backoff"') :]
    backoff = backoff[: backoff.index("</section>")]
    assert '<a class="attempt" href="/w/lab/pods/ub/attempts/3/"' in backoff
    assert "attempt 3</a>" in backoff and "2 attempts" not in backoff
    active = content[content.index('id="column-active"') : content.index('id="column-backoff"')]
    assert 'class="attempt"' not in active  # default/a has made no attempt yet


def test_bound_pods_are_listed_latest_first(logged_in, workspace, status):
    store(workspace, pod("old", nodeName="n1"))
    store(workspace, pod("new", nodeName="n2"))
    store(workspace, pod("pending"))
    content = logged_in.get("/w/lab/queue/").content.decode()
    bound = content[content.index('id="column-bound"') :]
    assert bound.index("default/new") < bound.index("default/old")
    assert "default/pending" not in bound


def test_the_chart_draws_the_sizes_over_time_with_axes_in_units(logged_in, status):
    content = logged_in.get("/w/lab/queue/").content.decode()
    assert content.count("<polyline") == 4  # active, backoff, unschedulable, gated
    assert "peak 3 pods in the last 5 min" in content
    assert 'aria-label="Queue sizes (pods) over the last 5 min"' in content
    assert ">\u22125 min</text>" in content and ">0 min</text>" in content
    assert ">pods</text>" in content and ">time before the latest sample</text>" in content


def test_the_chart_window_is_chosen_in_the_url_and_kept_by_the_live_board(logged_in, status):
    content = logged_in.get("/w/lab/queue/?window=60").content.decode()
    assert '<a href="?window=60" aria-current="true">1 min</a>' in content
    assert ">\u221260 s</text>" in content and "peak 3 pods in the last 1 min" in content
    assert 'ws-connect="/ws/w/lab/?view=queue&amp;window=60"' in content


def test_the_whole_history_is_named_as_such_not_as_the_last_all(logged_in, status):
    content = logged_in.get("/w/lab/queue/?window=all").content.decode()
    assert "peak 3 pods in all the samples kept" in content
    assert 'aria-label="Queue sizes (pods) over all the samples kept"' in content
    assert "the last all" not in content


def test_an_unknown_chart_window_is_named_and_the_default_shown(logged_in, status):
    content = logged_in.get("/w/lab/queue/?window=7").content.decode()
    assert "window: unknown value &quot;7&quot;: choose one of 60, 300, 600, all" in content
    assert '<a href="?window=300" aria-current="true">5 min</a>' in content


def test_long_columns_show_their_first_pods_and_their_size(logged_in, workspace, monkeypatch):
    monkeypatch.setattr("playground.front.views.queue.COLUMN_LIMIT", 2)
    active = [
        {"pod": f"default/p{i}", "uid": f"u{i}", "priority": 0, "attempts": 0} for i in range(5)
    ]
    SchedulerStatus.objects.create(workspace=workspace, queue={"active": active})
    content = logged_in.get("/w/lab/queue/").content.decode()
    assert "default/p1" in content and "default/p2" not in content
    assert "the first 2 of 5" in content


def test_a_workspace_without_a_scheduler_status_shows_empty_columns(logged_in, workspace):
    content = logged_in.get("/w/lab/queue/").content.decode()
    assert "No samples yet." in content


def test_htmx_gets_the_board_only(htmx, status):
    assert htmx.get("/w/lab/queue/").content.decode().startswith('<div id="queue-board">')


def test_the_board_subscribes_to_the_workspace_stream(logged_in, status):
    content = logged_in.get("/w/lab/queue/").content.decode()
    assert 'ws-connect="/ws/w/lab/?view=queue&amp;window=300"' in content
