"""A pod's page: its latest attempt's tables, every attempt, and each attempt's own page.

Attempts are named by their pod and number (``/pods/<uid>/attempts/3/``, "attempt 3"), the
same on every page; URLs by database id, from before attempts had numbers, redirect there.
"""

from __future__ import annotations

from typing import Any

from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect
from django.urls import reverse

from playground.front import trace_tables
from playground.front.access import workspace_view
from playground.front.breakpoint_form import BreakpointForm, breakpoints_panel
from playground.front.devices import pod_claim_rows
from playground.front.live_panel import live_trace_context, stopped_trace
from playground.front.pages import render_page
from playground.front.pod_states import pod_states
from playground.front.preemption_panel import POST_FILTER
from playground.front.reweight_panel import reweight_panel
from playground.front.reweighted_profile import attempt_configuration
from playground.front.stop_section import render_stop_section, stored_stop
from playground.workspaces.models import AttemptTrace, ClusterObject, SchedulingAttempt, Workspace

MATRIX_ROWS = 100
"""Filter matrix rows shown at first; thousands of nodes are one click away."""


@workspace_view
def pod_detail(request: HttpRequest, workspace: Workspace, uid: str) -> HttpResponse:
    context = pod_page_context(workspace, uid, request.get_full_path())
    return render_page(request, "front/pod.html", "front/pod_attempts.html", context)


def pod_page_context(
    workspace: Workspace, uid: str, next_url: str, breakpoint_form: BreakpointForm | None = None
) -> dict[str, Any]:
    """The pod page's context; its Debugger section lists the breakpoints that apply to the
    pod, with ``breakpoint_form`` (as submitted, with its errors) or a new one."""
    pod = ClusterObject.objects.filter(workspace=workspace, kind="Pod", uid=uid).first()
    attempts = SchedulingAttempt.objects.filter(workspace=workspace, pod_uid=uid)
    if pod is None and not attempts.exists():
        raise Http404("No such pod.")
    panel = None
    if pod is not None:
        panel = breakpoints_panel(workspace, next_url, pod=pod, form=breakpoint_form)
    stored = stored_stop(workspace)
    return {
        **live_trace_context(workspace, stopped_trace(stored["stop"], uid), pod_page=True),
        "workspace": workspace,
        "section": "pods",
        "uid": uid,
        "pod": pod,
        "state": pod_states(workspace, [pod])[0] if pod else None,
        "pod_key": pod.key if pod else attempts[0].pod_key,
        "attempts": attempts,
        "breakpoints_panel": panel,
        "claims": pod_claim_rows(workspace, pod) if pod is not None else [],
        "stop_section": render_stop_section(workspace, uid, stored),
        **latest_attempt_context(workspace, uid),
    }


@workspace_view
def attempt_detail(
    request: HttpRequest, workspace: Workspace, uid: str, number: int
) -> HttpResponse:
    attempt = get_object_or_404(SchedulingAttempt, workspace=workspace, pod_uid=uid, number=number)
    tables = attempt_tables(attempt, all_rows=request.GET.get("rows") == "all")
    return attempt_page(request, workspace, attempt, tables)


def attempt_page(
    request: HttpRequest,
    workspace: Workspace,
    attempt: SchedulingAttempt,
    tables: dict[str, Any],
    problems: list[str] = (),
    status: int = 200,
) -> HttpResponse:
    """The attempt's page (its trace's fragment for htmx): the revision it ran under, and the
    Reweight panel under the query's weights; ``problems`` are the Compare button's when it
    was refused."""
    context = {"workspace": workspace, "section": "pods", **tables}
    if not getattr(request, "htmx", None):
        base = context["configuration"] = attempt_configuration(attempt)
        if tables["has_trace"]:
            scores = tables["scores"]
            context["reweight"] = reweight_panel(attempt, base, scores, request.GET, problems)
    if any(point.event.get("point") == POST_FILTER for point in tables.get("points", ())):
        args = [workspace.slug, attempt.pod_uid, attempt.number]
        context["preemption_url"] = reverse("attempt-preemption", args=args)
    return render_page(
        request, "front/attempt.html", "front/attempt_trace.html", context, status=status
    )


@workspace_view
def attempt_by_id(request: HttpRequest, workspace: Workspace, pk: int) -> HttpResponse:
    """The URL an attempt had before attempts were numbered: it leads to the attempt's own."""
    attempt = get_object_or_404(SchedulingAttempt, workspace=workspace, pk=pk)
    url = reverse("attempt", args=[workspace.slug, attempt.pod_uid, attempt.number])
    query = request.GET.urlencode()
    return redirect(f"{url}?{query}" if query else url, permanent=True)


def latest_attempt_context(workspace: Workspace, uid: str) -> dict[str, Any]:
    """The tables of the pod's latest attempt, which its page shows without a click (the live
    consumer renders them too when the next attempt is stored)."""
    latest = SchedulingAttempt.objects.filter(workspace=workspace, pod_uid=uid).first()
    context: dict[str, Any] = {"workspace": workspace, "latest": latest}
    if latest is not None:
        context.update(attempt_tables(latest))
    pending = ClusterObject.objects.filter(workspace=workspace, kind="Pod", uid=uid, node_name="")
    if pending.exists():
        context["why_url"] = reverse("pod-why", args=[workspace.slug, uid])
    return context


def attempt_tables(attempt: SchedulingAttempt, all_rows: bool = False) -> dict[str, Any]:
    """An attempt's extension points, filter matrix (the first MATRIX_ROWS nodes unless
    ``all_rows``), score table and final ranking, from its stored trace."""
    trace = AttemptTrace.objects.filter(attempt=attempt).first()
    events = trace.events() if trace else []
    limit = None if all_rows else MATRIX_ROWS
    return {
        "attempt": attempt,
        "has_trace": trace is not None,
        **trace_tables.trace_context(events, attempt.final_scores, attempt.node, limit),
    }
