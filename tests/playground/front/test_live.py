"""Which page a websocket feeds, read from the query string it was opened with; the
scheduler badge every workspace page shows."""

from datetime import timedelta

import pytest
from django.utils import timezone

from playground.front.live import LiveView
from playground.workspaces.models import SchedulerLease


@pytest.mark.parametrize(
    ("query", "view"),
    [
        (b"view=pods&page=3", LiveView("pods", "3")),
        (b"view=queue", LiveView("queue", "1")),
        (b"", LiveView("", "1")),
        (b"view=admin&page=-1", LiveView("", "1")),
        ("view=nodes&page=2", LiveView("nodes", "2")),
        (b"view=profile", LiveView("profile", "1")),
        (b"view=pod-group&group=default/g", LiveView("pod-group", "1", group=("default", "g"))),
    ],
    ids=[
        "a page of pods",
        "the queue board",
        "nothing named",
        "unknown views and bad pages are ignored",
        "text as well as bytes",
        "the profile page",
        "a pod group's page",
    ],
)
def test_the_view_comes_from_the_query_string(query, view):
    assert LiveView.from_query(query) == view


@pytest.mark.parametrize(
    ("lease_seconds", "holder", "paused", "badge"),
    [
        (None, "", False, "no scheduler"),
        (-5, "w1:7:task", False, "no scheduler"),
        (30, "starting:task", False, "scheduler starting"),
        (30, "w1:7:task", False, "scheduler running"),
        (30, "w1:7:task", True, "scheduler paused"),
    ],
    ids=["no lease", "a lapsed lease", "a start reserved", "a live lease", "a live lease, paused"],
)
@pytest.mark.parametrize("page", ["objects/", "transfer/"])
def test_pages_without_a_stream_of_their_own_show_the_state_and_open_one_for_it(
    logged_in, workspace, page, lease_seconds, holder, paused, badge
):
    workspace.paused = paused
    workspace.save()
    if lease_seconds is not None:
        expires = timezone.now() + timedelta(seconds=lease_seconds)
        SchedulerLease.objects.create(workspace=workspace, holder=holder, expires_at=expires)

    content = logged_in.get(f"/w/lab/{page}").content.decode()

    assert f">{badge}</span>" in content
    assert content.count('ws-connect="/ws/w/lab/"') == 1
    running = badge in ("scheduler running", "scheduler paused")
    shown = f'<span class="holder" title="holds the scheduler\'s lease: {holder}">w1:7</span>'
    assert (shown in content) == running


@pytest.mark.parametrize(
    "page", ["", "nodes/", "pods/", "queue/", "permit/", "profile/", "pod-groups/"]
)
def test_pages_with_a_stream_of_their_own_open_no_second_one(logged_in, workspace, page):
    content = logged_in.get(f"/w/lab/{page}").content.decode()
    assert content.count("ws-connect=") == 1
    assert 'ws-connect="/ws/w/lab/?view=' in content
