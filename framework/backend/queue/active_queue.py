"""The active queue: pods ready to be tried, plus the pods being tried right now (in flight).

While a pod is in flight the cluster keeps changing. Every event that arrives then is
recorded after the pod in one shared list, so that if the attempt fails the queue can
ask whether any of those events may already have fixed the reason: the pod is then
retried instead of waiting for an event that has come and gone.
"""

from __future__ import annotations

import logging
from collections import Counter
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from typing import Any

from framework.api.pod import Pod
from framework.backend.heap import Heap
from framework.backend.queue.backoff_queue import BackoffQueue
from framework.backend.queue.keys import pod_info_key, pod_key
from framework.interface.events import ClusterEvent
from framework.interface.types import QueuedPodInfo
from framework.metrics import POD_POPPED_IN_FLIGHT_EVENT

logger = logging.getLogger(__name__)

LessFunc = Callable[[QueuedPodInfo, QueuedPodInfo], bool]


@dataclass(frozen=True, slots=True)
class InFlightEvent:
    """A cluster event received while some pod was in flight, with the objects involved."""

    event: ClusterEvent
    old_obj: Any = None
    new_obj: Any = None


class _Entry:
    """A node of the in-flight list: a QueuedPodInfo (a pod in flight) or an InFlightEvent."""

    __slots__ = ("next", "prev", "value")

    def __init__(self, value: QueuedPodInfo | InFlightEvent) -> None:
        self.value = value
        self.prev: _Entry | None = None
        self.next: _Entry | None = None


class _InFlightList:
    """A doubly linked list, so a finished pod leaves it in O(1) wherever it stands."""

    __slots__ = ("head", "size", "tail")

    def __init__(self) -> None:
        self.head: _Entry | None = None
        self.tail: _Entry | None = None
        self.size = 0

    def push_back(self, value: QueuedPodInfo | InFlightEvent) -> _Entry:
        entry = _Entry(value)
        entry.prev = self.tail
        if self.tail is None:
            self.head = entry
        else:
            self.tail.next = entry
        self.tail = entry
        self.size += 1
        return entry

    def remove(self, entry: _Entry) -> None:
        if entry.prev is None:
            self.head = entry.next
        else:
            entry.prev.next = entry.next
        if entry.next is None:
            self.tail = entry.prev
        else:
            entry.next.prev = entry.prev
        entry.prev = entry.next = None
        self.size -= 1

    def values_after(self, entry: _Entry | None) -> Iterator[QueuedPodInfo | InFlightEvent]:
        """Values following ``entry``; every value when ``entry`` is None."""
        current = self.head if entry is None else entry.next
        while current is not None:
            yield current.value
            current = current.next


