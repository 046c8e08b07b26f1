"""Import, record and replay against the Kubernetes API server for tests (``kube_api``).

Import is the mirror's initial list into a new ordinary workspace; a recording is what a
stepped Mirror applies, snapshot first; a replay of it into a new workspace ends holding what
the mirrored workspace holds, through the same change sequence, at a pace read on a FakeClock.
"""

from __future__ import annotations

import json
import threading

import pytest
from django.urls import reverse

from framework.util.clock import FakeClock
from playground.clusters import recording as recordings
from playground.clusters.connecting import api_client
from playground.clusters.mirror import FOLLOWED, Mirror
from playground.clusters.models import ClusterConnection, Recording, Replay
from playground.clusters.recording import Recorder, follow
from playground.clusters.replay import (
    Change,
    Replayer,
    ReplayError,
    check_target,
    read_recording,
    run_replay,
)
from playground.clusters.snapshot import ImportFailed, import_snapshot
from playground.workspaces.cluster import DatabaseCluster
from playground.workspaces.models import Workspace
from playground.workspaces.services import create_workspace
from tests.playground.clusters import test_mirror
from tests.playground.clusters.test_mirror import (
    catch_up,
    changes,
    fresh_list,
    manifests,
    node,
    pod,
    steps_in_background,
    stored_names,
)

connect = test_mirror.connect  # the mirror tests' fixtures
core = test_mirror.core


pytestmark = pytest.mark.usefixtures("var_dir")


def unmirrored_connection(kube_api, user, name: str = "prod") -> ClusterConnection:
    connection = ClusterConnection(name=name, owner=user, server=kube_api.url)
    connection.set_kubeconfig(kube_api.kubeconfig_text())
    connection.save()
    return connection


def specs(workspace) -> dict[tuple[str, str], object]:
    """(kind, namespace/name) -> spec (the whole manifest but metadata for kinds without one)."""
    cluster = DatabaseCluster(workspace)
    return {
        (kind, f"{obj.namespace}/{obj.name}"): _spec_of(obj.manifest)
        for kind in cluster.kinds()
        for obj in cluster.list(kind)
    }


def _spec_of(manifest: dict) -> object:
    if "spec" in manifest:
        return manifest["spec"]
    return {key: value for key, value in manifest.items() if key not in ("metadata", "status")}


def lines_of(recording: Recording) -> list[dict]:
    return [json.loads(line) for line in recording.path.read_text().splitlines()]


# ----------------------------------------------------------------------------------------------
# Import


def test_import_copies_every_kind_into_an_editable_workspace_linked_to_nothing(
    kube_api, user, client
):
    for manifest in manifests():
        kube_api.create(manifest)
    connection = unmirrored_connection(kube_api, user)
    workspace = import_snapshot(connection, user, "Snapshot")
    assert workspace.name == "Snapshot" and workspace.owner == user
    for followed in FOLLOWED:
        if followed.optional:  # the workload API, which the test servers do not serve
            assert stored_names(workspace, followed.kind) == set(), followed.kind
        elif followed.stored:
            expected = set(fresh_list(kube_api, followed.kind))
            assert expected and stored_names(workspace, followed.kind) == expected, followed.kind
    assert not ClusterConnection.objects.filter(workspace=workspace).exists()
    connection.refresh_from_db()
    assert connection.workspace is None
    # Ordinary: the object editor creates and deletes in it.
    client.force_login(user)
    text = "apiVersion: v1\nkind: Node\nmetadata:\n  name: added-by-hand\n"
    response = client.post(reverse("object-new", args=[workspace.slug]), {"text": text})
    assert response.status_code == 302
    assert "added-by-hand" in stored_names(workspace, "Node")
    # The cluster was only read.
    assert "added-by-hand" not in fresh_list(kube_api, "Node")


def test_import_names_a_denied_kind_and_leaves_no_workspace(kube_api, user):
    kube_api.create(node("n1"))
    kube_api.deny("list", "persistentvolumes")
    connection = unmirrored_connection(kube_api, user)
    with pytest.raises(ImportFailed) as failed:
        import_snapshot(connection, user, "Snapshot")
    assert str(failed.value) == (
        "import failed, nothing imported: PersistentVolume: 403 Forbidden: persistentvolumes is "
        'forbidden: User "admin" cannot list resource "persistentvolumes" in API group "" at '
        "the cluster scope"
    )
    assert not Workspace.objects.filter(name="Snapshot").exists()


