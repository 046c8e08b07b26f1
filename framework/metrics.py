"""kube-scheduler's metrics (counters, gauges, histograms), kept in plain dictionaries.

The engine depends on PyYAML only, so this is no Prometheus client: a ``Metrics`` object counts
and observes by metric name and label values, and tests, the simulator, the benchmarks and the
playground's exporter read it back. Names, help texts, label names and histogram buckets are
upstream's (pkg/scheduler/metrics/metrics.go, v1.36); ``DEFINITIONS`` lists them. A Framework
counts into the ``Metrics`` it is given, or into ``DEFAULT_METRICS`` (upstream's metrics are
process-wide too).
"""

from __future__ import annotations

import bisect
from collections import Counter, defaultdict
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

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

# Schedule attempt results (upstream profile_metrics.go).
SCHEDULED = "scheduled"
UNSCHEDULABLE = "unschedulable"
ERROR = "error"

PLUGIN_METRICS_SAMPLE_PERCENT = 10
"""Percent of scheduling cycles whose plugin calls are timed (pluginMetricsSamplePercent)."""

Labels = tuple[tuple[str, str], ...]

COUNTER = "counter"
GAUGE = "gauge"
HISTOGRAM = "histogram"


def exponential_buckets(start: float, factor: float, count: int) -> tuple[float, ...]:
    """Upstream's ExponentialBuckets, multiplied step by step so the floats are Go's."""
    buckets = []
    for _ in range(count):
        buckets.append(start)
        start *= factor
    return tuple(buckets)


@dataclass(frozen=True, slots=True)
class MetricDefinition:
    """One metric as kube-scheduler registers it."""

    name: str
    kind: str
    help: str
    labels: tuple[str, ...] = ()
    buckets: tuple[float, ...] = ()
    stability: str = "ALPHA"


def _define(*definitions: MetricDefinition) -> dict[str, MetricDefinition]:
    return {d.name: d for d in definitions}


SCHEDULE_ATTEMPTS_TOTAL = f"{SCHEDULER_SUBSYSTEM}_schedule_attempts_total"
SCHEDULING_ATTEMPT_DURATION_SECONDS = f"{SCHEDULER_SUBSYSTEM}_scheduling_attempt_duration_seconds"
POD_SCHEDULING_SLI_DURATION_SECONDS = f"{SCHEDULER_SUBSYSTEM}_pod_scheduling_sli_duration_seconds"
POD_SCHEDULING_ATTEMPTS = f"{SCHEDULER_SUBSYSTEM}_pod_scheduling_attempts"
PENDING_PODS = f"{SCHEDULER_SUBSYSTEM}_pending_pods"
QUEUE_INCOMING_PODS_TOTAL = f"{SCHEDULER_SUBSYSTEM}_queue_incoming_pods_total"
FRAMEWORK_EXTENSION_POINT_DURATION_SECONDS = (
    f"{SCHEDULER_SUBSYSTEM}_framework_extension_point_duration_seconds"
)
PLUGIN_EXECUTION_DURATION_SECONDS = f"{SCHEDULER_SUBSYSTEM}_plugin_execution_duration_seconds"
UNSCHEDULABLE_PODS = f"{SCHEDULER_SUBSYSTEM}_unschedulable_pods"
PREEMPTION_VICTIMS = f"{SCHEDULER_SUBSYSTEM}_preemption_victims"
PERMIT_WAIT_DURATION_SECONDS = f"{SCHEDULER_SUBSYSTEM}_permit_wait_duration_seconds"
SCHEDULING_ALGORITHM_DURATION_SECONDS = (
    f"{SCHEDULER_SUBSYSTEM}_scheduling_algorithm_duration_seconds"
)
POD_SCHEDULED_AFTER_FLUSH_TOTAL = f"{SCHEDULER_SUBSYSTEM}_pod_scheduled_after_flush_total"
PLUGIN_EVALUATION_TOTAL = f"{SCHEDULER_SUBSYSTEM}_plugin_evaluation_total"
CACHE_SIZE = f"{SCHEDULER_SUBSYSTEM}_cache_size"
INFLIGHT_EVENTS = f"{SCHEDULER_SUBSYSTEM}_inflight_events"
GOROUTINES = f"{SCHEDULER_SUBSYSTEM}_goroutines"
EVENT_HANDLING_DURATION_SECONDS = f"{SCHEDULER_SUBSYSTEM}_event_handling_duration_seconds"
GET_NODE_HINT_DURATION_SECONDS = f"{SCHEDULER_SUBSYSTEM}_get_node_hint_duration_seconds"
STORE_SCHEDULE_RESULTS_DURATION_SECONDS = (
    f"{SCHEDULER_SUBSYSTEM}_store_schedule_results_duration_seconds"
)
PREEMPTION_GOROUTINES_DURATION_SECONDS = (
    f"{SCHEDULER_SUBSYSTEM}_preemption_goroutines_duration_seconds"
)
PREEMPTION_GOROUTINES_EXECUTION_TOTAL = (
    f"{SCHEDULER_SUBSYSTEM}_preemption_goroutines_execution_total"
)
DRA_BINDINGCONDITIONS_ALLOCATIONS_TOTAL = (
    f"{SCHEDULER_SUBSYSTEM}_dra_bindingconditions_allocations_total"
)
DRA_BINDINGCONDITIONS_WAIT_DURATION_SECONDS = (
    f"{SCHEDULER_SUBSYSTEM}_dra_bindingconditions_wait_duration_seconds"
)

