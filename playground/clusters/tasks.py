"""Celery tasks of the clusters app: a recording replayed into a workspace.

``replay_recording`` runs on the ``scheduler`` queue: like a scheduler service it may run for
long (a recording at its recorded pace), and the scheduler workers are the ones with threads
for that; the binding workers must stay free for binding cycles. The embedded worker consumes
that queue too, so in the default mode it runs inside the web process.
"""

from __future__ import annotations

from celery import shared_task
from django.db import close_old_connections

from playground.clusters.models import Replay
from playground.clusters.replay import run_replay
from playground.scheduling.tasks import SCHEDULER_QUEUE, ensure_scheduler_running


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
