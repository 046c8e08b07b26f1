"""The Prometheus metric families the playground exports, built once per process.

The scheduler's come from the engine's ``DEFINITIONS`` (kube-scheduler v1.36's names, help,
buckets and label names) with a ``workspace`` label added; help texts carry the stability
prefix kube-scheduler's registry adds (``[STABLE] ...``). The ``playground_`` families are the
playground's own. Gauges say how values from several processes combine (multiprocess mode).
"""

from __future__ import annotations

from prometheus_client import Counter, Gauge, Histogram
from prometheus_client.metrics import MetricWrapperBase

from framework.metrics import COUNTER, DEFINITIONS, GAUGE, MetricDefinition

WORKSPACE = "workspace"
"""The label every exported scheduler metric has beside upstream's."""


def _family(definition: MetricDefinition) -> MetricWrapperBase:
    help_text = f"[{definition.stability}] {definition.help}"
    labels = (*definition.labels, WORKSPACE)
    if definition.kind == COUNTER:
        return Counter(definition.name, help_text, labels)
    if definition.kind == GAUGE:
        # One scheduler service owns a workspace at a time, and may move between processes:
        # the value written last by a live process is the current one.
        return Gauge(definition.name, help_text, labels, multiprocess_mode="livemostrecent")
    return Histogram(definition.name, help_text, labels, buckets=definition.buckets)


SCHEDULER: dict[str, MetricWrapperBase] = {
    name: _family(definition) for name, definition in DEFINITIONS.items()
}
"""kube-scheduler's metrics by name, registered in the default registry of this process."""

MIRROR_LAG_SECONDS = Gauge(
    "playground_mirror_lag_seconds",
    "Seconds since the oldest of a mirrored cluster's watch streams last heard from the API "
    "server.",
    [WORKSPACE],
    multiprocess_mode="livemostrecent",
)
MIRROR_CHANGES_APPLIED = Counter(
    "playground_mirror_changes_applied_total",
    "Changes of a live cluster written to its mirror workspace, by kind and event type.",
    [WORKSPACE, "kind", "event"],
)
BINDING_DURATION_SECONDS = Histogram(
    "playground_binding_duration_seconds",
    "Seconds from a scheduler service sending a pod to a binding task until the task has "
    "run Bind and PostBind for it, by result.",
    [WORKSPACE, "result"],
    buckets=DEFINITIONS["scheduler_scheduling_attempt_duration_seconds"].buckets,
)
WEBSOCKET_CLIENTS = Gauge(
    "playground_websocket_clients",
    "Browser websockets connected to the live streams, by stream.",
    ["stream"],
    multiprocess_mode="livesum",
)
