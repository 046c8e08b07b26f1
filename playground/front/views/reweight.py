"""The attempt page's "Compare with these weights": the attempt's configuration with the
weights asked for, handed to the Compare page (``reweighted_profile``)."""

from __future__ import annotations

from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect

from playground.front.access import workspace_view
from playground.front.reweight import read_weights, recorded_scores
from playground.front.reweighted_profile import (
    ReweightError,
    attempt_configuration,
    compare_url,
    reweighted_configuration,
    variant_name,
)
from playground.front.views.pods import attempt_page, attempt_tables
from playground.workspaces.models import SchedulingAttempt, Workspace


@workspace_view
def reweighted_profile(
    request: HttpRequest, workspace: Workspace, uid: str, number: int
) -> HttpResponse:
    """``?weight.<Plugin>=<n>``: a redirect to the Compare page with the new profile, or the
    attempt's page with every problem (422) when a weight or the profile is refused."""
    attempt = get_object_or_404(SchedulingAttempt, workspace=workspace, pod_uid=uid, number=number)
    tables = attempt_tables(attempt)
    recorded = recorded_scores(tables["scores"], attempt.final_scores, attempt.node)
    if recorded is None:
        raise Http404("This attempt recorded no Score to reweight.")
    weights, problems = read_weights(request.GET, recorded)
    if problems:
        return attempt_page(request, workspace, attempt, tables, status=422)
    try:
        text = reweighted_configuration(attempt_configuration(attempt), attempt.profile, weights)
    except ReweightError as err:
        return attempt_page(request, workspace, attempt, tables, [str(err)], status=422)
    name = variant_name(attempt, recorded.weights, weights)
    return redirect(compare_url(workspace, text, name))
