"""``manage.py cluster import | record | replay``: the same checks and messages as the page."""

from __future__ import annotations

import io
import json

import pytest
from django.core.management import CommandError, call_command

from playground.clusters.models import Recording, Replay
from playground.workspaces.cluster import DatabaseCluster
from playground.workspaces.models import Workspace
from playground.workspaces.services import create_workspace
from tests.playground.clusters.test_mirror import node

pytestmark = pytest.mark.usefixtures("var_dir")


@pytest.fixture
def connection(kube_connection):
    return kube_connection


def run(*args: str) -> str:
    out = io.StringIO()
    call_command("cluster", *args, stdout=out, stderr=io.StringIO())
    return out.getvalue()


def node_names(workspace) -> set[str]:
    return {obj.name for obj in DatabaseCluster(workspace).list("Node")}


def test_import_makes_a_workspace_and_names_what_fails(kube_api, connection):
    kube_api.create(node("n1"))
    out = run("import", "prod", "--workspace", "Snap")
    workspace = Workspace.objects.get(name="Snap")
    assert f'into workspace "Snap" ({workspace.slug})' in out and node_names(workspace) == {"n1"}
    with pytest.raises(CommandError, match="already have a workspace named “Snap”"):
        run("import", "prod", "--workspace", "Snap")
    kube_api.deny("list", "pods")
    with pytest.raises(CommandError, match=r"^import failed, nothing imported: Pod: 403"):
        run("import", "prod", "--workspace", "Other")
    assert not Workspace.objects.filter(name="Other").exists()
    with pytest.raises(CommandError, match='no connection named "nope"'):
        run("import", "nope")


def test_record_starts_and_stops_a_mirrored_connection(connection, workspace):
    with pytest.raises(CommandError, match="is not mirrored"):
        run("record", "prod", "start")
    connection.workspace = workspace
    connection.save()
    out = run("record", "prod", "start")
    recording = Recording.objects.get()
    assert out == f"Recording {recording.pk} started: {recording.file}\n"
    with pytest.raises(CommandError, match="is being recorded already"):
        run("record", "prod", "start")
    assert run("record", "prod", "stop") == f"Recording {recording.pk} stopped.\n"
    assert Recording.objects.get().stopped_at is not None
    with pytest.raises(CommandError, match="is not being recorded"):
        run("record", "prod", "stop")


@pytest.fixture
def recording(connection, workspace):
    connection.workspace = workspace
    connection.save()
    made = Recording.objects.create(connection=connection, file="recordings/r.jsonl")
    made.path.parent.mkdir(parents=True)
    lines = [
        {"recording": 1, "connection": "prod", "kinds": ["Node"]},
        {"t": 0, "type": "ADDED", "object": node("n1")},
        {"t": 0.01, "type": "ADDED", "object": node("n2")},
    ]
    made.path.write_text("".join(json.dumps(line) + "\n" for line in lines))
    return made


def test_replay_runs_inline_into_a_new_or_an_ordinary_workspace(recording, user, workspace):
    with pytest.raises(CommandError, match="is still going on: stop it first"):
        run("replay", str(recording.pk))
    recording.stopped_at = recording.started_at
    recording.save()
    out = run("replay", str(recording.pk), "--workspace", "Again", "--speed", "fastest")
    assert out.endswith("Replayed 2 lines.\n")
    assert node_names(Workspace.objects.get(name="Again")) == {"n1", "n2"}
    scratch = create_workspace(user, "Scratch")
    run("replay", str(recording.pk), "--workspace", "scratch", "--speed", "100")
    assert node_names(scratch) == {"n1", "n2"}
    assert Replay.objects.filter(state="done").count() == 2


def test_replay_refuses_a_mirrored_workspace_and_reports_a_bad_file(recording, workspace):
    recording.stopped_at = recording.started_at
    recording.save()
    with pytest.raises(CommandError, match="workspace “Lab” is mirrored from a cluster"):
        run("replay", str(recording.pk), "--workspace", "Lab")
    with recording.path.open("a") as file:
        file.write('{"t": 1, "type": "ADDED", "obj')
    with pytest.raises(CommandError, match=r"replay failed after 0 lines: line 4: not a whole"):
        run("replay", str(recording.pk), "--workspace", "Broken", "--speed", "fastest")
    assert node_names(Workspace.objects.get(name="Broken")) == set()
    with pytest.raises(CommandError, match="no recording 999"):
        run("replay", "999")
    with pytest.raises(CommandError, match="invalid choice: '3'"):
        run("replay", str(recording.pk), "--speed", "3")