class ActiveQueue:
    """The heap of pods to try (ordered by QueueSort) and the book of pods in flight."""

    __slots__ = (
        "_backoff_q_popper",
        "_in_flight_events",
        "_in_flight_pods",
        "_sched_cycle",
        "queue",
    )

    def __init__(self, less: LessFunc, backoff_q_popper: BackoffQueue | None = None) -> None:
        self.queue: Heap[QueuedPodInfo] = Heap(pod_info_key, less)
        self._in_flight_pods: dict[str, _Entry] = {}
        self._in_flight_events = _InFlightList()
        self._sched_cycle = 0
        # Set when SchedulerPopFromBackoffQ is on: an empty heap then yields backoff pods.
        self._backoff_q_popper = backoff_q_popper

    # -- the heap ------------------------------------------------------------------------------

    def add(self, pod_info: QueuedPodInfo) -> None:
        self.queue.add_or_update(pod_info)

    def update(self, new_pod: Pod, old_pod: Pod) -> QueuedPodInfo | None:
        """Points the queued pod at its new version and reorders; None if it is not here."""
        pod_info = self.queue.get_by_key(pod_key(old_pod))
        if pod_info is None:
            return None
        pod_info.update(new_pod)
        self.queue.add_or_update(pod_info)
        return pod_info

    def get(self, pod: Pod) -> QueuedPodInfo | None:
        return self.queue.get_by_key(pod_key(pod))

    def get_by_key(self, key: str) -> QueuedPodInfo | None:
        """By ``pod_key``: the nominator holds references, not pods."""
        return self.queue.get_by_key(key)

    def has(self, pod: Pod) -> bool:
        return self.get(pod) is not None

    def delete(self, pod: Pod) -> QueuedPodInfo | None:
        pod_info = self.get(pod)
        if pod_info is not None:
            self.queue.delete(pod_info)
        return pod_info

    def __len__(self) -> int:
        return len(self.queue)

    def pod_infos(self) -> list[QueuedPodInfo]:
        """The queued pods in the order they would be popped."""
        return self.queue.ordered()

    def list(self) -> list[Pod]:
        return [pod_info.pod for pod_info in self.pod_infos()]

    # -- popping and in-flight bookkeeping -----------------------------------------------------

    def pop(self) -> tuple[QueuedPodInfo, bool] | None:
        """The next pod to try, now in flight, and whether it came from the backoff queue.

        None when there is nothing to pop (the caller decides when to try again). A pod that
        is somehow already in flight is discarded, and the next one popped instead.
        """
        while True:
            from_backoff_q = False
            pod_info = self.queue.pop()
            if pod_info is None and self._backoff_q_popper is not None:
                pod_info = self._backoff_q_popper.pop_backoff()
                from_backoff_q = True
            if pod_info is None:
                return None
            if self.move_pod_to_in_flight(pod_info):
                return pod_info, from_backoff_q

    def move_pod_to_in_flight(self, pod_info: QueuedPodInfo) -> bool:
        """Counts the attempt and starts recording events for the pod; False if already there."""
        pod_info.attempts += 1
        uid = pod_info.pod.uid
        if uid in self._in_flight_pods:
            logger.error(
                "Discarding the popped pod: the same pod is tracked in multiple places in the "
                "scheduler: %s",
                pod_key(pod_info.pod),
            )
            return False
        self._in_flight_pods[uid] = self._in_flight_events.push_back(pod_info)
        self._sched_cycle += 1
        return True

    def done(self, uid: str) -> QueuedPodInfo | None:
        """Ends the pod's flight; returns its QueuedPodInfo, or None if it was not in flight.

        Events at the front of the list that no remaining in-flight pod predates are dropped,
        so the list never outgrows what is still needed.
        """
        entry = self._in_flight_pods.pop(uid, None)
        if entry is None:
            return None
        events = self._in_flight_events
        events.remove(entry)
        while events.head is not None and isinstance(events.head.value, InFlightEvent):
            events.remove(events.head)
        return entry.value  # type: ignore[return-value]

    def cluster_events_for_pod(self, pod_info: QueuedPodInfo) -> list[InFlightEvent] | None:
        """The events received since the pod was popped; None if it is not in flight."""
        entry = self._in_flight_pods.get(pod_info.pod.uid)
        if entry is None:
            logger.error(
                "in flight Pod isn't found in the scheduling queue. If you see this error log, "
                "it's likely a bug in the scheduler"
            )
            return None
        return [
            v for v in self._in_flight_events.values_after(entry) if isinstance(v, InFlightEvent)
        ]

    def add_events_if_pod_in_flight(
        self, old_pod: Pod | None, new_pod: Pod, events: Sequence[ClusterEvent]
    ) -> bool:
        """Records the pod's own update events if it is in flight; True if it was."""
        if new_pod.uid not in self._in_flight_pods:
            return False
        for event in events:
            self._in_flight_events.push_back(InFlightEvent(event, old_pod, new_pod))
        return True

    def add_event_if_any_in_flight(self, old_obj: Any, new_obj: Any, event: ClusterEvent) -> bool:
        """Records the event if any pod is in flight; True if it was recorded."""
        if not self._in_flight_pods:
            return False
        self._in_flight_events.push_back(InFlightEvent(event, old_obj, new_obj))
        return True

    def list_in_flight_events(self) -> list[Pod | InFlightEvent]:
        """The in-flight list in order: a pod where its flight began, events as received."""
        return [
            value.pod if isinstance(value, QueuedPodInfo) else value
            for value in self._in_flight_events.values_after(None)
        ]

    def in_flight_labels(self) -> Counter[str]:
        """The in-flight list counted by event label, each pod as ``PodPopped``: what upstream's
        ``scheduler_inflight_events`` adds up as entries are pushed and pruned."""
        return Counter(
            value.event.label() if isinstance(value, InFlightEvent) else POD_POPPED_IN_FLIGHT_EVENT
            for value in self._in_flight_events.values_after(None)
        )

    def in_flight_pod_infos(self) -> list[QueuedPodInfo]:
        """Pods in flight, earliest popped first."""
        return [entry.value for entry in self._in_flight_pods.values()]  # type: ignore[misc]

    def list_in_flight_pods(self) -> list[Pod]:
        return [pod_info.pod for pod_info in self.in_flight_pod_infos()]

    def is_in_flight(self, uid: str) -> bool:
        return uid in self._in_flight_pods

    def scheduling_cycle(self) -> int:
        return self._sched_cycle

    def close(self) -> None:
        """Ends every flight, so no events are kept for attempts that will never report back."""
        for uid in list(self._in_flight_pods):
            self.done(uid)
