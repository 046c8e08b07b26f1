"""``/metrics``: every process's values in the Prometheus text format."""

from __future__ import annotations

from django.conf import settings
from django.http import HttpRequest, HttpResponse
from django.views.decorators.http import require_GET
from prometheus_client import REGISTRY, CollectorRegistry, generate_latest
from prometheus_client.exposition import CONTENT_TYPE_LATEST
from prometheus_client.multiprocess import MultiProcessCollector

from playground.metrics.access import may_scrape


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
    return HttpResponse(generate_latest(_registry()), content_type=CONTENT_TYPE_LATEST)


def _registry() -> CollectorRegistry:
    """All processes' values when PROMETHEUS_MULTIPROC_DIR is set, else this process's."""
    directory = settings.PROMETHEUS_MULTIPROC_DIR
    if not directory:
        return REGISTRY
    registry = CollectorRegistry()
    MultiProcessCollector(registry, path=directory)
    return registry
