"""The workspaces a user can open, and each workspace's overview."""

from __future__ import annotations

from typing import Any

from django import forms
from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.db.models import Count, Q
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.urls import reverse

from playground.front.access import workspace_view
from playground.front.commands import wake_scheduler
from playground.front.pages import redirect_page, render_page
from playground.scheduling.workspace_deletion import delete_workspace
from playground.workspaces import demo
from playground.workspaces.models import ClusterObject, Workspace
from playground.workspaces.services import create_workspace, workspace_name_problem

LATEST_ATTEMPTS = 10


@login_required
def index(request: HttpRequest) -> HttpResponse:
    return redirect("workspaces")


class WorkspaceForm(forms.Form):
    """A new workspace of ``owner``'s: empty, or holding a copy of the demo cluster."""

    EMPTY, DEMO = "empty", "demo"

    name = forms.CharField(max_length=100)
    description = forms.CharField(max_length=1000, required=False, widget=forms.Textarea)
    start = forms.ChoiceField(
        label="Start with",
        choices=[
            (EMPTY, "an empty cluster"),
            (DEMO, "the demo cluster: ten nodes in three zones, running and pending pods"),
        ],
        initial=EMPTY,
        required=False,  # empty, as a client that does not know the choice expects
        widget=forms.RadioSelect,
    )

    def __init__(self, *args: Any, owner: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.owner = owner

    def clean_name(self) -> str:
        name = self.cleaned_data["name"]
        problem = workspace_name_problem(self.owner, name)
        if problem:
            raise forms.ValidationError(problem)
        return name

    def manifests(self) -> list[dict[str, Any]]:
        return demo.demo_manifests() if self.cleaned_data["start"] == self.DEMO else []

    def feature_gates(self) -> str:
        """The demo cluster's gangs need its gates (GenericWorkload, GangScheduling)."""
        return demo.FEATURE_GATES if self.cleaned_data["start"] == self.DEMO else ""


@login_required
def workspace_list(request: HttpRequest) -> HttpResponse:
    """The workspaces the user can open; a POST creates one (default configuration, empty or
    with the demo cluster)."""
    form = WorkspaceForm(request.POST or None, owner=request.user)
    if request.method == "POST" and form.is_valid():
        workspace = create_workspace(
            request.user,
            form.cleaned_data["name"],
            description=form.cleaned_data["description"],
            manifests=form.manifests(),
            feature_gates=form.feature_gates(),
        )
        return redirect(workspace)
    context = {"workspaces": accessible_workspaces(request), "form": form}
    status = 422 if form.errors else 200
    return render(request, "front/workspaces.html", context, status=status)


@workspace_view
def overview(request: HttpRequest, workspace: Workspace) -> HttpResponse:
    wake_scheduler(workspace)  # a workspace someone looks at has its scheduler running
    context = {
        "section": "overview",
        "may_delete": workspace.can_delete(request.user),
        **overview_context(workspace),
    }
    return render_page(request, "front/overview.html", "front/overview_summary.html", context)


@workspace_view
def delete(request: HttpRequest, workspace: Workspace) -> HttpResponse:
    """GET asks to confirm, saying what goes with the workspace; POST deletes it (its scheduler
    service stops first)."""
    if not workspace.can_delete(request.user):
        context = {"workspace": workspace, "owner": workspace.owner.get_username()}
        return render(request, "front/workspace_delete.html", context, status=403)
    if request.method != "POST":
        context = {"workspace": workspace, "doomed": _contents(workspace)}
        return render(request, "front/workspace_delete.html", context)
    name = workspace.name
    delete_workspace(workspace)
    messages.success(request, f"Deleted workspace {name}.")
    return redirect_page(request, reverse("workspaces"))


def _contents(workspace: Workspace) -> dict[str, int]:
    return {
        "objects": workspace.cluster_objects.count(),
        "attempts": workspace.attempts.count(),
        "revisions": workspace.configurations.count(),
    }


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
