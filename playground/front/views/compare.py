"""The Compare page (a form, and the comparisons made), a comparison's progress and result,
its exports, and the attempts it kept of the pods that landed differently.

Nothing here writes to the workspace: a comparison copies its inputs when it starts and its
variants run on Celery (``playground.compare``). The result page reloads its body every second
(htmx) while variants run, as the recordings section does during a replay.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from django.http import Http404, HttpRequest, HttpResponse, JsonResponse
from django.shortcuts import get_object_or_404
from django.urls import reverse
from django.views.decorators.http import require_POST

from framework.trace import TraceEvent
from playground.compare import runs, tasks
from playground.compare.inputs import recordings_of
from playground.compare.models import DONE, Comparison, ComparisonVariant
from playground.front import compare_charts, comparison_report, trace_tables
from playground.front.access import workspace_view
from playground.front.compare_form import MAX_VARIANTS, PASTED, REVISION, CompareForm
from playground.front.pages import redirect_page, render_page
from playground.front.views.replay import BadPosition, position, replay_context
from playground.front.views.workspaces import accessible_workspaces
from playground.workspaces.models import Workspace

RECENT = 20
"""Comparisons listed on the Compare page."""
MAX_DIFFERENCES = 200
"""Differing pods listed on the result page (the exports list them all)."""


@workspace_view
def compare(request: HttpRequest, workspace: Workspace) -> HttpResponse:
    if request.method == "POST":
        form = CompareForm.from_data(request.POST, request.FILES)
        comparison = form.comparison(workspace, request.user)
        if comparison is not None:
            tasks.start_comparison(comparison)
            return redirect_page(request, comparison)
    else:
        form = CompareForm.initial(workspace, request.GET)
    context = {
        "workspace": workspace,
        "section": "compare",
        "form": form,
        "revisions": workspace.configurations.order_by("-revision"),
        "recordings": recordings_of(request.user),
        "workspaces": [w for w in accessible_workspaces(request) if w.pk != workspace.pk],
        "comparisons": workspace.comparisons.prefetch_related("variants")[:RECENT],
        "kinds": {"revision": REVISION, "pasted": PASTED},
        "max_variants": MAX_VARIANTS,
    }
    status = 422 if form.problems else 200
    return render_page(request, "front/compare.html", "front/compare_form.html", context, status)


def _comparison(workspace: Workspace, pk: int) -> Comparison:
    return get_object_or_404(Comparison, workspace=workspace, pk=pk)


@workspace_view
def comparison(request: HttpRequest, workspace: Workspace, pk: int) -> HttpResponse:
    found = _comparison(workspace, pk)
    context = {"workspace": workspace, "section": "compare", **result_context(found)}
    return render_page(request, "front/comparison.html", "front/comparison_body.html", context)


def result_context(comparison: Comparison) -> dict[str, Any]:
    """The variants' progress and, once phase 1 has ended, the report drawn. The variants'
    results and kept attempts stay in the database: the page reloads every second while they
    run, and the report says all it shows."""
    variants = list(comparison.variants.defer("result", "attempts"))
    context: dict[str, Any] = {"comparison": comparison, "variants": variants}
    report = comparison.report
    if report:
        by_name = {variant.name: variant for variant in variants}
        context.update(
            metrics=comparison_report.metric_rows(report),
            reported=[by_name.get(v.get("name")) for v in report.get("variants", [])],
            messages=comparison_report.unschedulable_messages(report),
            histograms=[
                compare_charts.histogram(v.get("name", ""), lookup_histogram(v))
                for v in report.get("variants", [])
            ],
            heatmap=compare_charts.heatmap(report.get("variants", [])),
            skew_rows=comparison_report.skew_rows(report),
            differences_left_out=max(
                0, len(comparison_report.differences(report)) - MAX_DIFFERENCES
            ),
            differences=difference_rows(
                comparison, report, [by_name.get(v.get("name")) for v in report.get("variants", [])]
            ),
        )
    return context


def difference_rows(
    comparison: Comparison, report: dict[str, Any], reported: list[ComparisonVariant | None]
) -> list[dict[str, Any]]:
    """Each differing pod with its node in every variant and, where the variant kept its
    attempts (phase 2 done, the pod among those traced), a link to the first of them."""
    traced = set(runs.traced_pods(report))
    rows = []
    for entry in comparison_report.differences(report)[:MAX_DIFFERENCES]:
        namespace, _, name = entry["pod"].partition("/")
        cells = []
        for variant, node in zip(reported, entry["nodes"], strict=False):
            url = ""
            if variant is not None and variant.trace_state == DONE and entry["pod"] in traced:
                args = [comparison.workspace.slug, comparison.pk, variant.index, namespace, name, 1]
                url = reverse("comparison-attempt", args=args)
            cells.append({"node": node, "url": url, "variant": variant.name if variant else ""})
        rows.append({"pod": entry["pod"], "cells": cells})
    return rows


def lookup_histogram(variant: dict[str, Any]) -> dict[str, list[int]]:
    return comparison_report.lookup(variant, "utilization.histogram") or {}


@workspace_view
@require_POST
def comparison_cancel(request: HttpRequest, workspace: Workspace, pk: int) -> HttpResponse:
    """Cancels one variant (``variant``: its index) or, without one, the whole comparison."""
    found = _comparison(workspace, pk)
    index = request.POST.get("variant", "")
    if index:
        variant = get_object_or_404(ComparisonVariant, comparison=found, index=_index(index))
        tasks.cancel_variant(variant)
    else:
        runs.cancel_comparison(found)
    if getattr(request, "htmx", None):
        context = {
            "workspace": workspace,
            "section": "compare",
            **result_context(_comparison(workspace, pk)),
        }
        return render_page(request, "front/comparison.html", "front/comparison_body.html", context)
    return redirect_page(request, found)


def _index(text: str) -> int:
    try:
        return int(text)
    except ValueError:
        raise Http404("No variant matches the given query.") from None


@workspace_view
def comparison_export(
    request: HttpRequest, workspace: Workspace, pk: int, fmt: str
) -> HttpResponse:
    """The report as JSON (as the CLI prints it) or CSV (metrics, then the differing pods)."""
    found = _comparison(workspace, pk)
    if fmt not in ("json", "csv"):
        raise Http404("Exports are .json and .csv.")
    if not found.report:
        return HttpResponse(
            "no report yet: the variants have not all ended",
            status=409,
            content_type="text/plain; charset=utf-8",
        )
    name = f"comparison-{found.pk}.{fmt}"
    if fmt == "json":
        response: HttpResponse = JsonResponse(found.report, json_dumps_params={"indent": 2})
    else:
        response = HttpResponse(
            comparison_report.metrics_csv(found.report), content_type="text/csv; charset=utf-8"
        )
    response["Content-Disposition"] = f'attachment; filename="{name}"'
    return response


# ----------------------------------------------------------------------------------------------
# The attempts kept of the pods that landed differently


@dataclass(frozen=True, slots=True)
class ComparedAttempt:
    """One kept attempt of a pod in one variant, as the replay and the trace tables read it."""

    variant: ComparisonVariant
    pod_key: str
    number: int
    report: dict[str, Any]

    @property
    def namespace(self) -> str:
        return self.pod_key.partition("/")[0]

    @property
    def name(self) -> str:
        return self.pod_key.partition("/")[2]

    @property
    def events(self) -> list[dict[str, Any]]:
        return list(self.report.get("events") or [])


PLACE = ("pk", "index", "namespace", "name", "number")
"""The URL arguments that name a kept attempt."""


def _attempt(
    workspace: Workspace, pk: int, index: int, namespace: str, name: str, number: int
) -> tuple[Comparison, ComparedAttempt, list[dict[str, Any]]]:
    found = _comparison(workspace, pk)
    variant = get_object_or_404(ComparisonVariant, comparison=found, index=index)
    key = f"{namespace}/{name}"
    attempts = variant.pod_attempts(key)
    if not 1 <= number <= len(attempts):
        raise Http404(f"Variant {variant.name} kept no attempt {number} of pod {key}.")
    return found, ComparedAttempt(variant, key, number, attempts[number - 1]), attempts


@workspace_view
def comparison_attempt(request: HttpRequest, workspace: Workspace, **place: Any) -> HttpResponse:
    """The attempt's tables (extension points, filter, scores, ranking), drawn from its events
    by the attempt page's own template."""
    found, attempt, attempts = _attempt(workspace, **place)
    report = attempt.report
    context = {
        "workspace": workspace,
        "section": "compare",
        "comparison": found,
        "compared": attempt,
        "attempts": range(1, len(attempts) + 1),
        "elsewhere": same_pod_elsewhere(found, attempt),
        "attempt": {
            "nominated_node": report.get("nominatedNode") or "",
            "victims": report.get("victims") or [],
            "feasible_nodes": report.get("feasibleNodes"),
        },
        "has_trace": bool(attempt.events),
        **trace_tables.trace_context(
            attempt.events, report.get("finalScores") or {}, report.get("node") or "", None
        ),
    }
    return render_page(
        request, "front/comparison_attempt.html", "front/comparison_attempt.html", context
    )


