"""Import, record and replay on the connection's page (playground.clusters.recording_views):
start / stop / list / download / delete / replay / import, its owner's only (404 for others)."""

from __future__ import annotations

import json

import pytest
from django.contrib.auth import get_user_model
from django.template.defaultfilters import filesizeformat
from django.urls import reverse

from playground.clusters import recording_views
from playground.clusters.models import ClusterConnection, Recording, Replay
from playground.clusters.replay import run_replay
from playground.workspaces.cluster import DatabaseCluster
from playground.workspaces.models import Workspace
from playground.workspaces.services import create_workspace
from tests.playground.clusters.test_mirror import node
from tests.playground.conftest import PASSWORD

pytestmark = pytest.mark.usefixtures("var_dir")


@pytest.fixture
def logged_in(client, user):
    client.force_login(user)
    return client


@pytest.fixture
def connection(kube_connection):
    return kube_connection


@pytest.fixture
def mirrored(connection, workspace):
    connection.workspace = workspace
    connection.save()
    return connection


@pytest.fixture
def stopped(mirrored, var_dir):
    """A finished recording of two nodes added ten seconds apart."""
    recording = Recording.objects.create(
        connection=mirrored, file="recordings/1-x.jsonl", objects_at_start=1, events=1
    )
    recording.stopped_at = recording.started_at
    recording.save()
    recording.path.parent.mkdir(parents=True, exist_ok=True)
    lines = [
        {"recording": 1, "connection": "prod", "kinds": ["Node"]},
        {"t": 0, "type": "ADDED", "object": node("n1")},
        {"t": 10, "type": "ADDED", "object": node("n2")},
    ]
    recording.path.write_text("".join(json.dumps(line) + "\n" for line in lines))
    return recording


@pytest.fixture
def inline_replays(monkeypatch):
    """The replay task run at once in the request (its own tests run it on a worker)."""
    started = []

    def start(replay: Replay) -> None:
        started.append(replay.pk)
        run_replay(replay, sleep=lambda seconds: None)

    monkeypatch.setattr(recording_views, "start_replay", start)
    return started


def page(client, connection) -> str:
    response = client.get(connection.get_absolute_url())
    assert response.status_code == 200
    return response.content.decode()


def messages_of(response) -> list[str]:
    return [str(message) for message in response.context["messages"]]


def test_start_is_offered_only_while_mirrored(logged_in, connection):
    assert "recording needs the connection mirrored" in page(logged_in, connection)
    response = logged_in.post(reverse("recording-start", args=[connection.pk]), follow=True)
    assert any("is not mirrored" in message for message in messages_of(response))
    assert not Recording.objects.exists()


def test_start_then_stop_lists_the_recording(logged_in, mirrored):
    response = logged_in.post(reverse("recording-start", args=[mirrored.pk]))
    assert response.status_code == 302 and response["Location"] == mirrored.get_absolute_url()
    recording = Recording.objects.get()
    assert recording.in_progress and recording.file.startswith(f"recordings/{mirrored.pk}-")
    text = page(logged_in, mirrored)
    assert "Stop recording" in text and "no file yet" in text
    logged_in.post(reverse("recording-stop", args=[mirrored.pk]))
    recording.refresh_from_db()
    assert recording.stopped_at is not None
    text = page(logged_in, mirrored)
    assert "Start recording" in text and recording.started_at.strftime("%Y-%m-%d %H:%M") in text
    assert "Replay into a new workspace" in text


def test_download_gives_the_file_and_delete_removes_it(logged_in, stopped):
    connection = stopped.connection
    assert filesizeformat(stopped.path.stat().st_size) in page(logged_in, connection)
    response = logged_in.get(reverse("recording-download", args=[connection.pk, stopped.pk]))
    assert response.status_code == 200
    assert response["Content-Disposition"] == 'attachment; filename="1-x.jsonl"'
    assert b"".join(response.streaming_content) == stopped.path.read_bytes()
    logged_in.post(reverse("recording-delete", args=[connection.pk, stopped.pk]))
    assert not Recording.objects.exists() and not stopped.path.exists()


