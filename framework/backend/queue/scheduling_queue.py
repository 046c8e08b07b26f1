"""kube-scheduler's PriorityQueue: where pending pods wait, and the rules that move them.

Three places hold a pending pod that is not being tried right now:

- the active queue: ready, ordered by the profile's QueueSort;
- the backoff queue: rejected recently, waiting out an exponential backoff;
- the unschedulable pool: rejected, waiting for a cluster event that may help (or gated by a
  PreEnqueue plugin, waiting for an event that may lift the gate).

Cluster events move pods out of the pool when the queueing hint of a plugin that rejected
them says Queue. Events that arrive while a pod is being tried are replayed against it if
the attempt fails. Nothing here sleeps or starts threads: time comes from the injected
clock, and the owner calls :meth:`PriorityQueue.run_periodic` to run the periodic flushes.

Every move can be watched with ``on_change(event, pod_info)``; ``event`` is
``"<transition>"`` or ``"<transition>:<cause>"``, where the transition is one of
``Active``, ``Backoff``, ``Unschedulable``, ``Gated`` (the pod entered that place),
``InFlight`` (popped), ``Done``, ``Updated`` (replaced in place) or ``Deleted``, and the
cause is the label of the event that triggered the move (``NodeAdd``, ``BackoffComplete``,
``ScheduleAttemptFailure``...). The callback runs synchronously, under the queue's lock.
"""

from __future__ import annotations

import functools
import logging
import threading
from collections import Counter
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from time import perf_counter
from typing import Any, ParamSpec, TypeVar

from framework.api.pod import Pod
from framework.backend.queue import queue_metrics
from framework.backend.queue.active_queue import ActiveQueue, InFlightEvent
from framework.backend.queue.backoff_queue import BACKOFF_Q_ORDERING_WINDOW, BackoffQueue
from framework.backend.queue.nominator import Nominator, PodRef
from framework.backend.queue.queueing_hints import (
    QueueingHintMapPerProfile,
    QueueingHints,
    QueueingStrategy,
    build_queueing_hint_map_per_profile,
)
from framework.backend.queue.unschedulable_pods import UnschedulablePods
from framework.features import DEFAULT_FEATURE_GATES, FeatureGates
from framework.interface.cluster_events import (
    BACKOFF_COMPLETE,
    EVENT_ASSIGNED_POD_ADD,
    EVENT_FORCE_ACTIVATE,
    EVENT_UNSCHEDULABLE_TIMEOUT,
    EVENT_UNSCHEDULED_POD_ADD,
    EVENT_UNSCHEDULED_POD_UPDATE,
    FORCE_ACTIVATE,
    POP_FROM_BACKOFF_Q,
    SCHEDULE_ATTEMPT_FAILURE,
    match_any_cluster_event,
    pod_scheduling_properties_change,
)
from framework.interface.events import ActionType, ClusterEvent, EventResource
from framework.interface.node_info import PodInfo
from framework.interface.status import Status
from framework.interface.types import NominatingInfo, QueuedPodInfo
from framework.metrics import DEFAULT_METRICS, Metrics
from framework.plugins import names
from framework.util.clock import Clock, RealClock

logger = logging.getLogger(__name__)

# Durations are in seconds.
DEFAULT_POD_INITIAL_BACKOFF = 1.0
DEFAULT_POD_MAX_BACKOFF = 10.0
DEFAULT_POD_MAX_IN_UNSCHEDULABLE_PODS = 5 * 60.0
BACKOFF_Q_FLUSH_PERIOD = BACKOFF_Q_ORDERING_WINDOW
UNSCHEDULABLE_PODS_FLUSH_PERIOD = 30.0

# Where a pod went, as reported to on_change (the first three are upstream's queue names).

ACTIVE_Q = "Active"
BACKOFF_Q = "Backoff"
UNSCHEDULABLE_Q = "Unschedulable"
GATED = "Gated"
IN_FLIGHT = "InFlight"
DONE = "Done"
UPDATED = "Updated"
DELETED = "Deleted"

PENDING_PODS_SUMMARY = "activeQ:{}; backoffQ:{}; unschedulablePods:{}"

