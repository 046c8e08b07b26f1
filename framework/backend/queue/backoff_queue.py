"""The backoff queue: pods that must wait before their next attempt, ordered by when they may go.

Two heaps share the work: rejected pods (some plugin said Unschedulable or Pending) and
pods that failed with an error, whose backoff protects the API server rather than
punishing wasted cycles. With SchedulerPopFromBackoffQ (on by default in v1.36) the
expiry times are rounded down to whole one-second windows and, inside a window, rejected
pods are ordered like the active queue, so the scheduler may take the best of them when
it has nothing else to do.
"""

from __future__ import annotations

import math
from collections.abc import Callable

from framework.api.pod import Pod
from framework.backend.heap import Heap
from framework.backend.queue.keys import pod_info_key, pod_key
from framework.interface.types import QueuedPodInfo
from framework.util.clock import Clock

BACKOFF_Q_ORDERING_WINDOW = 1.0
"""Seconds per ordering window; also the period of the backoff flush, so windows leave whole."""

NO_BACKOFF = -math.inf
"""The backoff time of a pod that owes no backoff: before any window."""

_NANOS_PER_SECOND = 1_000_000_000

LessFunc = Callable[[QueuedPodInfo, QueuedPodInfo], bool]


def backoff_duration_nanos(count: int, initial_nanos: int, max_nanos: int) -> int:
    """``initial * 2^(count-1)`` capped at ``max``, in nanoseconds; 0 for no failures.

    The comparison is made before shifting so the result never exceeds ``max``, exactly
    where Go's 64-bit arithmetic would have overflowed.
    """
    if count == 0:
        return 0
    shift = count - 1
    if initial_nanos > max_nanos >> shift:
        return max_nanos
    return initial_nanos << shift


def to_nanos(seconds: float) -> int:
    return round(seconds * _NANOS_PER_SECOND)


