"""A pod's page: its attempts, and per attempt the trace tables, loaded on demand."""

from __future__ import annotations

from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404

from playground.front import trace_tables
from playground.front.access import workspace_view
from playground.front.pages import render_page
from playground.front.pod_states import pod_states
from playground.workspaces.models import AttemptTrace, ClusterObject, SchedulingAttempt, Workspace

MATRIX_ROWS = 100
"""Filter matrix rows shown at first; thousands of nodes are one click away."""


@workspace_view
def pod_detail(request: HttpRequest, workspace: Workspace, uid: str) -> HttpResponse:
    pod = ClusterObject.objects.filter(workspace=workspace, kind="Pod", uid=uid).first()
    attempts = SchedulingAttempt.objects.filter(workspace=workspace, pod_uid=uid)
    if pod is None and not attempts.exists():
        raise Http404("No such pod.")
    context = {
        "workspace": workspace,
        "section": "pods",
        "uid": uid,
        "pod": pod,
        "state": pod_states(workspace, [pod])[0] if pod else None,
        "pod_key": pod.key if pod else attempts[0].pod_key,
        "attempts": attempts,
    }
    return render_page(request, "front/pod.html", "front/pod_attempts.html", context)


@workspace_view
def attempt_detail(request: HttpRequest, workspace: Workspace, pk: int) -> HttpResponse:
    attempt = get_object_or_404(SchedulingAttempt, workspace=workspace, pk=pk)
    trace = AttemptTrace.objects.filter(attempt=attempt).first()
    events = trace.events() if trace else []
    matrix = trace_tables.filter_matrix(events)
    show_all = request.GET.get("rows") == "all"
    context = {
        "workspace": workspace,
        "section": "pods",
        "attempt": attempt,
        "has_trace": trace is not None,
        "points": trace_tables.extension_points(events),
        "matrix": matrix,
        "matrix_rows": matrix.rows if show_all else matrix.rows[:MATRIX_ROWS],
        "scores": trace_tables.score_table(events),
        "ranking": trace_tables.ranking(attempt.final_scores, attempt.node),
    }
    return render_page(request, "front/attempt.html", "front/attempt_trace.html", context)
