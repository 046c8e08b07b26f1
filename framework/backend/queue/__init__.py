"""The scheduling queue: active, backoff and unschedulable pods, queueing hints, nominations."""

from framework.backend.queue.active_queue import InFlightEvent
from framework.backend.queue.nominator import Nominator, PodRef
from framework.backend.queue.queueing_hints import (
    QueueingHintFunction,
    QueueingHintMap,
    QueueingHintMapPerProfile,
    QueueingHints,
    QueueingStrategy,
    build_queueing_hint_map,
    build_queueing_hint_map_per_profile,
)
from framework.backend.queue.scheduling_queue import (
    DEFAULT_POD_INITIAL_BACKOFF,
    DEFAULT_POD_MAX_BACKOFF,
    DEFAULT_POD_MAX_IN_UNSCHEDULABLE_PODS,
    PriorityQueue,
    QueueListing,
    SchedulingQueueError,
)

__all__ = [
    "DEFAULT_POD_INITIAL_BACKOFF",
    "DEFAULT_POD_MAX_BACKOFF",
    "DEFAULT_POD_MAX_IN_UNSCHEDULABLE_PODS",
    "InFlightEvent",
    "Nominator",
    "PodRef",
    "PriorityQueue",
    "QueueListing",
    "QueueingHintFunction",
    "QueueingHintMap",
    "QueueingHintMapPerProfile",
    "QueueingHints",
    "QueueingStrategy",
    "SchedulingQueueError",
    "build_queueing_hint_map",
    "build_queueing_hint_map_per_profile",
]