class BackoffQueue:
    """Pods waiting out their backoff, in two heaps seen as one."""

    __slots__ = (
        "_active_q_less",
        "_clock",
        "_initial_nanos",
        "_max_nanos",
        "pod_backoff_q",
        "pod_error_backoff_q",
        "pop_from_backoff_q_enabled",
    )

    def __init__(
        self,
        clock: Clock,
        pod_initial_backoff_seconds: float,
        pod_max_backoff_seconds: float,
        active_q_less: LessFunc,
        pop_from_backoff_q_enabled: bool = True,
    ) -> None:
        self._clock = clock
        self._initial_nanos = to_nanos(pod_initial_backoff_seconds)
        self._max_nanos = to_nanos(pod_max_backoff_seconds)
        self._active_q_less = active_q_less
        self.pop_from_backoff_q_enabled = pop_from_backoff_q_enabled
        less = (
            self._less_backoff_completed_with_priority
            if pop_from_backoff_q_enabled
            else self._less_backoff_completed
        )
        self.pod_backoff_q: Heap[QueuedPodInfo] = Heap(pod_info_key, less)
        self.pod_error_backoff_q: Heap[QueuedPodInfo] = Heap(
            pod_info_key, self._less_backoff_completed
        )

    @property
    def pod_initial_backoff_seconds(self) -> float:
        return self._initial_nanos / _NANOS_PER_SECOND

    @property
    def pod_max_backoff_seconds(self) -> float:
        return self._max_nanos / _NANOS_PER_SECOND

    # -- backoff arithmetic --------------------------------------------------------------------

    def align_to_window(self, when: float) -> float:
        """The start of the ordering window holding ``when`` (identity without windows)."""
        if not self.pop_from_backoff_q_enabled:
            return when
        return math.floor(when / BACKOFF_Q_ORDERING_WINDOW) * BACKOFF_Q_ORDERING_WINDOW

    def calculate_backoff_duration(self, count: int) -> float:
        """Seconds of backoff after ``count`` failed attempts."""
        return backoff_duration_nanos(count, self._initial_nanos, self._max_nanos) / (
            _NANOS_PER_SECOND
        )

    def get_backoff_time(self, pod_info: QueuedPodInfo) -> float:
        """When the pod's backoff ends (NO_BACKOFF if it owes none); cached on the pod info.

        The cache stays valid until the pod fails again, because only the counters and the
        timestamp it is computed from change then.
        """
        if self._max_nanos == 0:
            return NO_BACKOFF
        count = pod_info.unschedulable_count
        if pod_info.consecutive_errors_count > 0:
            count = pod_info.consecutive_errors_count
        if count == 0:
            return NO_BACKOFF
        if pod_info.backoff_expiration is None:
            duration = self.calculate_backoff_duration(count)
            pod_info.backoff_expiration = self.align_to_window(pod_info.timestamp + duration)
        return pod_info.backoff_expiration

    def is_pod_backing_off(self, pod_info: QueuedPodInfo) -> bool:
        """True while the backoff lasts; a backoff ending in the current window still counts."""
        return self.get_backoff_time(pod_info) >= self.align_to_window(self._clock.now())

    def _less_backoff_completed(self, a: QueuedPodInfo, b: QueuedPodInfo) -> bool:
        return self.get_backoff_time(a) < self.get_backoff_time(b)

    def _less_backoff_completed_with_priority(self, a: QueuedPodInfo, b: QueuedPodInfo) -> bool:
        a_time = self.get_backoff_time(a)
        b_time = self.get_backoff_time(b)
        if a_time != b_time:
            return a_time < b_time
        return self._active_q_less(a, b)

    # -- queue operations ----------------------------------------------------------------------

    def add(self, pod_info: QueuedPodInfo) -> None:
        """Adds to the heap matching why the pod failed, and makes sure it is not in the other."""
        failed_with_error = not pod_info.unschedulable_plugins and not pod_info.pending_plugins
        target, other = (
            (self.pod_error_backoff_q, self.pod_backoff_q)
            if failed_with_error
            else (self.pod_backoff_q, self.pod_error_backoff_q)
        )
        target.add_or_update(pod_info)
        other.delete(pod_info)

    def update(self, new_pod: Pod, old_pod: Pod) -> QueuedPodInfo | None:
        """Points the queued pod at its new version; None if it is not here."""
        for heap in (self.pod_backoff_q, self.pod_error_backoff_q):
            pod_info = heap.get_by_key(pod_key(old_pod))
            if pod_info is not None:
                pod_info.update(new_pod)
                heap.add_or_update(pod_info)
                return pod_info
        return None

    def delete(self, pod: Pod) -> QueuedPodInfo | None:
        """Removes the pod from whichever heap holds it; returns it, or None."""
        for heap in (self.pod_backoff_q, self.pod_error_backoff_q):
            pod_info = heap.get_by_key(pod_key(pod))
            if pod_info is not None:
                heap.delete(pod_info)
                return pod_info
        return None

    def pop_backoff(self) -> QueuedPodInfo | None:
        """The head of the rejected pods' heap (pods that failed with errors are never taken)."""
        return self.pod_backoff_q.pop()

    def pop_all_backoff_completed(self) -> list[QueuedPodInfo]:
        """Removes every pod whose backoff is over: rejected pods first, then errored ones."""
        return self._pop_completed(self.pod_backoff_q) + self._pop_completed(
            self.pod_error_backoff_q
        )

    def _pop_completed(self, heap: Heap[QueuedPodInfo]) -> list[QueuedPodInfo]:
        popped = []
        while True:
            head = heap.peek()
            if head is None or self.is_pod_backing_off(head):
                return popped
            heap.pop()
            popped.append(head)

    def get(self, pod: Pod) -> QueuedPodInfo | None:
        return self.get_by_key(pod_key(pod))

    def get_by_key(self, key: str) -> QueuedPodInfo | None:
        """By ``pod_key``: the nominator holds references, not pods."""
        found = self.pod_backoff_q.get_by_key(key)
        return found if found is not None else self.pod_error_backoff_q.get_by_key(key)

    def has(self, pod: Pod) -> bool:
        return self.get(pod) is not None

    def pod_infos(self) -> list[QueuedPodInfo]:
        """Every queued pod, earliest backoff end first (ties keep each heap's order)."""
        merged = self.pod_backoff_q.ordered() + self.pod_error_backoff_q.ordered()
        return sorted(merged, key=self.get_backoff_time)

    def list(self) -> list[Pod]:
        return [pod_info.pod for pod_info in self.pod_infos()]

    def __len__(self) -> int:
        return len(self.pod_backoff_q) + len(self.pod_error_backoff_q)

    def len_backoff(self) -> int:
        """How many rejected pods wait (the ones the scheduler may take early)."""
        return len(self.pod_backoff_q)
