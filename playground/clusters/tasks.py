"""Celery tasks of the clusters app: each connection's mirror, and recordings replayed.

``run_mirror`` (queue ``scheduler``, beside the scheduler services: both run for as long as
they hold their lease) runs a MirrorRuntime until it ends. ``ensure_mirror_running`` starts one
for a connection linked to a workspace unless one holds a live lease; the connection pages call
it, and so does the watchdog (``ensure_all_mirrors_running``, which this module hands to it).

``replay_recording`` runs on the ``scheduler`` queue too: it may run for long (a recording at
its recorded pace), and the binding workers must stay free for binding cycles. The embedded
worker consumes that queue, so in the default mode both run inside the web process.
"""

from __future__ import annotations

import logging
import os
import socket
import uuid
from typing import Any

from celery import shared_task
from django.conf import settings
from django.db import close_old_connections, connections
from django.utils import timezone

from playground.clusters.models import ClusterConnection, Replay
from playground.clusters.replay import run_replay
from playground.clusters.runtime import MIRROR_LEASES, MirrorRuntime
from playground.scheduling import watchdog
from playground.scheduling.runs import Runs
from playground.scheduling.tasks import SCHEDULER_QUEUE, ensure_scheduler_running

logger = logging.getLogger(__name__)


MIRRORS: Runs[MirrorRuntime] = Runs()
"""The mirrors this process runs."""


def limit_mirrors(most: int | None) -> None:
    """At most ``most`` mirrors at once in this process (None: no limit)."""
    MIRRORS.limit(most)


@shared_task(bind=True, ignore_result=True, acks_late=False)
def run_mirror(self: Any, connection_id: int) -> str:
    """Mirrors the connection's cluster until the runtime ends (see MirrorRuntime)."""
    if MIRRORS.full():
        return "no room for another mirror in this worker"
    task_id = self.request.id or uuid.uuid4().hex
    holder = f"{socket.gethostname()}:{os.getpid()}:{task_id}"
    runtime = MirrorRuntime(connection_id, holder, task_id=task_id)
    try:
        if not runtime.start():
            return runtime.why
        with MIRRORS.running(runtime) as run:
            runtime.why = runtime.run(run.stop)
            runtime.stop(release=run.release)
        if runtime.restart:
            ensure_mirror_running(connection_id)
        return runtime.why
    finally:
        connections.close_all()  # this thread may not run another mirror for a long time


def ensure_mirror_running(connection: ClusterConnection | int) -> bool:
    """Starts the connection's mirror unless one holds a live lease (or it mirrors nothing).

    True when a start was requested. The lease is reserved for the task enqueued, so calls in
    quick succession start one mirror, not several.
    """
    connection_id = connection if isinstance(connection, int) else connection.pk
    if not ClusterConnection.objects.filter(pk=connection_id, workspace__isnull=False).exists():
        return False
    task_id = uuid.uuid4().hex
    seconds = float(settings.MIRROR_LEASE_SECONDS)
    if not MIRROR_LEASES.reserve_start(connection_id, task_id, timezone.now(), seconds):
        return False
    run_mirror.apply_async(args=[connection_id], task_id=task_id)
    return True


def ensure_all_mirrors_running() -> int:
    """Starts the mirrors that are missing; returns how many were requested."""
    linked = ClusterConnection.objects.filter(workspace__isnull=False)
    return sum(ensure_mirror_running(pk) for pk in linked.values_list("pk", flat=True))


def stop_mirrors(release: bool = True, timeout: float | None = 10.0) -> int:
    """Stops every mirror this process runs and waits for them; returns how many there were.

    ``release=False`` leaves their leases to lapse, as a killed worker would.
    """
    return MIRRORS.stop_all(release, timeout)


def running_mirrors() -> list[MirrorRuntime]:
    return MIRRORS.tasks()


watchdog.keep_running(ensure_all_mirrors_running)


# ----------------------------------------------------------------------------------------------
# Replays


@shared_task(ignore_result=True)
def replay_recording(replay_id: int) -> str:
    """Plays a Replay row's recording into its workspace (the row says how far it got)."""
    try:
        rows = Replay.objects.select_related("recording__connection", "workspace")
        replay = rows.filter(pk=replay_id).first()
        if replay is None:
            return "the replay is gone"
        if replay.workspace is not None:
            ensure_scheduler_running(replay.workspace)
        run_replay(replay)
        return replay.state
    finally:
        close_old_connections()


def start_replay(replay: Replay) -> None:
    """Queues the replay's task (the page calls it once the Replay row is stored)."""
    replay_recording.apply_async(args=[replay.pk], queue=SCHEDULER_QUEUE)
