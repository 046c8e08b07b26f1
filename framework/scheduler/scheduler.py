"""The Scheduler: profiles, queue, cache and snapshot wired to a cluster (upstream scheduler.go).

``Scheduler.from_configuration`` builds one Framework per profile, the priority queue and the
cache, then ``start()`` lists the cluster and watches it, exactly as kube-scheduler's informers
feed its event handlers. ``schedule_one()`` runs one cycle; ``run_until_idle()`` drives a
simulation with a fake clock (backoff waits are skipped over, never slept).
"""

from __future__ import annotations

import logging
import random
from collections.abc import Callable
from typing import Any

from framework.backend.cache import cache_metrics
from framework.backend.cache.cache import Cache
from framework.backend.cache.snapshot import Snapshot
from framework.backend.queue.scheduling_queue import PriorityQueue
from framework.extender.build import build_extenders
from framework.features import DEFAULT_FEATURE_GATES, FeatureGates
from framework.interface.types import NominatingInfo, NominatingMode
from framework.metrics import DEFAULT_METRICS, Metrics
from framework.runtime.framework import Framework
from framework.runtime.registry import Registry
from framework.runtime.waiting_pods import WaitingPodsMap
from framework.scheduler.binding_executor import InlineExecutor
from framework.scheduler.cycle import Cycle
from framework.scheduler.event_handlers import ADDED, EventHandlers
from framework.scheduler.events import EventRecorder
from framework.scheduler.goroutines import Goroutines
from framework.scheduler.schedule_one import ScheduleOne, SchedulingAttempt
from framework.scheduler.schedule_one_podgroup import ScheduleOnePodGroup
from framework.trace import Observer
from framework.util.clock import Clock, FakeClock, RealClock

logger = logging.getLogger(__name__)

# Kinds listed at start-up before pods, so pods find their nodes and volumes in place.
_START_ORDER = ("Node", "PersistentVolume", "PersistentVolumeClaim", "StorageClass", "CSINode")