# The ``operation`` label values of scheduler_goroutines.
BINDING = "binding"
PRIORITIZING_EXTENDER = "prioritizing_extender"

POD_POPPED_IN_FLIGHT_EVENT = "PodPopped"
"""The ``event`` label of scheduler_inflight_events for the pods themselves."""

# The ``result`` label values of the preemption goroutine metrics.
GOROUTINE_RESULT_SUCCESS = "success"
GOROUTINE_RESULT_ERROR = "error"

# The ``status`` label values of the DRA binding-condition metrics.
BINDING_CONDITIONS_STATUS_SUCCESS = "success"
BINDING_CONDITIONS_STATUS_FAILED = "failure"
BINDING_CONDITIONS_STATUS_TIMEOUT = "timeout"
BINDING_CONDITIONS_STATUS_ERROR = "error"

_ATTEMPT_BUCKETS = exponential_buckets(0.001, 2, 15)
_POINT_BUCKETS = exponential_buckets(0.0001, 2, 12)
_PLUGIN_BUCKETS = exponential_buckets(0.00001, 1.5, 20)
_BATCH_BUCKETS = exponential_buckets(0.00001, 2, 12)

DEFINITIONS: dict[str, MetricDefinition] = _define(
    MetricDefinition(
        SCHEDULE_ATTEMPTS_TOTAL,
        COUNTER,
        "Number of attempts to schedule pods, by the result. 'unschedulable' means a pod could "
        "not be scheduled, while 'error' means an internal scheduler problem.",
        ("result", "profile"),
        stability="STABLE",
    ),
    MetricDefinition(
        SCHEDULING_ATTEMPT_DURATION_SECONDS,
        HISTOGRAM,
        "Scheduling attempt latency in seconds (scheduling algorithm + binding)",
        ("result", "profile"),
        _ATTEMPT_BUCKETS,
        "STABLE",
    ),
    MetricDefinition(
        PREEMPTION_VICTIMS,
        HISTOGRAM,
        "Number of selected preemption victims",
        (),
        exponential_buckets(1, 2, 7),
        "STABLE",
    ),
    MetricDefinition(
        PREEMPTION_ATTEMPTS_TOTAL,
        COUNTER,
        "Total preemption attempts in the cluster till now",
        stability="STABLE",
    ),
    MetricDefinition(
        PENDING_PODS,
        GAUGE,
        "Number of pending pods, by the queue type. 'active' means number of pods in activeQ; "
        "'backoff' means number of pods in backoffQ; 'unschedulable' means number of pods in "
        "unschedulablePods that the scheduler attempted to schedule and failed; 'gated' is the "
        "number of unschedulable pods that the scheduler never attempted to schedule because "
        "they are gated.",
        ("queue",),
        stability="STABLE",
    ),
    MetricDefinition(
        POD_SCHEDULING_SLI_DURATION_SECONDS,
        HISTOGRAM,
        "E2e latency for a pod being scheduled, from the time the pod enters the scheduling "
        "queue and might involve multiple scheduling attempts.",
        ("attempts",),
        exponential_buckets(0.01, 2, 20),
        "BETA",
    ),
    MetricDefinition(
        POD_SCHEDULING_ATTEMPTS,
        HISTOGRAM,
        "Number of attempts to successfully schedule a pod.",
        (),
        exponential_buckets(1, 2, 5),
        "STABLE",
    ),
    MetricDefinition(
        FRAMEWORK_EXTENSION_POINT_DURATION_SECONDS,
        HISTOGRAM,
        "Latency for running all plugins of a specific extension point.",
        ("extension_point", "status", "profile"),
        _POINT_BUCKETS,
        "STABLE",
    ),
    MetricDefinition(
        PLUGIN_EXECUTION_DURATION_SECONDS,
        HISTOGRAM,
        "Duration for running a plugin at a specific extension point.",
        ("plugin", "extension_point", "status"),
        _PLUGIN_BUCKETS,
    ),
    MetricDefinition(
        QUEUE_INCOMING_PODS_TOTAL,
        COUNTER,
        "Number of pods added to scheduling queues by event and queue type.",
        ("queue", "event"),
        stability="STABLE",
    ),
    MetricDefinition(
        PERMIT_WAIT_DURATION_SECONDS,
        HISTOGRAM,
        "Duration of waiting on permit.",
        ("result",),
        _ATTEMPT_BUCKETS,
        "BETA",
    ),
    MetricDefinition(
        UNSCHEDULABLE_PODS,
        GAUGE,
        "The number of unschedulable pods broken down by plugin name. A pod will increment the "
        "gauge for all plugins that caused it to not schedule and so this metric have meaning "
        "only when broken down by plugin.",
        ("plugin", "profile"),
        stability="BETA",
    ),
    MetricDefinition(
        BATCH_ATTEMPTS_TOTAL,
        COUNTER,
        "Counts of results when we attempt to use batching.",
        ("profile", "result"),
    ),
    MetricDefinition(
        BATCH_CACHE_FLUSHED_TOTAL,
        COUNTER,
        "Counts of cache flushes by reason.",
        ("profile", "reason"),
    ),
    MetricDefinition(
        RESOURCECLAIM_CREATES_TOTAL,
        COUNTER,
        "Number of ResourceClaims creation requests within scheduler",
        ("status",),
    ),
    MetricDefinition(
        PODGROUP_SCHEDULE_ATTEMPTS_TOTAL,
        COUNTER,
        "Number of attempts to schedule pod group, by the result. 'unschedulable' means a pod "
        "group could not be scheduled, while 'error' means an internal scheduler problem.",
        ("result", "profile"),
    ),
    MetricDefinition(
        SCHEDULING_ALGORITHM_DURATION_SECONDS,
        HISTOGRAM,
        "Scheduling algorithm latency in seconds",
        (),
        _ATTEMPT_BUCKETS,
    ),
    MetricDefinition(
        POD_SCHEDULED_AFTER_FLUSH_TOTAL,
        COUNTER,
        "Number of pods that were successfully scheduled after being flushed from "
        "unschedulablePods due to timeout. This metric helps detect potential queueing hint "
        "misconfigurations or event handling issues.",
    ),
    MetricDefinition(
        PLUGIN_EVALUATION_TOTAL,
        COUNTER,
        "Number of attempts to schedule pods by each plugin and the extension point (available "
        "only in PreFilter, Filter, PreScore, and Score).",
        ("plugin", "extension_point", "profile"),
        stability="BETA",
    ),
    MetricDefinition(
        CACHE_SIZE,
        GAUGE,
        "Number of nodes, pods, and assumed (bound) pods in the scheduler cache.",
        ("type",),
    ),
    MetricDefinition(
        INFLIGHT_EVENTS,
        GAUGE,
        "Number of events currently tracked in the scheduling queue.",
        ("event",),
    ),
    MetricDefinition(
        GOROUTINES,
        GAUGE,
        "Number of running goroutines split by the work they do such as binding.",
        ("operation",),
        stability="BETA",
    ),
    MetricDefinition(
        EVENT_HANDLING_DURATION_SECONDS,
        HISTOGRAM,
        "Event handling latency in seconds.",
        ("event",),
        _POINT_BUCKETS,
    ),
    MetricDefinition(
        GET_NODE_HINT_DURATION_SECONDS,
        HISTOGRAM,
        "Latency for getting a node hint.",
        ("hinted", "profile"),
        _BATCH_BUCKETS,
    ),
    MetricDefinition(
        STORE_SCHEDULE_RESULTS_DURATION_SECONDS,
        HISTOGRAM,
        # Upstream's help text, cut short as it is in v1.36.
        "Latency for getting a no.",
        ("profile",),
        _BATCH_BUCKETS,
    ),
    MetricDefinition(
        PREEMPTION_GOROUTINES_DURATION_SECONDS,
        HISTOGRAM,
        "Duration in seconds for running goroutines for the preemption.",
        ("result",),
        exponential_buckets(0.01, 2, 20),
    ),
    MetricDefinition(
        PREEMPTION_GOROUTINES_EXECUTION_TOTAL,
        COUNTER,
        "Number of preemption goroutines executed.",
        ("result",),
    ),
    MetricDefinition(
        DRA_BINDINGCONDITIONS_ALLOCATIONS_TOTAL,
        COUNTER,
        "Number of allocations using devices with BindingConditions, counted per driver per "
        "scheduling attempt",
        ("profile", "driver", "status"),
    ),
    MetricDefinition(
        DRA_BINDINGCONDITIONS_WAIT_DURATION_SECONDS,
        HISTOGRAM,
        "Time in seconds spent waiting for BindingConditions to be satisfied during PreBind.",
        ("profile", "driver", "status"),
        exponential_buckets(0.1, 2, 14),
    ),
)
"""Every metric the engine keeps, as kube-scheduler v1.36 defines it."""


