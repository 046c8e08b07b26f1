"""Pod start times as preemption reads them, in integer nanoseconds.

Upstream treats a pod without ``status.startTime`` (assumed, or bound but not started) as
starting *now*, reading the wall clock afresh on every comparison. Successive readings always
increase, so of two such pods the one looked at first seems older; victim ordering and the
"latest start time" tie-break depend on that. ``StartTimes`` reproduces it from the injectable
clock: every reading is at least one nanosecond later than the previous one.
"""

from __future__ import annotations

import datetime as _dt
from collections.abc import Sequence
from typing import TYPE_CHECKING

from framework.util.clock import Clock, RealClock

if TYPE_CHECKING:
    from framework.api.pod import Pod

_EPOCH = _dt.datetime(1970, 1, 1, tzinfo=_dt.UTC)
_NANOS_PER_MICRO = 1000


def datetime_to_nanos(moment: _dt.datetime) -> int:
    """Nanoseconds since the Unix epoch (Go's ``UnixNano``), exact to the microsecond."""
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=_dt.UTC)
    return ((moment - _EPOCH) // _dt.timedelta(microseconds=1)) * _NANOS_PER_MICRO


class StartTimes:
    """Reads pod start times, falling back to a strictly increasing "now"."""

    __slots__ = ("_clock", "_last")

    def __init__(self, clock: Clock | None = None) -> None:
        self._clock = clock or RealClock()
        self._last = -(1 << 63)

    def now(self) -> int:
        reading = int(self._clock.now() * 1_000_000) * _NANOS_PER_MICRO
        self._last = max(reading, self._last + 1)
        return self._last

    def of(self, pod: Pod) -> int:
        """The pod's start time, or now when it has none (upstream ``GetPodStartTime``)."""
        start = pod.status.start_time
        return self.now() if start is None else datetime_to_nanos(start)

    def more_important_pod(self, pod1: Pod, pod2: Pod) -> bool:
        """Higher priority first, then the older pod (upstream ``MoreImportantPod``)."""
        p1, p2 = pod1.spec.priority, pod2.spec.priority
        if p1 != p2:
            return p1 > p2
        # ``of`` inlined (victims are sorted with this on every candidate node); pod1 first.
        start1, start2 = pod1.status.start_time, pod2.status.start_time
        nanos1 = self.now() if start1 is None else datetime_to_nanos(start1)
        nanos2 = self.now() if start2 is None else datetime_to_nanos(start2)
        return nanos1 < nanos2

    def earliest_of_highest_priority(self, pods: Sequence[Pod]) -> int | None:
        """The earliest start among the highest-priority pods (``GetEarliestPodStartTime``)."""
        if not pods:
            return None
        earliest = self.of(pods[0])
        max_priority = pods[0].spec.priority
        for pod in pods:
            priority = pod.spec.priority
            if priority == max_priority:
                start = self.of(pod)
                if start < earliest:
                    earliest = start
            elif priority > max_priority:
                max_priority = priority
                earliest = self.of(pod)
        return earliest
