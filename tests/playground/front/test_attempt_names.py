"""One name and number per attempt: "attempt 2 of pod default/web", at
``/w/<slug>/pods/<uid>/attempts/2/``, on every page that shows it."""

from __future__ import annotations

import re

import pytest
from django.contrib.auth import get_user_model

from playground.workspaces.models import SchedulerStatus, SchedulingAttempt
from tests.playground.front.rows import pod, store

URL = "/w/lab/pods/uid-web/attempts/2/"


@pytest.fixture
def second_attempt(workspace):
    """The web pod, unschedulable after its second attempt (an attempt of another pod first:
    numbers are the pod's own, not the workspace's)."""
    store(workspace, pod("web"))
    for uid in ("uid-other", "uid-web", "uid-web"):
        attempt = SchedulingAttempt.objects.create(
            workspace=workspace, pod_key="default/web", pod_uid=uid, result="Unschedulable"
        )
    unschedulable = [{"pod": "default/web", "uid": "uid-web", "plugins": [], "attempts": 1}]
    SchedulerStatus.objects.create(workspace=workspace, queue={"unschedulable": unschedulable})
    return attempt


@pytest.mark.parametrize(
    ("page", "shown"),
    [
        ("/w/lab/pods/uid-web/", f'<a href="{URL}"><strong>Attempt 2</strong></a>'),
        ("/w/lab/pods/uid-web/", f'<a href="{URL}" title="attempt 2 of pod default/web">2</a>'),
        ("/w/lab/", f'<a href="{URL}">attempt 2</a>'),
        ("/w/lab/queue/", f'<a class="attempt" href="{URL}" title="its latest attempt">attempt 2'),
        (URL, "<h1>Attempt 2 of pod "),
    ],
    ids=["pod page, latest attempt", "pod page, attempts", "overview", "queue board", "attempt"],
)
def test_every_page_names_the_attempt_by_its_pods_number(logged_in, second_attempt, page, shown):
    assert shown in logged_in.get(page).content.decode()


def test_the_admin_lists_the_attempt_by_the_same_name_and_links_to_its_page(client, second_attempt):
    admin = get_user_model().objects.create_superuser("root", password="x")
    client.force_login(admin)
    listing = client.get("/admin/workspaces/schedulingattempt/").content.decode()
    assert "attempt 2 of pod default/web" in listing
    change = client.get(f"/admin/workspaces/schedulingattempt/{second_attempt.pk}/change/")
    view_on_site = re.search(r'href="([^"]+)" class="viewsitelink"', change.content.decode())
    assert client.get(view_on_site[1])["Location"].endswith(URL)
