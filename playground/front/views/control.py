"""Pause and resume a workspace's scheduler."""

from __future__ import annotations

from django.contrib import messages
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.views.decorators.http import require_POST

from playground.front.access import workspace_view
from playground.front.commands import send_command
from playground.workspaces.models import SchedulerCommand, Workspace


@require_POST
@workspace_view
def pause(request: HttpRequest, workspace: Workspace) -> HttpResponse:
    return _control(request, workspace, SchedulerCommand.PAUSE)


@require_POST
@workspace_view
def resume(request: HttpRequest, workspace: Workspace) -> HttpResponse:
    return _control(request, workspace, SchedulerCommand.RESUME)


def _control(request: HttpRequest, workspace: Workspace, kind: str) -> HttpResponse:
    send_command(workspace, request.user, kind)
    note = f"Asked the scheduler to {kind}."
    if request.htmx:
        context = {"workspace": workspace, "requested": kind, "note": note}
        return render(request, "front/scheduler_state.html", context)
    messages.success(request, note)
    return redirect(workspace)