class Histogram:
    """Observations of one label set: a count per bucket (not cumulative), their sum and count."""

    __slots__ = ("bounds", "count", "counts", "sum")

    def __init__(self, bounds: tuple[float, ...]) -> None:
        self.bounds = bounds
        self.counts = [0] * (len(bounds) + 1)
        self.count = 0
        self.sum = 0.0

    def observe(self, value: float, times: int = 1) -> None:
        # Prometheus buckets are upper-inclusive: value <= le.
        self.counts[bisect.bisect_left(self.bounds, value)] += times
        self.count += times
        self.sum += value * times

    def cumulative(self) -> list[tuple[float, int]]:
        """(upper bound, observations <= it), ending with +Inf, as Prometheus exposes them."""
        total, out = 0, []
        for bound, count in zip((*self.bounds, float("inf")), self.counts, strict=True):
            total += count
            out.append((bound, total))
        return out


GaugeSource = Callable[[], dict[Labels, float]]
"""Reads a gauge's current values (label set -> value) when someone asks for them."""


class Metrics:
    """Values by metric name, then by label set (label name, value pairs, sorted).

    Counters and gauges are numbers; histograms are ``Histogram`` objects. A gauge that mirrors
    state kept elsewhere (the queue's sizes) is a source read on demand, so keeping it costs
    nothing while the scheduler runs. A counter bumped once per plugin per node (plugin
    evaluations) is a tally the hot path adds to directly and that joins the counter when
    anyone reads.
    """

    def __init__(self) -> None:
        self._counters: dict[str, dict[Labels, float]] = defaultdict(lambda: defaultdict(float))
        self._histograms: dict[str, dict[Labels, Histogram]] = defaultdict(dict)
        self._sources: dict[str, GaugeSource] = {}
        self._tallies: dict[str, Counter[Labels]] = {}

    def inc(self, name: str, amount: float = 1.0, **labels: str) -> None:
        """Adds to a counter (or a gauge: ``amount`` may be negative)."""
        self._counters[name][_labels(labels)] += amount

    def set(self, name: str, value: float, **labels: str) -> None:
        """Sets a gauge."""
        self._counters[name][_labels(labels)] = value

    def observe(self, name: str, value: float, times: int = 1, **labels: str) -> None:
        """Adds ``times`` observations of ``value`` to a histogram of ``DEFINITIONS``."""
        key = _labels(labels)
        series = self._histograms[name]
        histogram = series.get(key)
        if histogram is None:
            histogram = series[key] = Histogram(DEFINITIONS[name].buckets)
        histogram.observe(value, times)

    def gauge_source(self, name: str, source: GaugeSource) -> None:
        """Reads gauge ``name`` from ``source`` from now on (the latest source wins)."""
        self._sources[name] = source

    def tally(self, name: str) -> Counter[Labels]:
        """Counter ``name``'s running tally (label set -> amount not yet counted): adding to it
        costs one dictionary update, where ``inc`` would sort labels and, in an exporter, also
        update Prometheus. ``flush`` counts it."""
        return self._tallies.setdefault(name, Counter())

    def flush(self) -> None:
        """Counts every tally through ``inc`` (so a subclass that exports sees it too)."""
        for name, tally in self._tallies.items():
            while tally:
                key, amount = tally.popitem()
                self.inc(name, amount, **dict(key))

    def sourced_gauges(self) -> list[str]:
        """The gauges read from a source (an exporter copies them out from time to time)."""
        return list(self._sources)

    def histogram(self, name: str, **labels: str) -> Histogram | None:
        """The histogram with exactly these labels, None if nothing was observed."""
        return self._histograms.get(name, {}).get(_labels(labels))

    def histograms(self, name: str) -> dict[Labels, Histogram]:
        """Every label set of a histogram with its observations."""
        return dict(self._histograms.get(name, {}))

    def value(self, name: str, **labels: str) -> float:
        """The counter or gauge with exactly these labels (0 if never counted)."""
        return self.series(name).get(_labels(labels), 0.0)

    def total(self, name: str, **labels: str) -> float:
        """The sum over every label set that includes the given labels."""
        wanted = set(_labels(labels))
        return sum(value for key, value in self.series(name).items() if wanted <= set(key))

    def series(self, name: str) -> dict[Labels, float]:
        """Every label set of a counter or gauge with its value."""
        source = self._sources.get(name)
        if source is not None:
            return source()
        if name in self._tallies:
            self.flush()
        return dict(self._counters.get(name, {}))

    def names(self) -> list[str]:
        """Every metric with a value, sorted."""
        self.flush()
        return sorted({*self._counters, *self._histograms, *self._sources})

    def to_dict(self) -> dict[str, Any]:
        """Every metric with values, in the JSON shape of docs/simulate.md: per name its type
        and its series (labels, then a value, or a histogram's cumulative buckets, sum and
        count)."""
        out: dict[str, Any] = {}
        for name in self.names():
            definition = DEFINITIONS.get(name)
            if name in self._histograms:
                out[name] = {"type": HISTOGRAM, "series": _histogram_series(self.histograms(name))}
                continue
            kind = definition.kind if definition is not None else COUNTER
            series = [
                {"labels": dict(key), "value": value}
                for key, value in sorted(self.series(name).items())
            ]
            out[name] = {"type": kind, "series": series}
        return out


def _histogram_series(series: dict[Labels, Histogram]) -> list[dict[str, Any]]:
    return [
        {
            "labels": dict(key),
            "buckets": {_le(bound): count for bound, count in h.cumulative()},
            "sum": h.sum,
            "count": h.count,
        }
        for key, h in sorted(series.items())
    ]


def _le(bound: float) -> str:
    """A bucket bound as Prometheus writes it (``+Inf``, ``0.001``, ``1``)."""
    if bound == float("inf"):
        return "+Inf"
    return repr(int(bound)) if bound == int(bound) else repr(bound)


def _labels(labels: dict[str, str]) -> Labels:
    return tuple(sorted(labels.items()))


DEFAULT_METRICS = Metrics()
"""Where frameworks built without their own ``Metrics`` count."""
