"""The debugger page: a workspace's breakpoints, where its scheduler is stopped, the controls,
and each extension point's result as it completes (docs/debugger.md).

Breakpoints are set and cleared here and on a pod's page (its Debugger section): each change
is followed by a ``breakpoints`` SchedulerCommand, which makes the running service read them
again, and answers htmx with the breakpoints panel redrawn, or a browser without JavaScript
with a redirect to the page it came from (a form with errors is shown there again, as typed).
"""

from __future__ import annotations

import time
from typing import Any

from django.contrib import messages
from django.http import HttpRequest, HttpResponse, HttpResponseBadRequest
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import reverse
from django.utils.http import url_has_allowed_host_and_scheme
from django.views.decorators.http import require_POST

from playground.front.access import workspace_view
from playground.front.breakpoint_form import (
    BreakpointForm,
    Panel,
    applying_to,
    breakpoints_panel,
    describe,
    entries_of,
    missing_node_note,
    missing_nodes,
)
from playground.front.commands import OUTCOME_POLL_SECONDS, send_command, wait_for_outcome
from playground.front.live_panel import live_trace_context, stopped_trace
from playground.front.stop_section import CONTROLS, render_stop_section, stored_stop
from playground.front.views.pods import pod_page_context
from playground.workspaces.models import Breakpoint, ClusterObject, SchedulerCommand, Workspace


@workspace_view
def debugger(request: HttpRequest, workspace: Workspace) -> HttpResponse:
    return render(request, "front/debugger.html", debugger_context(workspace))


def debugger_context(workspace: Workspace) -> dict[str, Any]:
    """What the page shows; its parts add their own. During a stop the Live panel shows the
    attempt's extension points so far, as the page that saw them come did."""
    stored = stored_stop(workspace)
    return {
        **live_trace_context(workspace, stopped_trace(stored["stop"])),
        "section": "debugger",
        "workspace": workspace,
        "breakpoints_panel": breakpoints_panel(workspace, _debugger_url(workspace)),
        "stop_section": render_stop_section(workspace, stored=stored),
    }


COMMANDS = frozenset(command for command, *_ in CONTROLS) | {"play", "pause"}
ANSWER_SECONDS = 2.0
"""How long a click waits for the scheduler to take its command, so that the section it gets
back shows where the scheduler went (the next stop, or that it runs)."""


@require_POST
@workspace_view
def debug_command(request: HttpRequest, workspace: Workspace) -> HttpResponse:
    """Step, Next, Continue, Run to end, Abort, Play, Pause: a ``debug`` command naming the stop
    the page showed, so of two browsers clicking at once one is applied and the other told
    (Pause names none: it stops playing at whichever stop the scheduler is at)."""
    command = request.POST.get("command", "")
    if command not in COMMANDS:
        return HttpResponseBadRequest(
            f"command: {command!r} is not one of {', '.join(sorted(COMMANDS))}"
        )
    payload: dict[str, Any] = {"command": command, "stop": request.POST.get("stop", "")}
    if command == "pause":
        # Pause means "stop playing wherever it is now": while playing, the stop the page
        # showed may have gone on a moment before the click (it would be ignored).
        payload["stop"] = ""
    if command == "play":
        try:
            payload["pace"] = float(request.POST.get("pace", ""))
        except ValueError:
            return HttpResponseBadRequest("pace: give the seconds per extension point, e.g. 0.5")
        if not 0 < payload["pace"] <= 60:
            return HttpResponseBadRequest("pace: seconds per extension point between 0.1 and 60")
    sent = send_command(workspace, request.user, SchedulerCommand.DEBUG, payload)
    deadline = time.monotonic() + ANSWER_SECONDS
    outcome = wait_for_outcome(sent, ANSWER_SECONDS) or ""
    if outcome.startswith(("ignored", "invalid")):
        messages.warning(request, f"The scheduler {outcome}.")
    elif outcome and command not in ("play", "pause"):
        _wait_for_the_stop_to_end(workspace, payload["stop"], deadline)
    pod_uid = request.POST.get("pod") or None
    if request.htmx:
        # Nothing to swap: the page's socket shows where the scheduler went. An answer drawn
        # here too could arrive after the socket's newer one and put an older state back.
        return HttpResponse(status=204)
    if pod_uid:
        return redirect("pod", workspace.slug, pod_uid)
    return redirect("debugger", workspace.slug)


