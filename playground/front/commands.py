"""Requests from the pages to a workspace's scheduler service.

Pages never talk to the service directly: they store a SchedulerCommand, which the service
executes on its next tick, and make sure a service is running to pick it up.
"""

from __future__ import annotations

from typing import Any

from playground.scheduling.tasks import ensure_scheduler_running
from playground.workspaces.models import SchedulerCommand, Workspace


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