def test_import_of_an_unreachable_cluster_names_the_problem(kube_api, user):
    connection = unmirrored_connection(kube_api, user)
    kube_api.stop()
    try:
        with pytest.raises(
            ImportFailed, match=rf"is unreachable: connection refused \(and {len(FOLLOWED) - 1} "
        ):
            import_snapshot(connection, user)
    finally:
        kube_api.start()
    assert not Workspace.objects.exists()


def test_import_refuses_a_name_in_use(kube_api, user):
    create_workspace(user, "Snapshot")
    connection = unmirrored_connection(kube_api, user)
    with pytest.raises(ImportFailed, match="you already have a workspace named “Snapshot”"):
        import_snapshot(connection, user, "snapshot")
    assert Workspace.objects.count() == 1
    made = import_snapshot(connection, user)  # the default name is dated
    assert made.name.startswith("prod import ")


# ----------------------------------------------------------------------------------------------
# Record


@pytest.fixture
def recorded(kube_api, connect, core, workspace):
    """A recording of a mirror that had synced three objects and then saw, while stepped,
    a pod created, one relabelled, one deleted and a node created."""
    ns = kube_api.namespace
    kube_api.create(node("n1"))
    kube_api.create(pod("web-1"))
    kube_api.create(pod("web-2"))
    mirror = connect(kinds=("Node", "Pod"))
    mirror.sync()
    start = DatabaseCluster(workspace).latest_change_id()
    recording = recordings.start(mirror.connection)
    recorder = follow(mirror.connection, mirror, None)
    assert isinstance(recorder, Recorder) and recorder.recording == recording
    timer = steps_in_background(
        lambda: core.create_namespaced_pod(ns, pod("web-3")),
        lambda: core.patch_namespaced_pod("web-1", ns, {"metadata": {"labels": {"tier": "a"}}}),
        lambda: core.delete_namespaced_pod("web-2", ns),
        lambda: core.create_node(node("n2")),
    )
    mirror.step()
    timer.join()
    catch_up(mirror, kube_api, ("Node", "Pod"))
    recordings.stop(mirror.connection)
    assert follow(mirror.connection, mirror, recorder) is None
    assert recorder.observe not in mirror.observers
    recording.refresh_from_db()
    return recording, mirror, start


def test_a_recording_holds_the_snapshot_then_every_change_in_order(recorded, kube_api, workspace):
    recording, mirror, start = recorded
    ns = kube_api.namespace
    header, *lines = lines_of(recording)
    assert header["recording"] == 1 and header["connection"] == mirror.connection.name
    assert header["kinds"] == ["Node", "Pod"] and "token" not in json.dumps(header)
    snapshot = [(line["type"], line["object"]["metadata"]["name"]) for line in lines[:3]]
    assert snapshot == [("ADDED", "n1"), ("ADDED", "web-1"), ("ADDED", "web-2")]
    assert all(line["t"] == 0 for line in lines[:3])
    written = [(line["type"], line["object"]["kind"], line["object"]["metadata"]["name"])
               for line in lines[3:]]  # fmt: skip
    assert written == changes(workspace, id__gt=start)
    assert sorted(written) == [
        ("ADDED", "Node", "n2"),
        ("ADDED", "Pod", "web-3"),
        ("DELETED", "Pod", "web-2"),
        ("MODIFIED", "Pod", "web-1"),
        ("MODIFIED", "Pod", "web-2"),  # its deletionTimestamp, written before it goes
    ]
    times = [line["t"] for line in lines[3:]]
    assert times == sorted(times) and times[0] >= 0
    assert lines[3 + written.index(("MODIFIED", "Pod", "web-1"))]["object"]["metadata"][
        "labels"
    ] == {"app": "web", "tier": "a"}
    assert (recording.objects_at_start, recording.events) == (3, 5)
    assert recording.stopped_at is not None and recording.error == ""
    assert stored_names(workspace, "Pod") == {f"{ns}/web-1", f"{ns}/web-3"}