def test_replay_into_a_new_workspace_shows_its_progress(logged_in, stopped, inline_replays):
    connection = stopped.connection
    response = logged_in.post(
        reverse("recording-replay", args=[connection.pk, stopped.pk]),
        {"speed": "10", "name": "Again"},
    )
    assert response.status_code == 302
    replay = Replay.objects.get()
    assert inline_replays == [replay.pk]
    assert (replay.workspace.name, replay.speed, replay.state) == ("Again", "10", "done")
    assert {obj.name for obj in DatabaseCluster(replay.workspace).list("Node")} == {"n1", "n2"}
    text = page(logged_in, connection)
    assert "2 / 2 events applied" in text and "done" in text


def test_replay_refuses_a_mirrored_workspace_and_an_unknown_speed(
    logged_in, stopped, workspace, inline_replays
):
    url = reverse("recording-replay", args=[stopped.connection.pk, stopped.pk])
    response = logged_in.post(url, {"speed": "1", "workspace": workspace.slug}, follow=True)
    assert any("is mirrored from a cluster" in message for message in messages_of(response))
    response = logged_in.post(url, {"speed": "3"}, follow=True)
    assert any("speed '3'" in message for message in messages_of(response))
    assert not Replay.objects.exists() and inline_replays == []
    # The existing ordinary workspaces offered are the user's own, the mirrored one left out.
    ordinary = create_workspace(stopped.connection.owner, "Scratch")
    text = page(logged_in, stopped.connection)
    assert f'<option value="{ordinary.slug}">' in text
    assert f'<option value="{workspace.slug}">' not in text
    logged_in.post(url, {"speed": "fastest", "workspace": ordinary.slug})
    assert Replay.objects.get().workspace == ordinary


def test_import_makes_a_workspace_or_says_why_not(logged_in, kube_api, connection):
    kube_api.create(node("n1"))
    response = logged_in.post(reverse("connection-import", args=[connection.pk]), {"name": "Snap"})
    workspace = Workspace.objects.get(name="Snap")
    assert response["Location"] == workspace.get_absolute_url()
    assert {obj.name for obj in DatabaseCluster(workspace).list("Node")} == {"n1"}
    response = logged_in.post(
        reverse("connection-import", args=[connection.pk]), {"name": "snap"}, follow=True
    )
    assert any("already have a workspace named" in message for message in messages_of(response))
    kube_api.deny("list", "nodes")
    response = logged_in.post(
        reverse("connection-import", args=[connection.pk]), {"name": "Other"}, follow=True
    )
    assert any("Node: 403 Forbidden" in message for message in messages_of(response))
    assert not Workspace.objects.filter(name="Other").exists()


def test_another_user_gets_404s(client, stopped, inline_replays):
    get_user_model().objects.create_user("eve", password=PASSWORD)
    client.login(username="eve", password=PASSWORD)
    pk = stopped.connection.pk
    assert client.get(reverse("connection-recordings", args=[pk])).status_code == 404
    assert client.get(reverse("recording-download", args=[pk, stopped.pk])).status_code == 404
    for name, args in (
        ("recording-start", [pk]),
        ("recording-stop", [pk]),
        ("connection-import", [pk]),
        ("recording-delete", [pk, stopped.pk]),
        ("recording-replay", [pk, stopped.pk]),
    ):
        assert client.post(reverse(name, args=args)).status_code == 404, name
    assert Recording.objects.filter(pk=stopped.pk).exists() and stopped.path.exists()
    assert not Replay.objects.exists() and Workspace.objects.count() == 1


def test_a_recording_of_another_connection_is_not_found(logged_in, stopped, user):
    other = ClusterConnection.objects.create(name="other", owner=user)
    url = reverse("recording-download", args=[other.pk, stopped.pk])
    assert logged_in.get(url).status_code == 404


def test_the_admin_lists_recordings_and_replays(admin_client, stopped):
    Replay.objects.create(recording=stopped, speed="fastest")
    for model in ("recording", "replay"):
        listing = admin_client.get(reverse(f"admin:clusters_{model}_changelist"))
        assert listing.status_code == 200, model
    change = admin_client.get(reverse("admin:clusters_recording_change", args=[stopped.pk]))
    assert change.status_code == 200 and "recordings/1-x.jsonl" in change.content.decode()
