"""Pause and resume a workspace's scheduler."""

from __future__ import annotations

from django.contrib import messages
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.views.decorators.http import require_POST

from playground.front.access import workspace_view
from playground.front.commands import send_command, wait_for_outcome
from playground.scheduling.scheduler_state import scheduler_state
from playground.workspaces.models import SchedulerCommand, Workspace

ANSWER_SECONDS = 3.0
"""How long a click waits for the scheduler to pause or resume, so that the page it gets back
shows the new state rather than the one it just asked to leave."""


@require_POST
@workspace_view
def pause(request: HttpRequest, workspace: Workspace) -> HttpResponse:
    return _control(request, workspace, SchedulerCommand.PAUSE)


@require_POST
@workspace_view
def resume(request: HttpRequest, workspace: Workspace) -> HttpResponse:
    return _control(request, workspace, SchedulerCommand.RESUME)


def _control(request: HttpRequest, workspace: Workspace, kind: str) -> HttpResponse:
    """Sends the command and answers with the scheduler's state once it is done: for htmx the
    scheduler's panel and the top bar's badge, from one reading of the state."""
    command = send_command(workspace, request.user, kind)
    outcome = wait_for_outcome(command, ANSWER_SECONDS)
    if outcome is None:
        note = f"Asked the scheduler to {kind}; this shows when it has."
    else:
        note = f"The scheduler {outcome}."
    if request.htmx:
        context = {"workspace": workspace, "scheduler": scheduler_state(workspace.pk), "note": note}
        return render(request, "front/scheduler_answer.html", context)
    messages.success(request, note)
    return redirect(workspace)
