"""The scheduling queue's metrics: pods coming in per queue and event, and its gauges.

Upstream moves ``scheduler_pending_pods``, ``scheduler_unschedulable_pods`` and
``scheduler_inflight_events`` up and down as pods and events come and go; here they are read
from the queue when someone asks (the same numbers, and nothing to keep in step while the
scheduler runs).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Iterable, Mapping
from typing import TYPE_CHECKING, Protocol

from framework.metrics import (
    INFLIGHT_EVENTS,
    PENDING_PODS,
    QUEUE_INCOMING_PODS_TOTAL,
    UNSCHEDULABLE_PODS,
    Labels,
    Metrics,
)

if TYPE_CHECKING:
    from framework.interface.types import QueuedPodInfo


class QueueListing(Protocol):
    """The queue's pods by where they wait (scheduling_queue.QueueListing)."""

    active: list[QueuedPodInfo]
    backoff: list[QueuedPodInfo]
    unschedulable: list[QueuedPodInfo]
    gated: list[QueuedPodInfo]


# The ``queue`` label values (upstream's queue names in its metrics).
ACTIVE = "active"
BACKOFF = "backoff"
UNSCHEDULABLE = "unschedulable"
GATED = "gated"


def count_incoming(metrics: Metrics, queue: str, event: str) -> None:
    """A pod entered ``queue`` because of ``event`` (scheduler_queue_incoming_pods_total)."""
    metrics.inc(QUEUE_INCOMING_PODS_TOTAL, queue=queue, event=event)


def register_gauges(
    metrics: Metrics,
    listing: Callable[[], QueueListing],
    in_flight_labels: Callable[[], Mapping[str, int]],
) -> None:
    """Makes the queue's current contents the source of its three gauges."""
    metrics.gauge_source(PENDING_PODS, lambda: pending_pods(listing()))
    metrics.gauge_source(UNSCHEDULABLE_PODS, lambda: unschedulable_pods(listing()))
    metrics.gauge_source(INFLIGHT_EVENTS, lambda: inflight_events(in_flight_labels()))


def pending_pods(listing: QueueListing) -> dict[Labels, float]:
    """Pods per queue; in-flight pods are in none of them, as upstream counts."""
    sizes = {
        ACTIVE: len(listing.active),
        BACKOFF: len(listing.backoff),
        UNSCHEDULABLE: len(listing.unschedulable),
        GATED: len(listing.gated),
    }
    return {(("queue", queue),): float(size) for queue, size in sizes.items()}


def inflight_events(labels: Mapping[str, int]) -> dict[Labels, float]:
    """Pods in flight (``PodPopped``) and the events recorded for them, by event label.

    Upstream's gauge keeps a label at 0 once its entries are gone; one read here shows only
    labels with entries now (the exporter sets those that went away to 0).
    """
    return {(("event", label),): float(n) for label, n in labels.items()}


def unschedulable_pods(listing: QueueListing) -> dict[Labels, float]:
    """Queued pods per plugin that rejected (or gated) them, per profile.

    Upstream adds one for each rejector plugin when a failed pod comes back to the queue (or a
    PreEnqueue plugin gates it) and takes it away when the pod is popped or deleted: so every
    queued pod counts for the plugins it still remembers.
    """
    counts: Counter[Labels] = Counter()
    for pod_info in _queued(listing):
        profile = pod_info.pod.spec.scheduler_name
        for plugin in pod_info.unschedulable_plugins | pod_info.pending_plugins:
            counts[(("plugin", plugin), ("profile", profile))] += 1
    return {labels: float(n) for labels, n in counts.items()}


def _queued(listing: QueueListing) -> Iterable[QueuedPodInfo]:
    yield from listing.active
    yield from listing.backoff
    yield from listing.unschedulable
    yield from listing.gated
