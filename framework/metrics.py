"""Counters with kube-scheduler's metric names and labels, kept in plain dictionaries.

The engine depends on PyYAML only, so this is no Prometheus client: a ``Metrics`` object counts
by metric name and label values, and tests, the simulator and the benchmarks read it back. A
Framework counts into the ``Metrics`` it is given, or into ``DEFAULT_METRICS`` (upstream's
metrics are process-wide too).
"""

from __future__ import annotations

from collections import defaultdict

SCHEDULER_SUBSYSTEM = "scheduler"

BATCH_ATTEMPTS_TOTAL = f"{SCHEDULER_SUBSYSTEM}_batch_attempts_total"
"""Labels ``profile``, ``result``: what became of each attempt to use the batch cache."""
BATCH_CACHE_FLUSHED_TOTAL = f"{SCHEDULER_SUBSYSTEM}_batch_cache_flushed_total"
"""Labels ``profile``, ``reason``: why the batch cache was thrown away."""

RESOURCECLAIM_CREATES_TOTAL = f"{SCHEDULER_SUBSYSTEM}_resourceclaim_creates_total"
"""Label ``status`` (``success``, ``failure``): the claims DynamicResources creates for DRA
extended resources (DRAExtendedResource)."""

PREEMPTION_ATTEMPTS_TOTAL = f"{SCHEDULER_SUBSYSTEM}_preemption_attempts_total"
"""No labels: every run of DefaultPreemption's PostFilter, a pod group member's refusal too."""
PODGROUP_SCHEDULE_ATTEMPTS_TOTAL = f"{SCHEDULER_SUBSYSTEM}_podgroup_schedule_attempts_total"
"""Labels ``profile``, ``result``: what became of each pod group's cycle (GenericWorkload)."""

# Pod group attempt results (upstream profile_metrics.go).
POD_GROUP_SCHEDULED = "scheduled"
POD_GROUP_UNSCHEDULABLE = "unschedulable"
POD_GROUP_WAITING_ON_PREEMPTION = "waiting_on_preemption"
POD_GROUP_ERROR = "error"

# Batch attempt results.
BATCH_ATTEMPT_NO_HINT = "no_hint"
BATCH_ATTEMPT_HINT_USED = "hint_used"
BATCH_ATTEMPT_HINT_NOT_USED = "hint_not_used"

# Batch cache flush reasons.
BATCH_FLUSH_POD_FAILED = "pod_failed"
BATCH_FLUSH_POD_SKIPPED = "pod_skipped"
BATCH_FLUSH_NODE_MISSING = "node_missing"
BATCH_FLUSH_NODE_NOT_FULL = "node_not_full"
BATCH_FLUSH_EMPTY_LIST = "empty_list"
BATCH_FLUSH_EXPIRED = "expired"
BATCH_FLUSH_POD_INCOMPATIBLE = "pod_incompatible"
BATCH_FLUSH_POD_NOT_BATCHABLE = "pod_not_batchable"

Labels = tuple[tuple[str, str], ...]


class Metrics:
    """Counter values by metric name, then by label set (label name, value pairs, sorted)."""

    def __init__(self) -> None:
        self._counters: dict[str, dict[Labels, float]] = defaultdict(lambda: defaultdict(float))

    def inc(self, name: str, amount: float = 1.0, **labels: str) -> None:
        self._counters[name][_labels(labels)] += amount

    def value(self, name: str, **labels: str) -> float:
        """The counter with exactly these labels (0 if never counted)."""
        series = self._counters.get(name)
        return series.get(_labels(labels), 0.0) if series is not None else 0.0

    def total(self, name: str, **labels: str) -> float:
        """The sum over every label set that includes the given labels."""
        wanted = set(_labels(labels))
        series = self._counters.get(name, {})
        return sum(value for key, value in series.items() if wanted <= set(key))

    def series(self, name: str) -> dict[Labels, float]:
        """Every label set of the metric with its value."""
        return dict(self._counters.get(name, {}))


def _labels(labels: dict[str, str]) -> Labels:
    return tuple(sorted(labels.items()))


DEFAULT_METRICS = Metrics()
"""Where frameworks built without their own ``Metrics`` count."""
