"""The connection page's mirror section and ``manage.py cluster mirror|unmirror``: start makes
the workspace and starts the mirror, the section shows the state a worker wrote, stop leaves an
ordinary workspace; only the owner may do any of it."""

from __future__ import annotations

import io
from datetime import timedelta

import pytest
from django.contrib.auth import get_user_model
from django.core.management import CommandError, call_command
from django.urls import reverse
from django.utils import timezone

from playground.clusters.models import ClusterConnection, MirrorLease, MirrorStatus
from playground.workspaces.models import Workspace
from tests.playground.clusters.kubeconfigs import closed_port_url, kubeconfig
from tests.playground.conftest import PASSWORD


@pytest.fixture
def stored(user):
    connection = ClusterConnection(name="prod", owner=user, server=closed_port_url())
    connection.set_kubeconfig(kubeconfig(server=closed_port_url()))
    connection.save()
    return connection


@pytest.fixture
def logged_in(client, user):
    client.force_login(user)
    return client


@pytest.fixture
def started(monkeypatch):
    """Connections whose mirror the pages asked to start (no task is enqueued)."""
    calls = []
    monkeypatch.setattr("playground.clusters.views.ensure_mirror_running", calls.append)
    return calls


def url(name: str, connection: ClusterConnection) -> str:
    return reverse(name, args=[connection.pk])


def running(connection: ClusterConnection, state: str, **fields) -> None:
    """What a worker running the mirror would have written."""
    now = timezone.now()
    MirrorLease.objects.create(
        connection=connection, holder="w", generation=1, expires_at=now + timedelta(seconds=30)
    )
    MirrorStatus.objects.create(connection=connection, state=state, started_at=now, **fields)


def test_start_mirroring_makes_a_linked_workspace_and_starts_the_mirror(logged_in, stored, started):
    response = logged_in.post(url("connection-mirror-start", stored), {"workspace_name": "Prod"})
    assert response.status_code == 302
    stored.refresh_from_db()
    workspace = Workspace.objects.get(name="Prod")
    assert stored.workspace == workspace
    assert workspace.owner == stored.owner
    assert workspace.current_configuration() is not None
    assert started == [stored]
    page = logged_in.get(stored.get_absolute_url()).content.decode()
    assert "Stop mirroring" in page
    assert 'data-mirror-state="starting"' in page  # no worker has it yet


def test_a_taken_workspace_name_is_refused_with_the_reason(logged_in, stored, started, workspace):
    response = logged_in.post(
        url("connection-mirror-start", stored), {"workspace_name": workspace.name}, follow=True
    )
    assert "workspace name: you already have a workspace named" in response.content.decode()
    stored.refresh_from_db()
    assert stored.workspace is None
    assert started == []


def test_the_section_shows_what_the_running_mirror_wrote(logged_in, stored, workspace):
    stored.workspace = workspace
    stored.save()
    running(
        stored,
        MirrorStatus.FAILING,
        error="Pod: the API server at https://x is unreachable: connection refused",
        lag_seconds=42.0,
        kinds={
            "Node": {"objects": 3, "synced": True, "error": "", "relists": 1, "stored": True},
            "Pod": {"objects": 7, "synced": False, "error": "Pod: unreachable", "relists": 0,
                    "stored": True},
        },
    )  # fmt: skip
    fragment = logged_in.get(url("connection-mirror", stored)).content.decode()
    assert fragment.lstrip().startswith('<section class="panel" id="mirror"')
    assert 'hx-trigger="every 2s"' in fragment
    assert 'data-mirror-state="failing"' in fragment
    assert "Pod: the API server at https://x is unreachable: connection refused" in fragment
    assert "42 s since the server last answered" in fragment
    assert '<tr data-kind="Node">' in fragment and ">3</td>" in fragment
    assert ">7</td>" in fragment


def test_a_state_left_by_a_dead_worker_is_not_shown_as_current(logged_in, stored, workspace):
    stored.workspace = workspace
    stored.save()
    running(stored, MirrorStatus.SYNCED)
    MirrorLease.objects.filter(connection=stored).update(expires_at=timezone.now())
    fragment = logged_in.get(url("connection-mirror", stored)).content.decode()
    assert 'data-mirror-state="starting"' in fragment


def test_stop_mirroring_leaves_an_ordinary_workspace(logged_in, stored, workspace):
    stored.workspace = workspace
    stored.second_scheduler = True
    stored.save()
    response = logged_in.post(url("connection-mirror-stop", stored), follow=True)
    assert "is an ordinary workspace now" in response.content.decode()
    stored.refresh_from_db()
    assert stored.workspace is None
    assert stored.second_scheduler is False  # nothing left to schedule for
    assert Workspace.objects.filter(pk=workspace.pk).exists()
    assert "Start mirroring" in response.content.decode()


def test_only_the_owner_may_start_see_or_stop_the_mirror(client, stored, workspace, started):
    get_user_model().objects.create_user("eve", password=PASSWORD)
    client.login(username="eve", password=PASSWORD)
    assert client.post(url("connection-mirror-start", stored)).status_code == 404
    assert client.get(url("connection-mirror", stored)).status_code == 404
    stored.workspace = workspace
    stored.save()
    assert client.post(url("connection-mirror-stop", stored)).status_code == 404
    stored.refresh_from_db()
    assert stored.workspace == workspace
    assert started == []


def test_the_starts_need_a_post(logged_in, stored):
    assert logged_in.get(url("connection-mirror-start", stored)).status_code == 405
    assert logged_in.get(url("connection-mirror-stop", stored)).status_code == 405


def test_the_command_starts_and_stops_mirroring(user, stored):
    out = io.StringIO()
    call_command("cluster", "mirror", "prod", "--workspace", "Prod mirror", stdout=out)
    stored.refresh_from_db()
    assert stored.workspace.name == "Prod mirror"
    assert 'mirrors into workspace "Prod mirror"' in out.getvalue()
    with pytest.raises(CommandError, match='mirrors workspace "Prod mirror" already'):
        call_command("cluster", "mirror", "prod")
    call_command("cluster", "unmirror", "prod", stdout=out)
    stored.refresh_from_db()
    assert stored.workspace is None
    with pytest.raises(CommandError, match='connection "prod" mirrors no workspace'):
        call_command("cluster", "unmirror", "prod")
