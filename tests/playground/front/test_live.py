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
    ],
    ids=[
        "a page of pods",
        "the queue board",
        "nothing named",
        "unknown views and bad pages are ignored",
        "text as well as bytes",
    ],
)
def test_the_view_comes_from_the_query_string(query, view):
    assert LiveView.from_query(query) == view


@pytest.mark.parametrize(
    ("lease_seconds", "paused", "badge"),
    [
        (None, False, "scheduler stopped"),
        (-5, False, "scheduler stopped"),
        (30, False, "scheduler running"),
        (30, True, "scheduler paused"),
    ],
    ids=["no lease", "a lapsed lease", "a live lease", "a live lease, paused"],
)
@pytest.mark.parametrize("page", ["objects/", "profile/", "transfer/"])
def test_pages_without_a_stream_show_the_schedulers_state_as_they_load(
    logged_in, workspace, page, lease_seconds, paused, badge
):
    workspace.paused = paused
    workspace.save()
    if lease_seconds is not None:
        expires = timezone.now() + timedelta(seconds=lease_seconds)
        SchedulerLease.objects.create(workspace=workspace, holder="w1", expires_at=expires)

    content = logged_in.get(f"/w/lab/{page}").content.decode()

    assert f">{badge}</span>" in content