def same_pod_elsewhere(comparison: Comparison, attempt: ComparedAttempt) -> list[dict[str, str]]:
    """The pod's first kept attempt in each other variant: where it landed there, and a link."""
    others = []
    for variant in comparison.variants.exclude(pk=attempt.variant.pk):
        kept = variant.pod_attempts(attempt.pod_key)
        if kept:
            args = [comparison.workspace.slug, comparison.pk, variant.index]
            url = reverse("comparison-attempt", args=[*args, attempt.namespace, attempt.name, 1])
            node = kept[-1].get("node") or "not scheduled"
            others.append({"variant": variant.name, "node": node, "url": url})
    return others


@workspace_view
def comparison_replay(request: HttpRequest, workspace: Workspace, **place: Any) -> HttpResponse:
    """The replay view's scrubber and panels over a kept attempt's events."""
    found, attempt, _ = _attempt(workspace, **place)
    events = [TraceEvent.from_dict(event) for event in attempt.events]
    try:
        at = position(request.GET.get("at"), len(events))
    except BadPosition as problem:
        return HttpResponse(str(problem), status=400, content_type="text/plain; charset=utf-8")
    args = [workspace.slug, found.pk, *(place[key] for key in PLACE[1:])]
    context = {
        "workspace": workspace,
        "section": "compare",
        "comparison": found,
        "compared": attempt,
        "has_trace": bool(events),
        "url": reverse("comparison-replay", args=args),
        **replay_context(attempt, events, at),
    }
    return render_page(request, "front/comparison_replay.html", "front/replay_step.html", context)
