"""Import, record and replay on a connection's page (the section templates/clusters/
recordings.html draws): copies of what the cluster holds, now or over time.

Like the connection, its recordings are its owner's: the files hold the cluster's objects
(never credentials), and everyone else gets a 404. Every action is a POST that redirects back
to the connection's page (a successful import: to its new workspace) with a message saying
what happened or, in the engine's and the server's words, why not.
"""

from __future__ import annotations

from collections.abc import Callable

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import FileResponse, Http404, HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.views.decorators.http import require_POST

from playground.clusters import recording as recordings
from playground.clusters.models import ClusterConnection, Recording, Replay
from playground.clusters.replay import (
    ReplayError,
    check_target,
    new_target,
    parse_speed,
)
from playground.clusters.snapshot import ImportFailed, import_snapshot
from playground.clusters.tasks import start_replay
from playground.clusters.views import owned
from playground.workspaces.models import Workspace


@login_required
@require_POST
def import_view(request: HttpRequest, pk: int) -> HttpResponse:
    connection = owned(request, pk)
    try:
        workspace = import_snapshot(connection, request.user, request.POST.get("name", ""))
    except ImportFailed as err:
        messages.error(request, str(err))
        return redirect(connection)
    messages.success(request, f"Imported a snapshot into workspace “{workspace.name}”.")
    return redirect(workspace)


@login_required
def recordings_section(request: HttpRequest, pk: int) -> HttpResponse:
    """The section alone: the page reloads it while a replay runs, to show its progress."""
    connection = owned(request, pk)
    return render(request, "clusters/recordings.html", {"connection": connection})


@login_required
@require_POST
def start_recording(request: HttpRequest, pk: int) -> HttpResponse:
    done = "Recording: every change the mirror sees is written."
    return _record(request, pk, recordings.start, done)


@login_required
@require_POST
def stop_recording(request: HttpRequest, pk: int) -> HttpResponse:
    return _record(request, pk, recordings.stop, "Recording stopped.")


def _record(
    request: HttpRequest, pk: int, action: Callable[[ClusterConnection], Recording], done: str
) -> HttpResponse:
    connection = owned(request, pk)
    try:
        action(connection)
    except recordings.RecordingRefused as err:
        messages.error(request, str(err))
    else:
        messages.success(request, done)
    return redirect(connection)


@login_required
def download_recording(request: HttpRequest, pk: int, recording_pk: int) -> FileResponse:
    recording = _recording(request, pk, recording_pk)
    try:
        file = recording.path.open("rb")
    except OSError:
        raise Http404("The recording has no file (yet).") from None
    return FileResponse(
        file, as_attachment=True, filename=recording.path.name, content_type="application/jsonl"
    )


@login_required
@require_POST
def delete_recording(request: HttpRequest, pk: int, recording_pk: int) -> HttpResponse:
    recording = _recording(request, pk, recording_pk)
    recording.delete()  # its file too (models)
    messages.success(request, "Recording deleted.")
    return redirect(recording.connection)


@login_required
@require_POST
def replay_recording(request: HttpRequest, pk: int, recording_pk: int) -> HttpResponse:
    recording = _recording(request, pk, recording_pk)
    try:
        if recording.in_progress:
            raise ReplayError("the recording is still going on: stop it first")
        speed = parse_speed(request.POST.get("speed", "1"))
        workspace = _target(request, recording)
    except ReplayError as err:
        messages.error(request, f"Not replayed: {err}")
        return redirect(recording.connection)
    replay = Replay.objects.create(recording=recording, workspace=workspace, speed=speed)
    start_replay(replay)
    messages.success(request, f"Replaying into workspace “{workspace.name}” at speed {speed}.")
    return redirect(recording.connection)


def _target(request: HttpRequest, recording: Recording) -> Workspace:
    """The workspace chosen (one of the user's own, never a mirrored one), or a new one."""
    slug = request.POST.get("workspace", "")
    if not slug:
        return new_target(recording, request.user, request.POST.get("name", ""))
    workspace = Workspace.objects.filter(slug=slug, owner=request.user).first()
    if workspace is None:
        raise ReplayError(f"you have no workspace “{slug}”")
    check_target(workspace)
    return workspace


def _recording(request: HttpRequest, pk: int, recording_pk: int) -> Recording:
    connection: ClusterConnection = owned(request, pk)
    return get_object_or_404(Recording, pk=recording_pk, connection=connection)
