"""The workspaces a user can open, and each workspace's overview."""

from __future__ import annotations

from typing import Any

from django.contrib.auth.decorators import login_required
from django.db.models import Count, Q
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render

from playground.front.access import workspace_view
from playground.front.commands import wake_scheduler
from playground.front.pages import render_page
from playground.workspaces.models import ClusterObject, Workspace

LATEST_ATTEMPTS = 10


@login_required
def index(request: HttpRequest) -> HttpResponse:
    return redirect("workspaces")


@login_required
def workspace_list(request: HttpRequest) -> HttpResponse:
    return render(request, "front/workspaces.html", {"workspaces": accessible_workspaces(request)})


@workspace_view
def overview(request: HttpRequest, workspace: Workspace) -> HttpResponse:
    wake_scheduler(workspace)  # a workspace someone looks at has its scheduler running
    context = {"section": "overview", **overview_context(workspace)}
    return render_page(request, "front/overview.html", "front/overview_summary.html", context)


def overview_context(workspace: Workspace) -> dict[str, Any]:
    """The overview's summary (the live consumer renders it too)."""
    return {
        "workspace": workspace,
        "counts": object_counts(workspace),
        "configuration": workspace.current_configuration(),
        "attempts": workspace.attempts.all()[:LATEST_ATTEMPTS],
    }


def accessible_workspaces(request: HttpRequest) -> list[Workspace]:
    user = request.user
    workspaces = Workspace.objects.select_related("owner")
    if not user.is_superuser:
        workspaces = workspaces.filter(Q(owner=user) | Q(members=user)).distinct()
    return list(workspaces)


def object_counts(workspace: Workspace) -> dict[str, int]:
    """Objects per kind, plus bound and pending pods."""
    objects = ClusterObject.objects.filter(workspace=workspace)
    counts = dict(objects.values_list("kind").annotate(n=Count("id")).order_by("kind"))
    pods = objects.filter(kind="Pod")
    counts["bound pods"] = pods.exclude(node_name="").count()
    counts["pending pods"] = pods.filter(node_name="").count()
    return counts
