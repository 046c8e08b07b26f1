"""The cluster as a pod's attempts saw it: a trace observer that copies the object list.

An explanation must run the plugins over the objects the attempt read, not over the cluster
at the end of a simulation (preemption has evicted victims, other pods have been bound since).
The observer hears the pod's PreFilter summary, which comes before Filter and PostFilter change
anything, and keeps the list of objects then (objects are replaced on change, never edited, so
the list is a consistent copy).

It also records where DefaultPreemption's dry run started for the pod (the random offset it
drew, and how many candidates it wanted), so the preemption explainer can search exactly the
nodes the real run searched.
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
        self.searches: dict[int, tuple[int, int]] = {}
        """Attempt index -> (offset, candidates wanted) of DefaultPreemption's dry run."""

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
            plugin = framework.plugins_map.get("DefaultPreemption")
            if plugin is not None:
                self._record_searches(scheduler, plugin)
        return self

    def _record_searches(self, scheduler: Any, plugin: Any) -> None:
        """Wraps the plugin's offset draw (a field upstream's tests replace too)."""
        draw = plugin.get_offset_rand

        def recording(num_nodes: int) -> int:
            offset = draw(num_nodes)
            cycle = scheduler.current_cycle
            if cycle is not None and cycle.pod_info.pod.key == self.pod_key and self.per_attempt:
                wanted = plugin.calculate_num_candidates(num_nodes)
                self.searches[len(self.per_attempt) - 1] = (offset, wanted)
            return offset

        plugin.get_offset_rand = recording

    def at(self, attempt: int) -> list[Any] | None:
        """The objects at the start of the pod's ``attempt``-th attempt (0-based)."""
        return self.per_attempt[attempt] if 0 <= attempt < len(self.per_attempt) else None