def _wait_for_the_stop_to_end(workspace: Workspace, stop_id: str, deadline: float) -> None:
    """The scheduler marks a command done a moment before it leaves the stop (and stores
    where it went): an answer drawn in between would show the stop just answered, its buttons
    live, after the page had already shown it gone."""
    while time.monotonic() < deadline:
        stop = stored_stop(workspace)["stop"]
        if stop is None or stop.get("id") != stop_id:
            return
        time.sleep(OUTCOME_POLL_SECONDS)


@require_POST
@workspace_view
def breakpoint_add(request: HttpRequest, workspace: Workspace) -> HttpResponse:
    """Sets one breakpoint; a form with errors saves nothing and comes back as typed."""
    form = BreakpointForm(request.POST, workspace=workspace)
    pod = _pod(request, workspace)
    if not form.is_valid():
        return _form_again(request, workspace, pod, form)
    added = form.save(request.user)
    note = f"Breakpoint set: {describe(added)}."
    if missing_nodes(workspace, [added.node]):
        note += f" {missing_node_note(added.node)}"
    if pod is not None and not applying_to(entries_of([added]), pod):
        note += " It does not apply to this pod: the debugger page lists it."
    return _changed(request, workspace, pod, note)


@require_POST
@workspace_view
def breakpoint_delete(request: HttpRequest, workspace: Workspace, pk: int) -> HttpResponse:
    cleared = get_object_or_404(Breakpoint, workspace=workspace, pk=pk)
    note = f"Breakpoint cleared: {describe(cleared)}."
    cleared.delete()
    return _changed(request, workspace, _pod(request, workspace), note)


@require_POST
@workspace_view
def breakpoints_clear(request: HttpRequest, workspace: Workspace) -> HttpResponse:
    """Clears every breakpoint of the workspace; from a pod's page, those listed there (the
    ones that apply to the pod)."""
    pod = _pod(request, workspace)
    rows = workspace.breakpoints.all()
    if pod is not None:
        rows = rows.filter(pk__in=[e.row.pk for e in applying_to(entries_of(rows), pod)])
    count, _ = rows.delete()
    note = f"Cleared {count} breakpoint{'' if count == 1 else 's'}."
    return _changed(request, workspace, pod, note)


def _changed(
    request: HttpRequest, workspace: Workspace, pod: ClusterObject | None, note: str
) -> HttpResponse:
    """Tells the scheduler to read its breakpoints again, and answers."""
    send_command(workspace, request.user, SchedulerCommand.BREAKPOINTS)
    if request.htmx:
        panel = breakpoints_panel(workspace, _next_url(request, workspace), pod=pod, note=note)
        return _render_panel(request, panel)
    messages.success(request, note)
    return redirect(_next_url(request, workspace))


def _form_again(
    request: HttpRequest, workspace: Workspace, pod: ClusterObject | None, form: BreakpointForm
) -> HttpResponse:
    """The panel (htmx) or the page it was on, with the form as submitted and its errors."""
    next_url = _next_url(request, workspace)
    if request.htmx:
        return _render_panel(request, breakpoints_panel(workspace, next_url, pod, form), 422)
    if pod is not None:
        context = pod_page_context(workspace, pod.uid, next_url, breakpoint_form=form)
        return render(request, "front/pod.html", context, status=422)
    context = {
        **debugger_context(workspace),
        "breakpoints_panel": breakpoints_panel(workspace, next_url, form=form),
    }
    return render(request, "front/debugger.html", context, status=422)


def _render_panel(request: HttpRequest, panel: Panel, status: int = 200) -> HttpResponse:
    context = {"workspace": panel.workspace, "breakpoints_panel": panel}
    return render(request, "front/debugger_breakpoints.html", context, status=status)


def _pod(request: HttpRequest, workspace: Workspace) -> ClusterObject | None:
    """The pod whose page the request came from (its Debugger section), if any."""
    uid = request.POST.get("for_pod", "")
    if not uid:
        return None
    return ClusterObject.objects.filter(workspace=workspace, kind="Pod", uid=uid).first()


def _next_url(request: HttpRequest, workspace: Workspace) -> str:
    """The page the form was on: a path of this site only, never another site's address."""
    url = request.POST.get("next", "")
    local = url.startswith("/") and url_has_allowed_host_and_scheme(
        url, allowed_hosts={request.get_host()}, require_https=request.is_secure()
    )
    return url if local else _debugger_url(workspace)


def _debugger_url(workspace: Workspace) -> str:
    return reverse("debugger", args=[workspace.slug])
