"""The registry ``/metrics`` serves, and the Metrics tab samples: one source for both."""

from __future__ import annotations

from django.conf import settings
from prometheus_client import REGISTRY, CollectorRegistry
from prometheus_client.multiprocess import MultiProcessCollector


def exported_registry() -> CollectorRegistry:
    """All processes' values when PROMETHEUS_MULTIPROC_DIR is set, else this process's."""
    directory = settings.PROMETHEUS_MULTIPROC_DIR
    if not directory:
        return REGISTRY
    registry = CollectorRegistry()
    MultiProcessCollector(registry, path=directory)
    return registry