def test_follow_starts_keeps_and_closes_recorders(kube_api, connect, workspace, var_dir):
    kube_api.create(node("n1"))
    mirror = connect(kinds=("Node",))
    connection = mirror.connection
    mirror.sync()
    assert follow(connection, mirror, None) is None  # nothing to record
    recording = recordings.start(connection)
    recorder = follow(connection, mirror, None)
    assert recorder is not None and (var_dir / "recordings").is_dir()
    mirror.clock.step(5)
    recorder.observe("ADDED", node("n9"))
    assert follow(connection, mirror, recorder) is recorder  # still recording: the same one
    assert Recording.objects.get(pk=recording.pk).events == 1  # the page sees the count
    Recording.objects.filter(pk=recording.pk).delete()  # deleted while recording
    assert follow(connection, mirror, recorder) is None
    assert mirror.observers == [] and not recording.path.exists()
    with pytest.raises(recordings.RecordingRefused, match="is not being recorded"):
        recordings.stop(connection)


def test_a_recording_needs_a_mirrored_connection_and_one_at_a_time(kube_api, user, connect):
    with pytest.raises(recordings.RecordingRefused, match="is not mirrored"):
        recordings.start(unmirrored_connection(kube_api, user))
    connection = connect().connection
    recordings.start(connection)
    with pytest.raises(recordings.RecordingRefused, match="is being recorded already"):
        recordings.start(connection)