LessFunc = Callable[[QueuedPodInfo, QueuedPodInfo], bool]
PreEnqueueRunner = Callable[[Pod], Status | None]
"""Runs a profile's PreEnqueue plugins; a non-success status names the gating plugin."""
PreEnqueueCheck = Callable[[Pod], bool]
PodSigner = Callable[[Pod], Any]
OnChange = Callable[[str, QueuedPodInfo], None]

_SCALE_DOWN = ClusterEvent(EventResource.POD, ActionType.UPDATE_POD_SCALE_DOWN)

P = ParamSpec("P")
R = TypeVar("R")


class SchedulingQueueError(RuntimeError):
    """A pod handed back to the queue is already queued (a scheduler bug upstream logs)."""


@dataclass(slots=True)
class QueueListing:
    """Everything pending, grouped as a queue board shows it."""

    active: list[QueuedPodInfo] = field(default_factory=list)
    """In the order they would be popped."""
    backoff: list[QueuedPodInfo] = field(default_factory=list)
    """Earliest backoff end first; ``backoff_expiration`` is filled in."""
    unschedulable: list[QueuedPodInfo] = field(default_factory=list)
    """Rejected pods, with ``unschedulable_plugins`` / ``pending_plugins``."""
    gated: list[QueuedPodInfo] = field(default_factory=list)
    """Pods a PreEnqueue plugin (``gating_plugin``) keeps out."""
    in_flight: list[QueuedPodInfo] = field(default_factory=list)
    """Pods being scheduled or bound right now, earliest popped first."""


def _locked(method: Callable[P, R]) -> Callable[P, R]:
    @functools.wraps(method)
    def wrapper(*args: P.args, **kwargs: P.kwargs) -> R:
        with args[0]._lock:  # type: ignore[attr-defined]
            return method(*args, **kwargs)

    return wrapper


