"""The engine's ``Metrics`` of one workspace's scheduler, also written to Prometheus.

The engine keeps its numbers in plain dictionaries (it has no Prometheus dependency); this
subclass forwards every count and observation, with the ``workspace`` label, to the families
of ``families.py`` as it happens. The gauges of the queue, the cache and the work in flight
are read on demand in the engine, and plugin evaluations are tallied, so ``publish_gauges``
copies the gauges over and counts the tallies; the scheduler service calls it as it ticks.
"""

from __future__ import annotations

import time

from prometheus_client import Histogram

from framework.metrics import Labels, Metrics
from playground.metrics.families import SCHEDULER, WORKSPACE

PUBLISH_INTERVAL = 1.0
"""Seconds between two copies of the queue's gauges (reading them walks the queue)."""


class WorkspaceMetrics(Metrics):
    """A workspace scheduler's metrics, exported as they are counted."""

    def __init__(self, workspace_id: int) -> None:
        super().__init__()
        self.workspace = str(workspace_id)
        self._published: dict[str, set[Labels]] = {}
        self._last_publish = float("-inf")

    def inc(self, name: str, amount: float = 1.0, **labels: str) -> None:
        super().inc(name, amount, **labels)
        SCHEDULER[name].labels(**labels, **{WORKSPACE: self.workspace}).inc(amount)

    def set(self, name: str, value: float, **labels: str) -> None:
        super().set(name, value, **labels)
        SCHEDULER[name].labels(**labels, **{WORKSPACE: self.workspace}).set(value)

    def observe(self, name: str, value: float, times: int = 1, **labels: str) -> None:
        super().observe(name, value, times, **labels)
        child = SCHEDULER[name].labels(**labels, **{WORKSPACE: self.workspace})
        if times == 1:
            child.observe(value)
        else:
            _observe_times(child, value, times)

    def publish_gauges(self, force: bool = False) -> None:
        """Copies the gauges read on demand (label sets that went away are set to 0) and
        counts the tallies."""
        now = time.monotonic()
        if not force and now - self._last_publish < PUBLISH_INTERVAL:
            return
        self._last_publish = now
        self.flush()
        for name in self.sourced_gauges():
            self._publish(name, self.series(name))

    def clear_gauges(self) -> None:
        """Counts what is tallied and zeroes every published gauge: the workspace's scheduler
        stopped in this process."""
        self.flush()
        for name in list(self._published):
            self._publish(name, {})

    def _publish(self, name: str, values: dict[Labels, float]) -> None:
        family = SCHEDULER[name]
        for key in self._published.get(name, set()) - set(values):
            family.labels(**dict(key), **{WORKSPACE: self.workspace}).set(0)
        for key, value in values.items():
            family.labels(**dict(key), **{WORKSPACE: self.workspace}).set(value)
        self._published[name] = set(values)


def _observe_times(child: Histogram, value: float, times: int) -> None:
    """``times`` observations of ``value`` at the cost of one (a plugin's batch form over
    thousands of nodes counts as that many calls). prometheus-client has no such call: this
    does what its ``Histogram.observe`` does (pinned 0.26.0), with ``times`` for 1."""
    child._sum.inc(value * times)
    for bucket, bound in zip(child._buckets, child._upper_bounds, strict=True):
        if value <= bound:
            bucket.inc(times)
            return
