"""Replay: a recording (playground.clusters.recording) played into an ordinary workspace, in
order, at the recorded pace or faster.

It lives beside the recordings rather than in playground.workspaces because it reads their
model and file format: the workspaces app never depends on the clusters app.

Each line is written through ``DatabaseCluster``, the path the playground's object editor
writes through, so the workspace's scheduler service sees the snapshot and every change as
edits and schedules what they make pending. ADDED stores the object checked and admitted as
kube-apiserver creates it; MODIFIED stores the server's state as the mirror does (a pod being
deleted gets a deletionTimestamp no client may write); DELETED deletes it if it is there.
Between changes the replay waits, on an injected clock, until the change's time divided by
the speed has passed since it began (``fastest``: no waiting). A mirrored workspace is never
a target: its objects come from its cluster.

The whole file is read and checked before anything is written: a truncated line or an unknown
type is an error naming the line, and the workspace is left as it was.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from django.utils import timezone

from framework.api.errors import ObjectError
from framework.api.loader import parse_object
from framework.cluster.interface import NotFoundError
from framework.compare import recording
from framework.compare.errors import RecordingError
from framework.compare.recording import CHANGE_TYPES, Change
from framework.util.clock import Clock, RealClock
from playground.clusters.models import ClusterConnection, Recording, Replay
from playground.workspaces.cluster import DELETED, MODIFIED, DatabaseCluster
from playground.workspaces.models import Workspace
from playground.workspaces.services import create_workspace, workspace_name_problem

logger = logging.getLogger(__name__)

SPEEDS: dict[str, float | None] = {"1": 1.0, "2": 2.0, "10": 10.0, "100": 100.0, "fastest": None}
"""The speeds offered: a factor on the recorded pace, or None for no waiting at all."""
TYPES = CHANGE_TYPES
PROGRESS_EVERY = 50
"""Lines applied between two progress updates of the Replay row (and before every wait)."""

Sleep = Callable[[float], None]


class ReplayError(Exception):
    """Why a replay cannot start or went wrong, in words for the page and the command."""


def read_recording(path: Path) -> tuple[dict[str, Any], list[Change]]:
    """The header and every change of a recording file; ReplayError naming the line of the
    first problem (the engine's reader, which ``python -m framework compare`` uses too)."""
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as err:
        raise ReplayError(f"cannot read the recording: {err.strerror or err}") from None
    try:
        return recording.read_recording(text)
    except RecordingError as err:
        raise ReplayError(str(err)) from None


def is_mirrored(workspace: Workspace) -> bool:
    return ClusterConnection.objects.filter(workspace=workspace).exists()


def check_target(workspace: Workspace) -> None:
    """A replay writes into ordinary workspaces only."""
    if is_mirrored(workspace):
        raise ReplayError(
            f"workspace “{workspace.name}” is mirrored from a cluster: its objects come from "
            "there, so a replay cannot write into it (replay into a new workspace)"
        )


def new_target(recording: Recording, owner: Any, name: str = "") -> Workspace:
    """A new workspace for a replay; ReplayError if the name is taken or unusable."""
    name = name.strip() or (
        f"{recording.connection.name} replay {timezone.now():%Y-%m-%d %H:%M:%S}"
    )
    problem = workspace_name_problem(owner, name)
    if problem:
        raise ReplayError(f"workspace name “{name}”: {problem}")
    return create_workspace(
        owner, name, description=f"Replay of a recording of “{recording.connection.name}”."
    )


def parse_speed(text: str) -> str:
    if text not in SPEEDS:
        raise ReplayError(f"speed {text!r}: one of {', '.join(SPEEDS)}")
    return text


class Replayer:
    """Applies changes to a workspace at a pace: ``speed`` times the recorded one (None: as
    fast as possible). ``sleep`` waits on the same clock ``clock`` reads (time.sleep with the
    real clock; a test steps a FakeClock)."""

    def __init__(
        self,
        workspace: Workspace | int,
        speed: float | None,
        clock: Clock | None = None,
        sleep: Sleep = time.sleep,
        on_progress: Callable[[int], None] | None = None,
    ) -> None:
        # What a recording holds was admitted by the cluster it was recorded from.
        self.cluster = DatabaseCluster(workspace, from_api_server=True)
        self.speed = speed
        self.clock = clock or RealClock()
        self.sleep = sleep
        self.on_progress = on_progress

    def play(self, changes: list[Change]) -> int:
        """Applies every change in order; returns how many. ReplayError names the line of a
        change the workspace refuses."""
        start = self.clock.now()
        for applied, change in enumerate(changes):
            wait = self._due(start, change) - self.clock.now()
            if wait > 0:
                self._progress(applied)
                self.sleep(wait)
            self.apply(change)
            if (applied + 1) % PROGRESS_EVERY == 0:
                self._progress(applied + 1)
        self._progress(len(changes))
        return len(changes)

    def apply(self, change: Change) -> None:
        try:
            if change.type == DELETED:
                self._delete(change.object)
            elif change.type == MODIFIED:
                # The server's own state, which no client may send as an update (a pod's
                # deletionTimestamp, written before it goes): applied as the mirror applies it.
                self.cluster.add(parse_object(change.object))
            else:
                self.cluster.add(change.object)
        except ObjectError as err:
            raise ReplayError(f"line {change.line}: the workspace refused it: {err}") from None

    def _delete(self, manifest: dict[str, Any]) -> None:
        metadata = manifest["metadata"]
        stored = self.cluster.get(
            manifest.get("kind", ""), metadata.get("name", ""), metadata.get("namespace", "")
        )
        if stored is not None:
            self.cluster.delete(stored)

    def _due(self, start: float, change: Change) -> float:
        return start if self.speed is None else start + change.t / self.speed

    def _progress(self, applied: int) -> None:
        if self.on_progress is not None:
            self.on_progress(applied)


def run_replay(replay: Replay, clock: Clock | None = None, sleep: Sleep = time.sleep) -> None:
    """Plays a Replay row's recording into its workspace, keeping the row's state and progress
    current; a failure is the row's error (and is logged), never raised."""
    try:
        if replay.workspace is None:
            raise ReplayError("the workspace was deleted")
        check_target(replay.workspace)
        _, changes = read_recording(replay.recording.path)
        _update(replay, state=Replay.RUNNING, total=len(changes), applied=0)
        replayer = Replayer(
            replay.workspace,
            SPEEDS[replay.speed],
            clock,
            sleep,
            on_progress=lambda applied: _update(replay, applied=applied),
        )
        replayer.play(changes)
    except (ReplayError, NotFoundError) as err:
        logger.warning("replay %s failed: %s", replay.pk, err)
        _update(replay, state=Replay.FAILED, error=str(err), finished_at=timezone.now())
        return
    except Exception as err:
        logger.exception("replay %s failed", replay.pk)
        message = f"unexpected error: {type(err).__name__}: {err}"
        _update(replay, state=Replay.FAILED, error=message, finished_at=timezone.now())
        return
    _update(replay, state=Replay.DONE, finished_at=timezone.now())


def _update(replay: Replay, **fields: Any) -> None:
    for name, value in fields.items():
        setattr(replay, name, value)
    Replay.objects.filter(pk=replay.pk).update(**fields)
