"""The cluster as a pod's attempts saw it: a trace observer that copies the object list.

An explanation must run the plugins over the objects the attempt read, not over the cluster
at the end of a simulation (preemption has evicted victims, other pods have been bound since).
The observer hears the pod's PreFilter summary, which comes before Filter and PostFilter change
anything, and keeps the list of objects then (objects are replaced on change, never edited, so
the list is a consistent copy).
"""

from __future__ import annotations

from typing import Any

from framework.trace import EXTENSION_POINT, FanOut, TraceEvent


class AttemptObjects:
    """For one pod, the cluster's objects at the start of each of its scheduling attempts."""

    def __init__(self, cluster: Any, pod_key: str) -> None:
        self.cluster = cluster
        self.pod_key = pod_key
        self.per_attempt: list[list[Any]] = []

    def on_event(self, event: TraceEvent) -> None:
        if (
            event.pod == self.pod_key
            and event.kind == EXTENSION_POINT
            and event.point == "preFilter"
        ):
            self.per_attempt.append(
                [obj for kind in self.cluster.kinds() for obj in self.cluster.list(kind)]
            )

    def attach(self, scheduler: Any) -> AttemptObjects:
        """Observes every profile of the scheduler, beside its other observers."""
        for framework in scheduler.profiles.values():
            current = framework.observer
            framework.observer = self if current is None else FanOut(current, self)
        return self

    def at(self, attempt: int) -> list[Any] | None:
        """The objects at the start of the pod's ``attempt``-th attempt (0-based)."""
        return self.per_attempt[attempt] if 0 <= attempt < len(self.per_attempt) else None
