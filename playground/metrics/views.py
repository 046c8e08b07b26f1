"""``/metrics``: every process's values in the Prometheus text format."""

from __future__ import annotations

from django.http import HttpRequest, HttpResponse
from django.views.decorators.http import require_GET
from prometheus_client import generate_latest
from prometheus_client.exposition import CONTENT_TYPE_LATEST

from playground.metrics.access import may_scrape
from playground.metrics.registry import exported_registry


@require_GET
def metrics(request: HttpRequest) -> HttpResponse:
    if not may_scrape(request):
        response = HttpResponse(
            "metrics: a bearer token or a staff login is required\n",
            status=401,
            content_type="text/plain; charset=utf-8",
        )
        response["WWW-Authenticate"] = 'Bearer realm="metrics"'
        return response
    return HttpResponse(generate_latest(exported_registry()), content_type=CONTENT_TYPE_LATEST)
