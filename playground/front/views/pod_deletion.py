"""Deleting pods in bulk from the pods page: those ticked, or all those matching its filter.

The first POST answers with a confirmation that lists the pods; confirming sends their uids
back, so exactly the pods the person saw are deleted (any gone meanwhile are skipped), even if
the filter would match others by then. Deletion goes through DatabaseCluster, which records
each pod's deletion in the change log the scheduler follows, as deleting one pod does.
"""

from __future__ import annotations

from typing import Any

from django.contrib import messages
from django.http import HttpRequest, HttpResponse
from django.shortcuts import render
from django.urls import reverse
from django.views.decorators.http import require_POST

from playground.front.access import object_edit_view
from playground.front.commands import wake_scheduler
from playground.front.pages import redirect_page
from playground.front.pod_filter import PodFilter
from playground.front.queue_board import board_of
from playground.workspaces.cluster import DatabaseCluster
from playground.workspaces.models import ClusterObject, Workspace

LISTED = 50
"""Pods named on the confirmation; the count says how many more there are."""
SELECTED, MATCHING = "selected", "matching"


@require_POST
@object_edit_view
def delete_pods(request: HttpRequest, workspace: Workspace) -> HttpResponse:
    pod_filter = PodFilter.from_query(request.POST)
    back = _pods_url(workspace, pod_filter)
    if request.POST.get("confirm") == "yes":
        return _delete(request, workspace, request.POST.get("uids", "").split(), back)
    selection = request.POST.get("selection", SELECTED)
    pods = _chosen(request, workspace, pod_filter, selection)
    if not pods:
        messages.error(request, _nothing_to_delete(selection))
        return redirect_page(request, back)
    context = {
        "workspace": workspace,
        "section": "pods",
        "filter": pod_filter,
        "matching": selection == MATCHING,
        "count": len(pods),
        "listed": [pod.key for pod in pods[:LISTED]],
        "more": max(0, len(pods) - LISTED),
        "uids": " ".join(pod.uid for pod in pods),
        "back": back,
    }
    return render(request, "front/pods_delete.html", context)


def _chosen(
    request: HttpRequest, workspace: Workspace, pod_filter: PodFilter, selection: str
) -> list[ClusterObject]:
    if selection == MATCHING:
        return list(pod_filter.pods(workspace, board_of(workspace).where()))
    uids = request.POST.getlist("uid")
    pods = ClusterObject.objects.filter(workspace=workspace, kind="Pod", uid__in=uids)
    return list(pods.order_by("namespace", "name"))


def _delete(request: HttpRequest, workspace: Workspace, uids: list[str], back: str) -> Any:
    deleted = DatabaseCluster(workspace).delete_many("Pod", uids)
    if deleted:
        wake_scheduler(workspace)
    gone = len(set(uids)) - deleted
    note = f" ({gone} {'was' if gone == 1 else 'were'} already gone)" if gone else ""
    messages.success(request, f"Deleted {deleted} pod{'' if deleted == 1 else 's'}{note}.")
    return redirect_page(request, back)


def _nothing_to_delete(selection: str) -> str:
    if selection == MATCHING:
        return "No pod matches the filter: nothing was deleted."
    return "No pod was selected: tick the pods to delete, or delete all matching the filter."


def _pods_url(workspace: Workspace, pod_filter: PodFilter) -> str:
    """The pods page with the filter the person came from."""
    query = pod_filter.query_string()
    url = reverse("pods", args=[workspace.slug])
    return f"{url}?{query}" if query else url