def test_lines_written_from_many_threads_stay_whole_and_counted(kube_api, connect):
    mirror = connect(kinds=("Node",))
    recordings.start(mirror.connection)
    recorder = follow(mirror.connection, mirror, None)

    def observe_many(thread: int) -> None:
        for index in range(200):
            recorder.observe("ADDED", node(f"n-{thread}-{index}"))

    threads = [threading.Thread(target=observe_many, args=(n,)) for n in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    recorder.close()
    lines = lines_of(recorder.recording)[1:]
    assert len(lines) == 1600 == Recording.objects.get().events
    assert len({line["object"]["metadata"]["name"] for line in lines}) == 1600


# ----------------------------------------------------------------------------------------------
# Replay


def test_a_replay_ends_as_the_mirrored_workspace_through_the_same_changes(
    recorded, user, workspace
):
    recording, _, start = recorded
    target = create_workspace(user, "Replayed")
    replay = Replay.objects.create(recording=recording, workspace=target, speed="fastest")
    run_replay(replay)
    replay.refresh_from_db()
    assert (replay.state, replay.error, replay.applied, replay.total) == ("done", "", 8, 8)
    assert replay.finished_at is not None
    assert specs(target) == specs(workspace)
    snapshot = [("ADDED", "Node", "n1"), ("ADDED", "Pod", "web-1"), ("ADDED", "Pod", "web-2")]
    assert changes(target) == snapshot + changes(workspace, id__gt=start)


def test_a_replay_at_the_recorded_pace_waits_on_the_clock(recorded, user):
    recording, _, _ = recorded
    clock, sleeps = FakeClock(), []

    def sleep(seconds: float) -> None:
        sleeps.append(seconds)
        clock.step(seconds)

    replay = Replay.objects.create(
        recording=recording, workspace=create_workspace(user, "Paced"), speed="1"
    )
    run_replay(replay, clock, sleep)
    assert Replay.objects.get(pk=replay.pk).state == "done"
    times = [line["t"] for line in lines_of(recording)[4:]]
    assert clock.now() == pytest.approx(times[-1])
    assert sum(sleeps) == pytest.approx(times[-1])


def test_replay_refuses_a_mirrored_workspace(recorded, workspace):
    recording, _, _ = recorded
    with pytest.raises(ReplayError, match="workspace “Lab” is mirrored from a cluster"):
        check_target(workspace)
    before = changes(workspace)
    replay = Replay.objects.create(recording=recording, workspace=workspace, speed="fastest")
    run_replay(replay)
    replay.refresh_from_db()
    assert replay.state == "failed" and "is mirrored from a cluster" in replay.error
    assert changes(workspace) == before


def paced_changes() -> list[Change]:
    return [
        Change(0.0, "ADDED", node("n1"), line=2),
        Change(10.0, "ADDED", node("n2"), line=3),
        Change(20.0, "DELETED", node("n1"), line=4),
    ]


@pytest.mark.parametrize(("speed", "sleeps"), [(1.0, [10.0, 10.0]), (10.0, [1.0, 1.0]), (None, [])])
def test_events_ten_seconds_apart_wait_ten_seconds_at_1x_and_one_at_10x(user, speed, sleeps):
    clock, slept = FakeClock(), []

    def sleep(seconds: float) -> None:
        slept.append(seconds)
        clock.step(seconds)

    target = create_workspace(user, "Paced")
    Replayer(target, speed, clock, sleep).play(paced_changes())
    assert slept == pytest.approx(sleeps)
    assert stored_names(target, "Node") == {"n2"}


def write_lines(path, *lines: str) -> None:
    header = json.dumps({"recording": 1, "connection": "prod", "kinds": ["Node"]})
    path.write_text("\n".join([header, *lines]) + "\n")


@pytest.mark.parametrize(
    ("lines", "message"),
    [
        (
            ['{"t":0,"type":"ADDED","object":{"kind":"Node","metadata":{"name":"n1"}}}',
             '{"t":1,"type":"MODIFIED","object":{"kind":"No'],
            r"^line 3: not a whole JSON line \(truncated\?\)",
        ),
        (
            ['{"t":0,"type":"BOOKMARK","object":{"kind":"Node","metadata":{"name":"n1"}}}'],
            "^line 2: unknown type 'BOOKMARK' \\(ADDED, MODIFIED or DELETED\\)$",
        ),
        (['{"t":"soon","type":"ADDED","object":{"metadata":{}}}'], "^line 2: t must be"),
        (['{"t":0,"type":"ADDED","object":[]}'], "^line 2: object must be a manifest"),
    ],
)  # fmt: skip
def test_a_bad_recording_file_names_its_line_and_changes_nothing(recorded, user, lines, message):
    recording, _, _ = recorded
    write_lines(recording.path, *lines)
    with pytest.raises(ReplayError, match=message):
        read_recording(recording.path)
    target = create_workspace(user, "Target")
    replay = Replay.objects.create(recording=recording, workspace=target, speed="fastest")
    run_replay(replay)
    replay.refresh_from_db()
    assert replay.state == "failed" and replay.error.startswith(message.strip("^").split(":")[0])
    assert changes(target) == []


def test_an_object_the_workspace_refuses_is_named_by_its_line(recorded, user):
    recording, _, _ = recorded
    refused = pod("web-9")
    refused["metadata"]["namespace"] = "default"
    refused["spec"]["priorityClassName"] = "missing"
    write_lines(recording.path, json.dumps({"t": 0, "type": "ADDED", "object": refused}))
    replay = Replay.objects.create(
        recording=recording, workspace=create_workspace(user, "Target"), speed="fastest"
    )
    run_replay(replay)
    replay.refresh_from_db()
    assert replay.state == "failed"
    assert replay.error.startswith("line 2: the workspace refused it: ")
    assert "missing" in replay.error


def test_a_header_that_is_not_a_recording_is_refused(tmp_path):
    path = tmp_path / "x.jsonl"
    path.write_text('{"kind": "List"}\n')
    with pytest.raises(ReplayError, match=r"^line 1: not a recording header"):
        read_recording(path)
    with pytest.raises(ReplayError, match=r"^cannot read the recording"):
        read_recording(tmp_path / "missing.jsonl")


def test_a_mirror_and_its_recorder_built_as_the_runtime_builds_them(kube_api, user, workspace):
    """The runtime's shape: a Mirror from a stored connection, follow() once a second."""
    connection = unmirrored_connection(kube_api, user)
    connection.workspace = workspace
    connection.save()
    kube_api.create(node("n1"))
    client = api_client(connection)
    try:
        mirror = Mirror(connection, workspace, client, FakeClock(), kinds=("Node",))
        recordings.start(connection)
        recorder = follow(connection, mirror, None)
        mirror.sync()  # changes applied after the start are events, not snapshot
        recorder.close()
    finally:
        client.close()
    _, *lines = lines_of(recorder.recording)
    assert [(line["t"], line["type"]) for line in lines] == [(0, "ADDED")]
    assert Recording.objects.get().objects_at_start == 0
    assert Recording.objects.get().events == 1
