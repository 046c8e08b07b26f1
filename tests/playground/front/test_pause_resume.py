"""Pausing and resuming the scheduler: commands, the state the answer shows, CSRF, access."""

import time
from datetime import timedelta

import pytest
from django.test import Client
from django.utils import timezone

from playground.front.commands import wait_for_outcome
from playground.workspaces.models import SchedulerCommand, SchedulerLease, Workspace


@pytest.mark.parametrize("kind", ["pause", "resume"], ids=["pause", "resume"])
def test_the_button_sends_the_command_and_wakes_the_scheduler(logged_in, workspace, woken, kind):
    response = logged_in.post(f"/w/lab/{kind}/")
    assert response.status_code == 302
    assert response["Location"] == "/w/lab/"
    assert SchedulerCommand.objects.get().kind == kind
    assert woken == [workspace]


def test_without_a_scheduler_the_answer_says_the_request_waits(htmx, workspace):
    content = htmx.post("/w/lab/pause/").content.decode()
    assert content.lstrip().startswith('<div id="scheduler-state"')
    assert "Asked the scheduler to pause; this shows when it has." in content
    assert ">no scheduler</span>" in content and ">Pause</button>" in content


@pytest.mark.parametrize(
    ("kind", "paused", "badge", "button"),
    [
        ("pause", True, "scheduler paused", "Resume"),
        ("resume", False, "scheduler running", "Pause"),
    ],
    ids=["pause", "resume"],
)
def test_the_answer_shows_the_state_the_scheduler_is_in_once_it_has_done_it(
    htmx, workspace, monkeypatch, kind, paused, badge, button
):
    workspace.paused = not paused
    workspace.save()
    live_lease(workspace)

    def the_service_executes(command, seconds):
        Workspace.objects.filter(pk=command.workspace_id).update(paused=paused)
        return f"{kind}d"

    monkeypatch.setattr("playground.front.views.control.wait_for_outcome", the_service_executes)
    content = htmx.post(f"/w/lab/{kind}/").content.decode()

    panel, _, top_bar = content.partition('<span id="scheduler-badge"')
    assert f">{badge}</span>" in panel and f">{button}</button>" in panel
    assert f"The scheduler {kind}d." in panel
    assert "<code>host:1:task</code>" in panel
    assert top_bar.startswith(' class="scheduler-badge" hx-swap-oob="true">')
    assert f">{badge}</span>" in top_bar


def test_waiting_for_an_outcome_ends_when_the_command_is_done(workspace):
    live_lease(workspace)
    command = SchedulerCommand.objects.create(
        workspace=workspace, kind="pause", done_at=timezone.now(), outcome="paused"
    )
    assert wait_for_outcome(command, 5.0) == "paused"


def test_waiting_for_an_outcome_gives_up_after_the_time_given(workspace):
    live_lease(workspace)
    command = SchedulerCommand.objects.create(workspace=workspace, kind="pause")
    started = time.monotonic()
    assert wait_for_outcome(command, 0.2) is None
    assert 0.2 <= time.monotonic() - started < 2.0


def test_nobody_waits_for_an_outcome_without_a_scheduler(workspace):
    command = SchedulerCommand.objects.create(workspace=workspace, kind="pause")
    started = time.monotonic()
    assert wait_for_outcome(command, 5.0) is None
    assert time.monotonic() - started < 1.0


def live_lease(workspace):
    expires = timezone.now() + timedelta(seconds=30)
    SchedulerLease.objects.create(
        workspace=workspace, holder="host:1:task", acquired_at=timezone.now(), expires_at=expires
    )


def test_a_paused_workspace_offers_resume(logged_in, workspace):
    workspace.paused = True
    workspace.save()
    content = logged_in.get("/w/lab/").content.decode()
    assert 'action="/w/lab/resume/"' in content and ">Resume</button>" in content


def test_pausing_needs_the_csrf_token(user, workspace):
    strict = Client(enforce_csrf_checks=True)
    strict.force_login(user)
    assert strict.post("/w/lab/pause/").status_code == 403
    assert not SchedulerCommand.objects.exists()


def test_pausing_needs_a_post(logged_in, workspace):
    assert logged_in.get("/w/lab/pause/").status_code == 405


def test_strangers_cannot_pause(client, stranger, workspace):
    client.force_login(stranger)
    assert client.post("/w/lab/pause/").status_code == 404
    assert not SchedulerCommand.objects.exists()
