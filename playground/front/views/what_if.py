"""What-if: a pending pod (or a pasted one) through any profile, traced, with nothing written.

The trace is drawn by the attempt page's own template, from the engine's events, so a what-if
reads exactly like a stored attempt. A POST here changes nothing (see
``playground.scheduling.what_if``): it is a POST only because a pasted manifest may be long.
``?pod=<uid>`` (and ``&profile=``) runs one from a link.
"""

from __future__ import annotations

from typing import Any

from django.http import HttpRequest, HttpResponse

from framework.what_if import WhatIf, WhatIfError
from playground.front import trace_tables
from playground.front.access import workspace_view
from playground.front.manifest_text import FieldProblem
from playground.front.pages import render_page
from playground.front.what_if_form import OWN_PROFILE, WhatIfForm
from playground.scheduling.what_if import pending_pods, profile_names, run_what_if
from playground.workspaces.models import Workspace


@workspace_view
def what_if(request: HttpRequest, workspace: Workspace) -> HttpResponse:
    form = WhatIfForm.from_data(request.POST if request.method == "POST" else request.GET)
    context: dict[str, Any] = {"workspace": workspace, "section": "what-if", "form": form}
    try:
        profiles = profile_names(workspace)
        asked = request.method == "POST" or form.asked
        if asked and (question := form.resolve(workspace, profiles)) is not None:
            pod, profile = question
            context.update(outcome_context(run_what_if(workspace, pod, profile)))
    except WhatIfError as err:
        profiles = []
        form.problems.append(FieldProblem("", str(err)))
    context.update(pending=pending_pods(workspace), profiles=profiles, own=OWN_PROFILE)
    status = 422 if form.problems else 200
    return render_page(request, "front/what_if.html", "front/what_if_body.html", context, status)


def outcome_context(outcome: WhatIf) -> dict[str, Any]:
    """The outcome, and what ``front/attempt_trace.html`` needs to draw its trace."""
    attempt = outcome.attempt
    events = [event.to_dict() for event in outcome.events]
    chosen = attempt.node or ""
    return {
        "outcome": outcome,
        "attempt": {
            "nominated_node": attempt.nominated_node or "",
            "victims": outcome.victims,
            "feasible_nodes": attempt.feasible_nodes,
        },
        "has_trace": True,
        "not_run": [(point, plugins) for point, plugins in outcome.not_run.items() if plugins],
        **trace_tables.trace_context(events, attempt.final_scores, chosen, None),
    }
