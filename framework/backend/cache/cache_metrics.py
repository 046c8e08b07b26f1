"""The cache's size: upstream's ``scheduler_cache_size`` gauge.

Upstream's cache sets it once a second from its maps; here it is read from the cache when
someone asks (the same numbers, nothing to keep in step while the scheduler runs).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from framework.metrics import CACHE_SIZE, Labels, Metrics

if TYPE_CHECKING:
    from framework.backend.cache.cache import Cache

# The ``type`` label values.
ASSUMED_PODS = "assumed_pods"
PODS = "pods"
NODES = "nodes"


def register_gauges(metrics: Metrics, cache: Cache) -> None:
    """Makes the cache the source of ``scheduler_cache_size``."""
    metrics.gauge_source(CACHE_SIZE, lambda: cache_size(cache))


def cache_size(cache: Cache) -> dict[Labels, float]:
    """Assumed pods, every pod the cache holds (assumed ones too), and nodes."""
    assumed, pods, nodes = cache.sizes()
    return {
        (("type", ASSUMED_PODS),): float(assumed),
        (("type", PODS),): float(pods),
        (("type", NODES),): float(nodes),
    }