class Scheduler(ScheduleOne, ScheduleOnePodGroup, EventHandlers):
    """One kube-scheduler: its profiles share the queue, the cache and the waiting pods."""

    def __init__(
        self,
        profiles: dict[str, Framework],
        queue: PriorityQueue,
        cache: Cache,
        *,
        cluster: Any,
        clock: Clock,
        rng: random.Random,
        extenders: list[Any] | None = None,
        percentage_of_nodes_to_score: int = 0,
        on_attempt: Callable[[SchedulingAttempt], None] | None = None,
        binding_executor: Any = None,
        event_recorder: EventRecorder | None = None,
        features: FeatureGates = DEFAULT_FEATURE_GATES,
    ) -> None:
        self.profiles = profiles
        self.features = features
        self.queue = queue
        self.cache = cache
        self.snapshot = Snapshot()
        self.cluster = cluster
        self.clock = clock
        self.rng = rng
        self.extenders = list(extenders or [])
        self.percentage_of_nodes_to_score = percentage_of_nodes_to_score
        self.next_start_node_index = 0
        self.tie_breaker: Callable[[Any, list[str], str], str] | None = None
        """``(pod, tied nodes, heap's pick) -> node``: replays a recorded choice among ties.

        kube-scheduler's pick among equal totals depends on goroutine timing; replaying a real
        scheduler's run (the oracle tests, a recorded trace) needs its pick, not ours."""
        self.current_cycle: Cycle | None = None
        """The attempt whose plugins run now (see ``framework.scheduler.cycle``)."""
        self.on_attempt: Callable[[SchedulingAttempt], None] = on_attempt or (lambda a: None)
        self.binding_executor = binding_executor or InlineExecutor()
        self.event_recorder = event_recorder or EventRecorder(cluster, clock)
        for framework in profiles.values():
            framework.set_snapshot_shared_lister(self.snapshot)
        self.metrics = next(iter(profiles.values())).metrics if profiles else DEFAULT_METRICS
        """Where the scheduler's own metrics go: its profiles' (the queue counts there too)."""
        self.goroutines = Goroutines()
        self.goroutines.register(self.metrics)
        cache_metrics.register_gauges(self.metrics, cache)

    @classmethod
    def from_configuration(
        cls,
        cfg: Any,
        cluster: Any,
        registry: Registry,
        *,
        clock: Clock | None = None,
        seed: int | None = None,
        observer: Observer | None = None,
        extenders: list[Any] | None = None,
        on_attempt: Callable[[SchedulingAttempt], None] | None = None,
        on_queue_change: Callable[[str, Any], None] | None = None,
        features: FeatureGates = DEFAULT_FEATURE_GATES,
        metrics: Metrics | None = None,
    ) -> Scheduler:
        """A scheduler for a defaulted, validated KubeSchedulerConfiguration.

        Without ``extenders``, the configuration's own are built (upstream ``buildExtenders``),
        before the profiles: extenders may add to NodeResourcesFit's ignored resources.
        """
        if extenders is None:
            extenders = build_extenders(cfg)
        clock = clock or RealClock()
        rng = random.Random(seed)
        waiting_pods = WaitingPodsMap()
        recorder = EventRecorder(cluster, clock)
        cache = Cache(generic_workload_enabled=features.enabled("GenericWorkload"))
        # Its own by default: its queue and cache register gauge sources there, which a
        # process-wide Metrics would keep alive after the scheduler is gone (what-if, explain).
        metrics = metrics if metrics is not None else Metrics()
        profiles = {
            profile.scheduler_name: Framework(
                registry,
                profile,
                waiting_pods=waiting_pods,
                pod_group_manager=cache,
                extenders=extenders or (),
                parallelism=cfg.parallelism,
                clock=clock,
                rng=rng,
                observer=observer,
                cluster=cluster,
                event_recorder=recorder,
                features=features,
                metrics=metrics,
            )
            for profile in cfg.profiles
        }
        queue = PriorityQueue.from_frameworks(
            profiles.values(),
            cluster=cluster,
            clock=clock,
            pod_initial_backoff_seconds=cfg.pod_initial_backoff_seconds,
            pod_max_backoff_seconds=cfg.pod_max_backoff_seconds,
            on_change=on_queue_change,
            feature_gates=features,
        )
        scheduler = cls(
            profiles,
            queue,
            cache,
            cluster=cluster,
            clock=clock,
            rng=rng,
            extenders=extenders,
            percentage_of_nodes_to_score=cfg.percentage_of_nodes_to_score or 0,
            on_attempt=on_attempt,
            event_recorder=recorder,
            features=features,
        )
        return scheduler

    # ------------------------------------------------------------------------------------------
    # Running

    def start(self) -> None:
        """Lists the cluster into the cache and the queue, then follows its changes."""
        kinds = list(_START_ORDER) + [
            k for k in self.cluster.kinds() if k not in _START_ORDER and k != "Pod"
        ]
        for kind in [*kinds, "Pod"]:
            for obj in self.cluster.list(kind):
                self.handle_cluster_event(ADDED, None, obj)
        self.cluster.watch(self.handle_cluster_event)

    def run_until_idle(self, max_cycles: int = 100_000) -> int:
        """Schedules until no pod is ready or backing off; returns the number of cycles run.

        With a FakeClock, time jumps straight to the next backoff expiry instead of waiting.
        Pods left unschedulable stay in the unschedulable pool, as they would in a real cluster
        with nothing changing.
        """
        cycles = 0
        while cycles < max_cycles:
            self.queue.run_periodic()
            if self.schedule_one():
                cycles += 1
                continue
            if not self._advance_to_next_backoff():
                break
        return cycles

    def _advance_to_next_backoff(self) -> bool:
        if not isinstance(self.clock, FakeClock) or not self.queue.pods_in_backoff_q():
            return False
        deadline = self.queue.next_periodic_deadline()
        if deadline is None or deadline <= self.clock.now():
            deadline = self.clock.now() + 1.0
        self.clock.set_time(deadline)
        return True

    # ------------------------------------------------------------------------------------------
    # Writes to the cluster

    def update_pod_status(
        self, pod: Any, condition: dict[str, str] | None, nominating_info: NominatingInfo | None
    ) -> None:
        """Patches the PodScheduled condition and nominatedNodeName when they change."""
        nominated = None
        if (
            nominating_info is not None
            and nominating_info.nominating_mode == NominatingMode.OVERRIDE
            and pod.status.nominated_node_name != nominating_info.nominated_node_name
        ):
            nominated = nominating_info.nominated_node_name
        if condition is not None and not _condition_changes(pod, condition):
            condition = None
        if condition is None and nominated is None:
            return
        try:
            self.cluster.update_pod_status(pod.namespace, pod.name, condition, nominated)
        except Exception:  # upstream logs the failed patch and moves on
            logger.exception("patching the status of pod %s failed", pod.key)

    def record_event(
        self, regarding: Any, event_type: str, reason: str, action: str, note: str
    ) -> None:
        self.event_recorder.eventf(regarding, None, event_type, reason, action, note)


def _condition_changes(pod: Any, condition: dict[str, str]) -> bool:
    current = pod.status.condition(condition["type"])
    if current is None:
        return True
    return (current.status, current.reason, current.message) != (
        condition["status"],
        condition.get("reason", ""),
        condition.get("message", ""),
    )
