"""The Metrics tab: the workspace's scheduler metrics over a time window (docs/metrics.md)."""

from __future__ import annotations

from django.http import HttpRequest, HttpResponse

from playground.front.access import workspace_view
from playground.front.metrics_tab import metrics_tab
from playground.front.pages import render_page
from playground.metrics.history import SAMPLE_INTERVAL
from playground.workspaces.models import Workspace


@workspace_view
def workspace_metrics(request: HttpRequest, workspace: Workspace) -> HttpResponse:
    """``?window=15m`` (5m, 15m, 1h, 6h, 24h) and ``?profile=NAME`` (all when absent)."""
    context = {
        "section": "metrics",
        "workspace": workspace,
        "tab": metrics_tab(workspace.pk, request.GET),
        "sample_interval": f"{SAMPLE_INTERVAL:g}",
    }
    return render_page(request, "front/metrics.html", "front/metrics_body.html", context)
