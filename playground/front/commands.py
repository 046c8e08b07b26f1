"""Requests from the pages to a workspace's scheduler service.

Pages never talk to the service directly: they store a SchedulerCommand, which the service
executes on its next tick, and make sure a service is running to pick it up.
"""

from __future__ import annotations

import time
from typing import Any

from django.utils import timezone

from playground.scheduling import lease
from playground.scheduling.tasks import ensure_scheduler_running
from playground.workspaces.models import SchedulerCommand, Workspace

OUTCOME_POLL_SECONDS = 0.05


def send_command(
    workspace: Workspace, user: Any, kind: str, payload: dict[str, Any] | None = None
) -> SchedulerCommand:
    command = SchedulerCommand.objects.create(
        workspace=workspace, kind=kind, payload=payload or {}, created_by=user
    )
    wake_scheduler(workspace)
    return command


def wake_scheduler(workspace: Workspace) -> None:
    """Starts the workspace's scheduler service if none holds its lease."""
    ensure_scheduler_running(workspace)


def wait_for_outcome(command: SchedulerCommand, seconds: float) -> str | None:
    """The command's outcome once the service has executed it, waiting at most ``seconds``;
    None if it has not by then, or at once when no scheduler holds the lease to execute it.

    A running service executes commands at every tick (a tenth of a second when idle, a few
    tenths in a burst), so a page that waits this long shows what was asked for as done.
    """
    deadline = time.monotonic() + seconds
    while lease.is_live(command.workspace_id, timezone.now()):
        done = SchedulerCommand.objects.filter(pk=command.pk, done_at__isnull=False)
        outcome = done.values_list("outcome", flat=True).first()
        if outcome is not None or time.monotonic() >= deadline:
            return outcome
        time.sleep(OUTCOME_POLL_SECONDS)
    return None
