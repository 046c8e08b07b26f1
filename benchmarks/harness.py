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

A workload's feature gates configure the run as ``simulate --feature-gates`` does (defaults,
plugins, scheduler). Gang workloads create their PodGroups before the pods (untimed); a group
counts as scheduled when its last member is bound, and groups/s is taken over the 10-90 % window
of groups. A workload that asks for a gate the engine does not simulate yet is refused in the
engine's words (``NotSimulated``) rather than run without it.
"""

from __future__ import annotations

import resource
import sys
from dataclasses import asdict, dataclass
from time import perf_counter
from typing import Any

from benchmarks.workloads import Workload
from framework.api.pod import Pod
from framework.cluster.memory import InMemoryCluster
from framework.cluster.resource_claim_controller import ResourceClaimController
from framework.config.defaults import default_configuration
from framework.features import DEFAULT_FEATURE_GATES, FeatureGates
from framework.metrics import BATCH_ATTEMPTS_TOTAL, Metrics
from framework.plugins.registry import in_tree_registry
from framework.scheduler.schedule_one import SchedulingAttempt
from framework.scheduler.scheduler import Scheduler
from framework.simulator import Simulation, SimulationError
from framework.trace import TraceEvent
from framework.util.clock import FakeClock
from framework.util.percentile import percentile

EPOCH = 1_767_225_600.0
"""2026-01-01T00:00:00Z, as the simulator starts."""
EMPTY_CONFIGURATION = (
    "apiVersion: kubescheduler.config.k8s.io/v1\nkind: KubeSchedulerConfiguration\n"
)


class NotSimulated(Exception):
    """The workload asks for feature gates the engine does not simulate yet."""


def not_simulated(workload: Workload) -> str | None:
    """Why the engine refuses the workload's gates (its own message), or None.

    An empty simulation with the gates is the engine's front door: whatever it refuses (gates
    it lacks, default plugins it cannot build), a run of the workload would lack too."""
    try:
        Simulation(EMPTY_CONFIGURATION, "", features=feature_gates(workload))
    except SimulationError as err:
        return str(err)
    return None


def feature_gates(workload: Workload) -> FeatureGates:
    return (
        FeatureGates.from_string(workload.features) if workload.features else DEFAULT_FEATURE_GATES
    )


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
    groups: int = 0
    """PodGroups of the measured pods (0 for a workload without groups)."""
    scheduled_groups: int = 0
    """Groups whose every member was bound."""
    groups_per_second: float = 0.0
    """Groups completed per second, between the 10th and the 90th percent of them."""

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
    """Builds the cluster, schedules the measured pods and returns the figures; NotSimulated
    when the engine refuses the workload's feature gates."""
    refusal = not_simulated(workload)
    if refusal is not None:
        raise NotSimulated(refusal)
    features = feature_gates(workload)
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
    groups = _GroupCompletions()
    attempts = 0

    def on_attempt(attempt: SchedulingAttempt) -> None:
        nonlocal attempts
        attempts += 1
        if recorder is not None:
            recorder.take()
        if attempt.result == "Scheduled":
            scheduled_at.append(perf_counter())
            groups.bound(attempt.pod, scheduled_at[-1])

    metrics = Metrics()
    scheduler = _TimedScheduler.from_configuration(
        default_configuration(features),
        cluster,
        in_tree_registry(features),
        clock=FakeClock(EPOCH),
        seed=seed,
        observer=recorder,
        on_attempt=on_attempt,
        metrics=metrics,
        features=features,
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
    pod_groups = workload.build_pod_groups(pods)
    for group in pod_groups:
        cluster.add(group)
    for pod in workload.build_measured_pods(pods):
        groups.join(pod)
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
        groups=len(pod_groups),
        scheduled_groups=len(groups.completed_at),
        groups_per_second=throughput(groups.completed_at, start),
    )


class _GroupCompletions:
    """When each group's last member was bound."""

    def __init__(self) -> None:
        self.group_of: dict[str, str] = {}
        self.unbound: dict[str, int] = {}
        self.completed_at: list[float] = []

    def join(self, pod: Pod) -> None:
        group = pod.spec.pod_group_name
        if group:
            self.group_of[pod.key] = group
            self.unbound[group] = self.unbound.get(group, 0) + 1

    def bound(self, pod: str, at: float) -> None:
        group = self.group_of.get(pod)
        if group is not None:
            self.unbound[group] -= 1
            if self.unbound[group] == 0:
                self.completed_at.append(at)


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


def peak_rss_mib() -> float:
    """This process's peak resident set size (Linux reports KiB, macOS bytes)."""
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    return peak / (1024 * 1024) if sys.platform == "darwin" else peak / 1024
