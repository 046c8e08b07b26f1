"""The debugger page: a workspace's breakpoints, where its scheduler is stopped, the controls,
and each extension point's result as it completes (docs/debugger.md)."""

from __future__ import annotations

from typing import Any

from django.http import HttpRequest, HttpResponse
from django.shortcuts import render

from playground.front.access import workspace_view
from playground.workspaces.models import Workspace


@workspace_view
def debugger(request: HttpRequest, workspace: Workspace) -> HttpResponse:
    return render(request, "front/debugger.html", debugger_context(workspace))


def debugger_context(workspace: Workspace) -> dict[str, Any]:
    """What the page shows; its parts add their own."""
    return {"section": "debugger", "workspace": workspace}
