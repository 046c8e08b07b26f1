"""Explain panels, each on its own request: a pending pod's "Why pending" (the pod page loads
it after the page), its one-line form (the pods list's tooltip, on hover), and an attempt's
Preemption panel (the attempt page loads it after the page). Without JavaScript the links
open them as pages of their own."""

from __future__ import annotations

from django.http import HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404

from playground.front.access import workspace_view
from playground.front.pages import render_page
from playground.front.preemption_panel import attempt_ran_post_filter, preemption_panel
from playground.front.why_pending import ExplainUnavailable, why_pending
from playground.workspaces.models import ClusterObject, SchedulingAttempt, Workspace


@workspace_view
def why_pending_panel(request: HttpRequest, workspace: Workspace, uid: str) -> HttpResponse:
    row = get_object_or_404(ClusterObject, workspace=workspace, kind="Pod", uid=uid)
    context = {"workspace": workspace, "section": "pods", "pod": row, **_why(workspace, row)}
    return render_page(request, "front/why_pending_page.html", "front/why_pending.html", context)


@workspace_view
def why_pending_tip(request: HttpRequest, workspace: Workspace, uid: str) -> HttpResponse:
    row = get_object_or_404(ClusterObject, workspace=workspace, kind="Pod", uid=uid)
    context = {"workspace": workspace, "pod": row, **_why(workspace, row)}
    return render_page(request, "front/why_pending_page.html", "front/why_tip.html", context)


@workspace_view
def attempt_preemption(
    request: HttpRequest, workspace: Workspace, uid: str, number: int
) -> HttpResponse:
    attempt = get_object_or_404(SchedulingAttempt, workspace=workspace, pod_uid=uid, number=number)
    ran = attempt_ran_post_filter(attempt)
    context = {
        "workspace": workspace,
        "section": "pods",
        "attempt": attempt,
        "ran_post_filter": ran,
    }
    if ran:
        try:
            context["preemption"] = preemption_panel(attempt)
        except ExplainUnavailable as err:
            context["problem"] = str(err)
    return render_page(request, "front/preemption_page.html", "front/preemption.html", context)


def _why(workspace: Workspace, row: ClusterObject) -> dict:
    if row.node_name:
        return {"bound": True}
    try:
        return {"why": why_pending(workspace, row)}
    except ExplainUnavailable as err:
        return {"problem": str(err)}