class PriorityQueue:
    """The scheduling queue of kube-scheduler v1.36 (queueing hints on, as they are locked).

    ``less_fn`` orders the active queue (the QueueSort plugin's ``less``). ``cluster``, when
    given, is read like upstream's informers: a pod must still exist unbound to be
    nominated, and namespace labels decide affinity namespace selectors. ``pre_enqueue``
    maps a profile to its PreEnqueue runner, ``queueing_hint_map`` a profile to its hints;
    ``pod_signers`` a profile to its Framework.sign_pod (used with OpportunisticBatching);
    :meth:`from_frameworks` builds all of them from the profiles' frameworks.
    ``pop_from_backoff_q`` defaults to the SchedulerPopFromBackoffQ gate.
    """

    def __init__(
        self,
        less_fn: LessFunc,
        *,
        cluster: Any = None,
        clock: Clock | None = None,
        pod_initial_backoff_seconds: float = DEFAULT_POD_INITIAL_BACKOFF,
        pod_max_backoff_seconds: float = DEFAULT_POD_MAX_BACKOFF,
        pod_max_in_unschedulable_pods_seconds: float = DEFAULT_POD_MAX_IN_UNSCHEDULABLE_PODS,
        queueing_hint_map: QueueingHintMapPerProfile | None = None,
        pre_enqueue: Mapping[str, PreEnqueueRunner] | None = None,
        pod_signers: Mapping[str, PodSigner] | None = None,
        feature_gates: FeatureGates = DEFAULT_FEATURE_GATES,
        pop_from_backoff_q: bool | None = None,
        on_change: OnChange | None = None,
        metrics: Metrics | None = None,
    ) -> None:
        self._lock = threading.RLock()
        self._metrics = metrics if metrics is not None else DEFAULT_METRICS
        self._clock: Clock = clock or RealClock()
        self._cluster = cluster
        self.pod_max_in_unschedulable_pods_seconds = pod_max_in_unschedulable_pods_seconds
        self.hints = QueueingHints(dict(queueing_hint_map or {}))
        self._pre_enqueue: dict[str, PreEnqueueRunner] = dict(pre_enqueue or {})
        self._pod_signers = pod_signers
        self._feature_gates = feature_gates
        self._opportunistic_batching = feature_gates.enabled("OpportunisticBatching")
        self._generic_workload = feature_gates.enabled("GenericWorkload")
        if pop_from_backoff_q is None:
            pop_from_backoff_q = feature_gates.enabled("SchedulerPopFromBackoffQ")
        self._pop_from_backoff_q = pop_from_backoff_q
        self._on_change = on_change
        self.backoff_q = BackoffQueue(
            self._clock,
            pod_initial_backoff_seconds,
            pod_max_backoff_seconds,
            less_fn,
            pop_from_backoff_q,
        )
        self.active_q = ActiveQueue(less_fn, self.backoff_q if pop_from_backoff_q else None)
        self.unschedulable_pods = UnschedulablePods()
        self.nominator = Nominator(self._get_pod if cluster is not None else None)
        self._next_backoff_flush: float | None = None
        self._next_leftover_flush: float | None = None
        queue_metrics.register_gauges(self._metrics, self.listing, self.in_flight_labels)

    @classmethod
    def from_frameworks(cls, frameworks: Iterable[Any], **options: Any) -> PriorityQueue:
        """The queue for these profiles' Frameworks, wired back into them as nominator/activator.

        The active queue is ordered by the first profile's QueueSort (configuration
        validation makes every profile use the same one). ``options`` are the constructor's;
        a ``queueing_hint_map`` or ``pre_enqueue`` given there replaces the built one.
        """
        frameworks = list(frameworks)
        if not frameworks:
            raise ValueError("a scheduling queue needs at least one profile's framework")
        options.setdefault("queueing_hint_map", build_queueing_hint_map_per_profile(frameworks))
        options.setdefault("metrics", frameworks[0].metrics)
        options.setdefault("pod_signers", {fw.profile_name(): fw.sign_pod for fw in frameworks})
        options.setdefault(
            "pre_enqueue",
            {
                fw.profile_name(): fw.run_pre_enqueue_plugins
                for fw in frameworks
                if fw.pre_enqueue_plugins
            },
        )
        queue = cls(frameworks[0].queue_sort_func(), **options)
        for fw in frameworks:
            fw.pod_nominator = queue
            fw.pod_activator = queue
        return queue

    # ------------------------------------------------------------------------------------------
    # Pods arriving, changing and leaving

    @_locked
    def add(self, pod: Pod) -> None:
        """A new pending pod: to the active queue, or aside if PreEnqueue gates it."""
        pod_info = self._new_queued_pod_info(pod)
        self._move_to_active_q(pod_info, EVENT_UNSCHEDULED_POD_ADD.label())

    @_locked
    def update(self, old_pod: Pod, new_pod: Pod) -> None:
        """A pending pod changed: replace it where it waits, and requeue it if that may help.

        A pod in flight is left alone; its update is remembered in case the attempt fails.
        A pod the queue does not know is added to the active queue.
        """
        events = pod_scheduling_properties_change(new_pod, old_pod, self._feature_gates)
        if self.active_q.add_events_if_pod_in_flight(old_pod, new_pod, events):
            return
        for place in (self.active_q, self.backoff_q):
            pod_info = place.update(new_pod, old_pod)
            if pod_info is not None:
                self.nominator.update_nominated_pod(old_pod, pod_info.pod_info)
                pod_info.pod_signature = self._sign_pod(new_pod)
                self._notify(UPDATED, pod_info)
                return
        pod_info = self.unschedulable_pods.get(new_pod)
        if pod_info is None:
            pod_info = self._new_queued_pod_info(new_pod)
            self._move_to_active_q(pod_info, EVENT_UNSCHEDULED_POD_UPDATE.label())
            return
        pod_info.update(new_pod)
        self.nominator.update_nominated_pod(old_pod, pod_info.pod_info)
        pod_info.pod_signature = self._sign_pod(new_pod)
        self._notify(UPDATED, pod_info)
        for event in events:
            strategy = self.hints.is_pod_worth_requeuing(pod_info, event, old_pod, new_pod)
            queue = self._requeue_pod_with_queueing_strategy(pod_info, strategy, event.label())
            if queue == ACTIVE_Q or (self._pop_from_backoff_q and queue == BACKOFF_Q):
                break

    @_locked
    def delete(self, pod: Pod) -> None:
        """The pod is gone (or bound elsewhere): forget it everywhere it waits."""
        self.nominator.delete_nominated_pod_if_exists(pod)
        pod_info = (
            self.active_q.delete(pod)
            or self.backoff_q.delete(pod)
            or self.unschedulable_pods.delete(pod)
        )
        if pod_info is not None:
            self._notify(DELETED, pod_info)

    @_locked
    def activate(self, pods: Mapping[str, Pod]) -> None:
        """Moves these pods to the active queue at once (PodActivator, used by plugins).

        A pod that is in flight instead gets a ForceActivate event, so it comes straight
        back if its attempt fails. Pods the queue does not hold are ignored.
        """
        for pod in pods.values():
            if not self._activate(pod):
                self.active_q.add_events_if_pod_in_flight(None, pod, [EVENT_FORCE_ACTIVATE])

    # ------------------------------------------------------------------------------------------
    # Scheduling attempts

    @_locked
    def pop(self) -> QueuedPodInfo | None:
        """The next pod to schedule (now in flight), or None when nothing is ready.

        When the active queue is empty the best rejected pod still backing off is taken
        (SchedulerPopFromBackoffQ): an idle scheduler need not wait out backoffs.
        """
        popped = self.active_q.pop()
        if popped is None:
            return None
        pod_info, from_backoff_q = popped
        if from_backoff_q:
            queue_metrics.count_incoming(self._metrics, queue_metrics.ACTIVE, POP_FROM_BACKOFF_Q)
        self._notify(IN_FLIGHT, pod_info, POP_FROM_BACKOFF_Q if from_backoff_q else "")
        return pod_info

    @_locked
    def pop_specific_pod(self, pod: Pod) -> QueuedPodInfo | None:
        """Takes this pod out as if it had been activated and popped; None if not queued."""
        self._activate(pod)
        pod_info = self.active_q.delete(pod)
        if pod_info is None or not self.active_q.move_pod_to_in_flight(pod_info):
            return None
        self._notify(IN_FLIGHT, pod_info)
        return pod_info

    @_locked
    def done(self, uid: str) -> None:
        """The attempt of a popped pod is over (bound, or handed back): stop recording for it."""
        pod_info = self.active_q.done(uid)
        if pod_info is not None:
            self._notify(DONE, pod_info)

    @_locked
    def scheduling_cycle(self) -> int:
        """How many pods have been popped so far."""
        return self.active_q.scheduling_cycle()

    @_locked
    def add_unschedulable_if_not_present(
        self, pod_info: QueuedPodInfo, pod_scheduling_cycle: int
    ) -> None:
        """Hands back a pod whose attempt failed; it goes where the events since its pop say.

        Raises SchedulingQueueError if the pod is already queued. The pod's flight ends
        either way. ``pod_scheduling_cycle`` keeps upstream's signature; with queueing hints
        (always on in v1.36) the events recorded in flight are used instead.
        """
        pod = pod_info.pod
        try:
            self._check_not_queued(pod)
            if not pod_info.unschedulable_plugins and not pod_info.pending_plugins:
                pod_info.consecutive_errors_count += 1
            else:
                pod_info.unschedulable_count += 1
                pod_info.consecutive_errors_count = 0
            pod_info.timestamp = self._clock.now()
            pod_info.backoff_expiration = None
            pod_info.was_flushed_from_unschedulable = False
            strategy = self._determine_scheduling_hint_for_in_flight_pod(pod_info)
            self._requeue_pod_with_queueing_strategy(pod_info, strategy, SCHEDULE_ATTEMPT_FAILURE)
        finally:
            self.done(pod.uid)

    def _check_not_queued(self, pod: Pod) -> None:
        key = f"{pod.namespace}/{pod.name}"
        if self.unschedulable_pods.get(pod) is not None:
            raise SchedulingQueueError(f"Pod {key} is already present in unschedulable queue")
        if self.active_q.has(pod):
            raise SchedulingQueueError(f"Pod {key} is already present in the active queue")
        if self.backoff_q.has(pod):
            raise SchedulingQueueError(f"Pod {key} is already present in the backoff queue")

    def _determine_scheduling_hint_for_in_flight_pod(
        self, pod_info: QueuedPodInfo
    ) -> QueueingStrategy:
        """The strongest strategy any event received during the pod's flight calls for."""
        if not pod_info.unschedulable_plugins and not pod_info.pending_plugins:
            # An error, not a rejection: no event is awaited, so retry after the backoff.
            return QueueingStrategy.QUEUE_AFTER_BACKOFF
        if self._generic_workload and pod_info.pod.spec.pod_group_name is not None:
            # A pod group's members retry on backoff alone: upstream has no event-based
            # requeueing for whole groups yet.
            return QueueingStrategy.QUEUE_AFTER_BACKOFF
        events = self.active_q.cluster_events_for_pod(pod_info)
        if events is None:
            return QueueingStrategy.QUEUE_AFTER_BACKOFF
        strategy = QueueingStrategy.QUEUE_SKIP
        for received in events:
            result = self.hints.is_pod_worth_requeuing(
                pod_info, received.event, received.old_obj, received.new_obj
            )
            if result == QueueingStrategy.QUEUE_IMMEDIATELY:
                return result
            if result == QueueingStrategy.QUEUE_AFTER_BACKOFF:
                strategy = result
                if not pod_info.pending_plugins:
                    return strategy
        return strategy

    # ------------------------------------------------------------------------------------------
    # Cluster events

    @_locked
    def move_all_to_active_or_backoff_queue(
        self,
        event: ClusterEvent,
        old_obj: Any = None,
        new_obj: Any = None,
        pre_check: PreEnqueueCheck | None = None,
    ) -> None:
        """Offers the event to every unschedulable pod that passes ``pre_check``."""
        if not self.hints.is_event_of_interest(event):
            return
        pod_infos = [
            pod_info
            for pod_info in self.unschedulable_pods
            if pre_check is None or pre_check(pod_info.pod)
        ]
        self._move_pods_to_active_or_backoff_queue(pod_infos, event, old_obj, new_obj)

    @_locked
    def assigned_pod_added(self, pod: Pod) -> None:
        """A bound pod appeared: it may satisfy affinity or spreading of waiting pods."""
        self._move_pods_to_active_or_backoff_queue(
            self._unschedulable_pods_with_cross_topology_term(pod),
            EVENT_ASSIGNED_POD_ADD,
            None,
            pod,
        )

    @_locked
    def assigned_pod_updated(self, old_pod: Pod | None, new_pod: Pod, event: ClusterEvent) -> None:
        """A bound pod changed. Shrinking may free room for any pod; other changes only matter
        to pods whose affinity or spreading looks at other pods."""
        if _SCALE_DOWN.matches(event):
            self.move_all_to_active_or_backoff_queue(event, old_pod, new_pod)
            return
        self._move_pods_to_active_or_backoff_queue(
            self._unschedulable_pods_with_cross_topology_term(new_pod), event, old_pod, new_pod
        )

    def _move_pods_to_active_or_backoff_queue(
        self, pod_infos: list[QueuedPodInfo], event: ClusterEvent, old_obj: Any, new_obj: Any
    ) -> None:
        if not self.hints.is_event_of_interest(event):
            return
        for pod_info in pod_infos:
            if pod_info.gated and not match_any_cluster_event(event, pod_info.gating_plugin_events):
                continue  # the gating plugin does not care about this event
            strategy = self.hints.is_pod_worth_requeuing(pod_info, event, old_obj, new_obj)
            if strategy == QueueingStrategy.QUEUE_SKIP:
                continue
            self.unschedulable_pods.delete(pod_info.pod)
            self._requeue_pod_with_queueing_strategy(pod_info, strategy, event.label())
        self.active_q.add_event_if_any_in_flight(old_obj, new_obj, event)

    def _unschedulable_pods_with_cross_topology_term(self, pod: Pod) -> list[QueuedPodInfo]:
        """Waiting pods a change of ``pod`` can help: rejected by spreading in its namespace,
        or with a required affinity term that matches it."""
        namespace_labels = self._namespace_labels(pod.namespace)
        found = []
        for pod_info in self.unschedulable_pods:
            if (
                names.POD_TOPOLOGY_SPREAD in pod_info.unschedulable_plugins
                and pod.namespace == pod_info.pod.namespace
            ):
                found.append(pod_info)
                continue
            terms = pod_info.pod_info.required_affinity_terms
            if any(term.matches(pod, namespace_labels) for term in terms):
                found.append(pod_info)
        return found

    @_locked
    def is_pod_worth_requeuing(
        self, pod_info: QueuedPodInfo, event: ClusterEvent, old_obj: Any = None, new_obj: Any = None
    ) -> QueueingStrategy:
        """What ``event`` would do to the pod by its queueing hints; moves nothing ("what if")."""
        return self.hints.is_pod_worth_requeuing(pod_info, event, old_obj, new_obj)

    # ------------------------------------------------------------------------------------------
    # Periodic flushes

    @_locked
    def run(self) -> None:
        """Starts the periodic flushes now (upstream Run), without threads.

        The backoff flush runs at every whole ordering window, the leftover flush at once
        and then every 30 seconds; :meth:`run_periodic` performs whatever is due.
        """
        now = self._clock.now()
        self._next_backoff_flush = self.backoff_q.align_to_window(now + BACKOFF_Q_FLUSH_PERIOD)
        self._next_leftover_flush = now
        self.run_periodic()

    @_locked
    def run_periodic(self) -> None:
        """Runs the flushes that are due by the clock; call it whenever time may have moved."""
        if self._next_backoff_flush is None or self._next_leftover_flush is None:
            self.run()
            return
        now = self._clock.now()
        if now >= self._next_leftover_flush:
            self.flush_unschedulable_pods_leftover()
            self._next_leftover_flush = now + UNSCHEDULABLE_PODS_FLUSH_PERIOD
        if now >= self._next_backoff_flush:
            self.flush_backoff_q_completed()
            periods = (now - self._next_backoff_flush) // BACKOFF_Q_FLUSH_PERIOD + 1
            self._next_backoff_flush += periods * BACKOFF_Q_FLUSH_PERIOD

    @_locked
    def next_periodic_deadline(self) -> float | None:
        """When :meth:`run_periodic` next has work (None before :meth:`run`)."""
        if self._next_backoff_flush is None or self._next_leftover_flush is None:
            return None
        return min(self._next_backoff_flush, self._next_leftover_flush)

    @_locked
    def flush_backoff_q_completed(self) -> None:
        """Moves every pod whose backoff is over to the active queue."""
        for pod_info in self.backoff_q.pop_all_backoff_completed():
            self._move_to_active_q(pod_info, BACKOFF_COMPLETE, moves_from_backoff_q=True)

    @_locked
    def flush_unschedulable_pods_leftover(self) -> None:
        """Moves pods unschedulable for longer than the maximum stay, whatever the events."""
        now = self._clock.now()
        overdue = [
            pod_info
            for pod_info in self.unschedulable_pods
            if now - pod_info.timestamp > self.pod_max_in_unschedulable_pods_seconds
        ]
        for pod_info in overdue:
            pod_info.was_flushed_from_unschedulable = True
        if overdue:
            self._move_pods_to_active_or_backoff_queue(
                overdue, EVENT_UNSCHEDULABLE_TIMEOUT, None, None
            )

    @_locked
    def close(self) -> None:
        """Ends every flight; later pops still return what is queued."""
        for pod_info in self.active_q.in_flight_pod_infos():
            self.done(pod_info.pod.uid)

    # ------------------------------------------------------------------------------------------
    # Moving pods between the queues

    def _move_to_active_q(
        self, pod_info: QueuedPodInfo, event: str, moves_from_backoff_q: bool = False
    ) -> bool:
        """Adds the pod to the active queue unless PreEnqueue gates it; True if it was added.

        A pod coming straight from the backoff queue passed PreEnqueue on its way in there.
        """
        if not (self._pop_from_backoff_q and moves_from_backoff_q):
            self._run_pre_enqueue_plugins(pod_info)
        if pod_info.gated:
            if not self.active_q.has(pod_info.pod) and not self.backoff_q.has(pod_info.pod):
                self._add_to_unschedulable_pods(pod_info, event)
            return False
        if pod_info.initial_attempt_timestamp is None:
            pod_info.initial_attempt_timestamp = self._clock.now()
            pod_info.initial_attempt_wall = perf_counter()
        self.unschedulable_pods.delete(pod_info.pod)
        self.backoff_q.delete(pod_info.pod)
        self.active_q.add(pod_info)
        queue_metrics.count_incoming(self._metrics, queue_metrics.ACTIVE, event)
        self._notify(ACTIVE_Q, pod_info, event)
        if event in (EVENT_UNSCHEDULED_POD_ADD.label(), EVENT_UNSCHEDULED_POD_UPDATE.label()):
            self.nominator.add_nominated_pod(pod_info.pod_info, None)
        return True

    def _move_to_backoff_q(self, pod_info: QueuedPodInfo, event: str) -> bool:
        """Adds the pod to the backoff queue unless PreEnqueue gates it; True if it was added."""
        if self._pop_from_backoff_q:
            # The backoff queue may be popped directly, so PreEnqueue runs on the way in.
            self._run_pre_enqueue_plugins(pod_info)
            if pod_info.gated:
                self._add_to_unschedulable_pods(pod_info, event)
                return False
        self.unschedulable_pods.delete(pod_info.pod)
        self.backoff_q.add(pod_info)
        queue_metrics.count_incoming(self._metrics, queue_metrics.BACKOFF, event)
        self._notify(BACKOFF_Q, pod_info, event)
        return True

    def _add_to_unschedulable_pods(self, pod_info: QueuedPodInfo, event: str) -> None:
        if self.unschedulable_pods.get(pod_info.pod) is None:
            queue_metrics.count_incoming(self._metrics, queue_metrics.UNSCHEDULABLE, event)
        self.unschedulable_pods.add_or_update(pod_info)
        self._notify(GATED if pod_info.gated else UNSCHEDULABLE_Q, pod_info, event)

    def _requeue_pod_with_queueing_strategy(
        self, pod_info: QueuedPodInfo, strategy: QueueingStrategy, event: str
    ) -> str:
        """Puts the pod where the strategy says; returns the name of the queue it ended in."""
        if strategy == QueueingStrategy.QUEUE_SKIP:
            self._add_to_unschedulable_pods(pod_info, event)
            return UNSCHEDULABLE_Q
        # The backoff may have run out while the pod sat in the unschedulable pool.
        if strategy == QueueingStrategy.QUEUE_AFTER_BACKOFF and self.backoff_q.is_pod_backing_off(
            pod_info
        ):
            return BACKOFF_Q if self._move_to_backoff_q(pod_info, event) else UNSCHEDULABLE_Q
        return ACTIVE_Q if self._move_to_active_q(pod_info, event) else UNSCHEDULABLE_Q

    def _activate(self, pod: Pod) -> bool:
        pod_info = self.unschedulable_pods.get(pod)
        moves_from_backoff_q = False
        if pod_info is None:
            pod_info = self.backoff_q.delete(pod)
            if pod_info is None:
                return False
            moves_from_backoff_q = True
        return self._move_to_active_q(pod_info, FORCE_ACTIVATE, moves_from_backoff_q)

    def _run_pre_enqueue_plugins(self, pod_info: QueuedPodInfo) -> None:
        """Sets or clears the gating plugin; a gating plugin also counts as a rejector."""
        runner = self._pre_enqueue.get(pod_info.pod.spec.scheduler_name)
        status = runner(pod_info.pod) if runner is not None else None
        if status is None or status.is_success():
            pod_info.gating_plugin = ""
            return
        plugin = status.plugin
        pod_info.unschedulable_plugins.add(plugin)
        pod_info.gating_plugin = plugin
        pod_info.gating_plugin_events = self.hints.plugin_to_events.get(plugin, [])

    def _new_queued_pod_info(self, pod: Pod) -> QueuedPodInfo:
        return QueuedPodInfo(
            PodInfo(pod), timestamp=self._clock.now(), pod_signature=self._sign_pod(pod)
        )

    def _sign_pod(self, pod: Pod) -> Any:
        if self._pod_signers is None or not self._opportunistic_batching:
            return None
        signer = self._pod_signers.get(pod.spec.scheduler_name)
        if signer is None:
            logger.error("No signer registered for scheduler profile: %s", pod.spec.scheduler_name)
            return None
        return signer(pod)

    def _notify(self, transition: str, pod_info: QueuedPodInfo, cause: str = "") -> None:
        if self._on_change is not None:
            self._on_change(f"{transition}:{cause}" if cause else transition, pod_info)

    # ------------------------------------------------------------------------------------------
    # Nominated pods (the PodNominator the framework hands to plugins)

    @_locked
    def add_nominated_pod(self, pod_info: PodInfo, nominating_info: NominatingInfo | None) -> None:
        self.nominator.add_nominated_pod(pod_info, nominating_info)

    @_locked
    def update_nominated_pod(self, old_pod: Pod, new_pod_info: PodInfo) -> None:
        self.nominator.update_nominated_pod(old_pod, new_pod_info)

    @_locked
    def delete_nominated_pod_if_exists(self, pod: Pod) -> None:
        self.nominator.delete_nominated_pod_if_exists(pod)

    @_locked
    def nominated_pods_for_node(self, node_name: str) -> list[PodInfo]:
        """The pods nominated to the node, in nomination order, as the queue holds them now."""
        refs = self.nominator.nominated_pods.get(node_name)  # most nodes have none: no copy
        if not refs:
            return []
        return [self._nominated_pod_info(ref) for ref in refs]

    @_locked
    def nominated_pods_for_nodes(self, node_names: Sequence[str]) -> list[list[PodInfo]]:
        """``nominated_pods_for_node`` for each node, under one lock: a preempting pod's first
        attempt asks for every node nominated before it, and the dry run for many."""
        nominated = self.nominator.nominated_pods
        info = self._nominated_pod_info
        return [[info(ref) for ref in nominated.get(name, ())] for name in node_names]

    @_locked
    def nominated_node_names(self) -> frozenset[str]:
        """The nodes that have nominated pods, so filtering can skip asking node by node."""
        return self.nominator.node_names()

    def _nominated_pod_info(self, ref: PodRef) -> PodInfo:
        """The queued version of the pod, looked up by key: filtering asks this per node, and
        preemption's dry run per node and victim, so no pod is built for the lookup."""
        key = ref.key
        queued = self.active_q.get_by_key(key)
        if queued is None:
            queued = self.unschedulable_pods.get_by_full_name(ref.full_name)
        if queued is None:
            queued = self.backoff_q.get_by_key(key)
        return queued.pod_info if queued is not None else PodInfo(ref.to_pod())

    # ------------------------------------------------------------------------------------------
    # Reading the queue (debugging, the playground's queue board)

    @_locked
    def get_pod(self, name: str, namespace: str) -> QueuedPodInfo | None:
        """The queued pod with this name, wherever it waits (not in flight)."""
        lookup = PodRef(name, namespace, "").to_pod()
        for place in (self.backoff_q, self.unschedulable_pods, self.active_q):
            pod_info = place.get(lookup)
            if pod_info is not None:
                return pod_info
        return None

    @_locked
    def pods_in_active_q(self) -> list[Pod]:
        """In the order they would be popped."""
        return self.active_q.list()

    @_locked
    def pods_in_backoff_q(self) -> list[Pod]:
        """Earliest backoff end first."""
        return self.backoff_q.list()

    @_locked
    def unschedulable_pod_list(self) -> list[Pod]:
        """Pods in the unschedulable pool, gated ones included (upstream UnschedulablePods)."""
        return [pod_info.pod for pod_info in self.unschedulable_pods]

    @_locked
    def in_flight_pods(self) -> list[Pod]:
        return self.active_q.list_in_flight_pods()

    @_locked
    def in_flight_events(self) -> list[Pod | InFlightEvent]:
        """The in-flight record: each pod where its flight began, and the events since."""
        return self.active_q.list_in_flight_events()

    @_locked
    def in_flight_labels(self) -> Counter[str]:
        """The in-flight record counted by event label (``PodPopped`` for the pods)."""
        return self.active_q.in_flight_labels()

    @_locked
    def pending_pods(self) -> tuple[list[Pod], str]:
        """Every pending pod (not in flight) and a count per queue, as upstream prints it."""
        active = self.active_q.list()
        backoff = self.backoff_q.list()
        unschedulable = self.unschedulable_pod_list()
        summary = PENDING_PODS_SUMMARY.format(len(active), len(backoff), len(unschedulable))
        return active + backoff + unschedulable, summary

    @_locked
    def listing(self) -> QueueListing:
        """The queue board: every pod grouped by where it is, each group in its natural order."""
        listing = QueueListing(
            active=self.active_q.pod_infos(),
            backoff=self.backoff_q.pod_infos(),
            in_flight=self.active_q.in_flight_pod_infos(),
        )
        for pod_info in self.unschedulable_pods:
            (listing.gated if pod_info.gated else listing.unschedulable).append(pod_info)
        return listing

    # ------------------------------------------------------------------------------------------
    # Reading the cluster

    def _get_pod(self, namespace: str, name: str) -> Pod | None:
        return self._cluster.get("Pod", name, namespace)

    def _namespace_labels(self, namespace: str) -> Mapping[str, str] | None:
        if self._cluster is None:
            return None
        found = self._cluster.get("Namespace", namespace)
        return dict(found.labels) if found is not None else None
