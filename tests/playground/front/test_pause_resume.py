"""Pausing and resuming the scheduler: commands, CSRF, access."""

import pytest
from django.test import Client

from playground.workspaces.models import SchedulerCommand


@pytest.mark.parametrize("kind", ["pause", "resume"], ids=["pause", "resume"])
def test_the_button_sends_the_command_and_wakes_the_scheduler(logged_in, workspace, woken, kind):
    response = logged_in.post(f"/w/lab/{kind}/")
    assert response.status_code == 302
    assert response["Location"] == "/w/lab/"
    assert SchedulerCommand.objects.get().kind == kind
    assert woken == [workspace]


def test_htmx_gets_the_scheduler_state_back(htmx, workspace):
    content = htmx.post("/w/lab/pause/").content.decode()
    assert content.startswith('<div id="scheduler-state"')
    assert "Asked the scheduler to pause." in content


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
