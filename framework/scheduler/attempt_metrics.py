"""What each scheduling attempt adds to kube-scheduler's metrics (upstream profile_metrics.go
and the observations in schedule_one.go).

Attempt durations are wall-clock seconds (``perf_counter``) since the pod was popped, as
upstream's ``time.Since(start)``; in a simulation they are the real time the engine took. The
SLI duration runs from the pod's first entry into the active queue, also on the wall clock.
"""

from __future__ import annotations

from time import perf_counter

from framework.interface.types import QueuedPodInfo
from framework.metrics import (
    ERROR,
    POD_SCHEDULED_AFTER_FLUSH_TOTAL,
    POD_SCHEDULING_ATTEMPTS,
    POD_SCHEDULING_SLI_DURATION_SECONDS,
    SCHEDULE_ATTEMPTS_TOTAL,
    SCHEDULED,
    SCHEDULING_ATTEMPT_DURATION_SECONDS,
    UNSCHEDULABLE,
    Metrics,
)

MAX_ATTEMPTS_LABEL = 15
"""Upstream caps the ``attempts`` label of the SLI histogram at ``15+``."""


def observe_attempt(metrics: Metrics, result: str, profile: str, started: float) -> None:
    """One attempt's result and its duration since ``started`` (a ``perf_counter`` reading)."""
    metrics.observe(
        SCHEDULING_ATTEMPT_DURATION_SECONDS,
        perf_counter() - started,
        result=result,
        profile=profile,
    )
    metrics.inc(SCHEDULE_ATTEMPTS_TOTAL, result=result, profile=profile)


def pod_scheduled(metrics: Metrics, profile: str, started: float, pod_info: QueuedPodInfo) -> None:
    """A pod bound: the attempt, how many attempts it took, its end-to-end latency, and
    whether only the unschedulable pool's timeout flush had let it try again."""
    observe_attempt(metrics, SCHEDULED, profile, started)
    metrics.observe(POD_SCHEDULING_ATTEMPTS, pod_info.attempts)
    if pod_info.initial_attempt_wall is not None:
        metrics.observe(
            POD_SCHEDULING_SLI_DURATION_SECONDS,
            perf_counter() - pod_info.initial_attempt_wall,
            attempts=attempts_label(pod_info.attempts),
        )
    if pod_info.was_flushed_from_unschedulable:
        metrics.inc(POD_SCHEDULED_AFTER_FLUSH_TOTAL)


def pod_failed(metrics: Metrics, profile: str, started: float, rejected: bool) -> None:
    """A failed attempt: ``unschedulable`` when plugins rejected the pod, else ``error``."""
    observe_attempt(metrics, UNSCHEDULABLE if rejected else ERROR, profile, started)


def attempts_label(attempts: int) -> str:
    return f"{MAX_ATTEMPTS_LABEL}+" if attempts >= MAX_ATTEMPTS_LABEL else str(attempts)
