"""Runs one workload through the real Scheduler and measures it.

The cluster is in memory and the clock is fake, so nothing waits: what is measured is the
scheduler's own work. The existing pods are bound before the scheduler starts; the measured pods
are created (untimed) and then scheduled until the queue is idle. Throughput is taken over the
10-90 % window of measured pods, as scheduler_perf does, so warm-up and the tail do not count;
the overall rate (scheduled pods over the whole run) is given too, because pods that preempt
fail once each before any of them binds, which leaves the window only their second attempts.

A workload whose initial pods need the scheduler (DRA: their claims must be allocated) has them
scheduled before the measured pods are created, untimed and uncounted, with the emulated
ResourceClaim controller making every pod's claim from its template as ``simulate`` does.
"""

from __future__ import annotations

import resource
import sys
from dataclasses import asdict, dataclass
from time import perf_counter
from typing import Any

from benchmarks.workloads import Workload
from framework.cluster.memory import InMemoryCluster
from framework.cluster.resource_claim_controller import ResourceClaimController
from framework.config.defaults import default_configuration
from framework.metrics import BATCH_ATTEMPTS_TOTAL, Metrics
from framework.plugins.registry import in_tree_registry
from framework.scheduler.schedule_one import SchedulingAttempt
from framework.scheduler.scheduler import Scheduler
from framework.trace import TraceEvent
from framework.util.clock import FakeClock

EPOCH = 1_767_225_600.0
"""2026-01-01T00:00:00Z, as the simulator starts."""


@dataclass(slots=True)
class Result:
    """One run's figures (seconds, pods per second, MiB)."""

    workload: str
    tracing: bool
    nodes: int
    init_pods: int
    measured_pods: int
    scheduled: int
    attempts: int
    pods_per_second: float
    overall_pods_per_second: float
    p50_seconds: float
    p99_seconds: float
    peak_rss_mib: float
    trace_events: int
    total_seconds: float
    batch_hints_used: int = 0
    """Pods OpportunisticBatching placed on their hint, without a full cycle."""

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


class AttemptTraceRecorder:
    """Full tracing: records every event, and hands each attempt's events over when it ends.

    A streaming consumer (the websocket, a trace store) takes an attempt's events and lets them
    go; keeping millions of events in memory would measure the memory of this recorder, not
    the scheduler.
    """

    def __init__(self) -> None:
        self.current: list[TraceEvent] = []
        self.total = 0

    def on_event(self, event: TraceEvent) -> None:
        self.current.append(event)

    def take(self) -> list[TraceEvent]:
        events, self.current = self.current, []
        self.total += len(events)
        return events


class _TimedScheduler(Scheduler):
    """The Scheduler, with the wall time of every scheduling cycle (binding runs inline)."""

    cycle_seconds: list[float]

    def schedule_one(self) -> bool:
        start = perf_counter()
        ran = super().schedule_one()
        if ran:
            self.cycle_seconds.append(perf_counter() - start)
        return ran


def run_workload(
    workload: Workload,
    *,
    nodes: int | None = None,
    init_pods: int | None = None,
    pods: int | None = None,
    tracing: bool = False,
    seed: int = 0,
) -> Result:
    """Builds the cluster, schedules the measured pods and returns the figures."""
    nodes = workload.nodes if nodes is None else nodes
    init_pods = workload.init_pods_for(nodes) if init_pods is None else init_pods
    pods = workload.measured_pods if pods is None else pods
    node_objects = workload.build_nodes(nodes, seed)
    init_pod_objects = workload.build_init_pods(init_pods, node_objects)
    cluster = InMemoryCluster([*node_objects, *workload.objects(node_objects)])
    if not workload.schedule_init_pods:
        for pod in init_pod_objects:
            cluster.add(pod)
    recorder = AttemptTraceRecorder() if tracing else None
    scheduled_at: list[float] = []
    attempts = 0

    def on_attempt(attempt: SchedulingAttempt) -> None:
        nonlocal attempts
        attempts += 1
        if recorder is not None:
            recorder.take()
        if attempt.result == "Scheduled":
            scheduled_at.append(perf_counter())

    metrics = Metrics()
    scheduler = _TimedScheduler.from_configuration(
        default_configuration(),
        cluster,
        in_tree_registry(),
        clock=FakeClock(EPOCH),
        seed=seed,
        observer=recorder,
        on_attempt=on_attempt,
        metrics=metrics,
    )
    scheduler.cycle_seconds = []
    scheduler.start()
    if workload.schedule_init_pods:
        # Only the DRA workload does this; the others run without the controller's watch.
        ResourceClaimController(cluster).start()
        for pod in init_pod_objects:
            cluster.add(pod)
        scheduler.run_until_idle(max_cycles=10 * init_pods + 100)
        # Only the measured pods count from here on.
        scheduled_at.clear()
        attempts = 0
        scheduler.cycle_seconds.clear()
        if recorder is not None:
            recorder.total = 0
    hints_before = metrics.total(BATCH_ATTEMPTS_TOTAL, result="hint_used")
    for pod in workload.build_measured_pods(pods):
        cluster.add(pod)
    start = perf_counter()
    scheduler.run_until_idle(max_cycles=10 * pods + 100)
    total = perf_counter() - start
    hints_used = metrics.total(BATCH_ATTEMPTS_TOTAL, result="hint_used") - hints_before
    return Result(
        workload=workload.name,
        tracing=tracing,
        nodes=nodes,
        init_pods=init_pods,
        measured_pods=pods,
        scheduled=len(scheduled_at),
        attempts=attempts,
        pods_per_second=throughput(scheduled_at, start),
        overall_pods_per_second=len(scheduled_at) / total if total > 0 else 0.0,
        p50_seconds=percentile(scheduler.cycle_seconds, 50),
        p99_seconds=percentile(scheduler.cycle_seconds, 99),
        peak_rss_mib=peak_rss_mib(),
        trace_events=recorder.total if recorder is not None else 0,
        total_seconds=total,
        batch_hints_used=int(hints_used),
    )


def throughput(scheduled_at: list[float], start: float) -> float:
    """Pods per second between the 10th and the 90th percent of scheduled pods."""
    count = len(scheduled_at)
    if count == 0:
        return 0.0
    low, high = count // 10, (count * 9) // 10
    if high - low < 1:
        elapsed = scheduled_at[-1] - start
        return count / elapsed if elapsed > 0 else 0.0
    elapsed = scheduled_at[high] - scheduled_at[low]
    return (high - low) / elapsed if elapsed > 0 else 0.0


def percentile(values: list[float], pct: float) -> float:
    """The nearest-rank percentile (0.0 for no values)."""
    if not values:
        return 0.0
    ordered = sorted(values)
    rank = max(1, -(-len(ordered) * pct // 100))
    return ordered[int(rank) - 1]


def peak_rss_mib() -> float:
    """This process's peak resident set size (Linux reports KiB, macOS bytes)."""
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    return peak / (1024 * 1024) if sys.platform == "darwin" else peak / 1024
