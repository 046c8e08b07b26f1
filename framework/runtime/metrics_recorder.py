"""Where the runtime's timings become kube-scheduler's metrics (upstream's metric_recorder.go).

The Framework times every extension point (its trace needs the same clock readings) and, in the
sampled cycles, every plugin call; these functions turn those readings into
``scheduler_framework_extension_point_duration_seconds``,
``scheduler_permit_wait_duration_seconds`` and ``scheduler_plugin_execution_duration_seconds``
with upstream's label values. ``PluginEvaluations`` counts the plugin calls themselves
(``scheduler_plugin_evaluation_total``).
"""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Sequence
from typing import Any

from framework.interface.status import Code, Status
from framework.metrics import (
    FRAMEWORK_EXTENSION_POINT_DURATION_SECONDS,
    PERMIT_WAIT_DURATION_SECONDS,
    PLUGIN_EVALUATION_TOTAL,
    PLUGIN_EXECUTION_DURATION_SECONDS,
    PLUGIN_METRICS_SAMPLE_PERCENT,
    Labels,
    Metrics,
)

WAIT_ON_PERMIT = "waitOnPermit"
"""The trace's name for WaitOnPermit, which upstream times as a permit wait, not as a point."""

_SAMPLER = random.Random()
"""Picks the sampled cycles; apart from the scheduler's seeded RNG so replays stay identical."""


def should_record_plugin_metrics() -> bool:
    """Whether this cycle's plugin calls are timed: upstream samples 10% of cycles."""
    return _SAMPLER.randrange(100) < PLUGIN_METRICS_SAMPLE_PERCENT


def upstream_point(point: str) -> str:
    """The ``extension_point`` label of a trace point name (``preFilter`` -> ``PreFilter``)."""
    return point[:1].upper() + point[1:]


def observe_point(
    metrics: Metrics, point: str, status: Status | None, seconds: float, profile: str
) -> None:
    """One run of a whole extension point (or of WaitOnPermit) for one pod."""
    code = str(status.code) if status is not None else "Success"
    if point == WAIT_ON_PERMIT:
        metrics.observe(PERMIT_WAIT_DURATION_SECONDS, seconds, result=code)
        return
    metrics.observe(
        FRAMEWORK_EXTENSION_POINT_DURATION_SECONDS,
        seconds,
        extension_point=upstream_point(point),
        status=code,
        profile=profile,
    )


def observe_plugin(
    metrics: Metrics, point: str, plugin: str, status: Status | None, seconds: float
) -> None:
    """One call of one plugin."""
    metrics.observe(
        PLUGIN_EXECUTION_DURATION_SECONDS,
        seconds,
        plugin=plugin,
        extension_point=upstream_point(point),
        status=str(status.code) if status is not None else "Success",
    )


def observe_plugin_batch(
    metrics: Metrics, point: str, plugin: str, result: Any, seconds: float, nodes: int
) -> None:
    """A plugin's batch form over ``nodes`` nodes, as that many calls of an equal share each
    (upstream calls the plugin node by node and times each call)."""
    if nodes == 0:
        return
    share = seconds / nodes
    for code, times in _batch_codes(point, result, nodes).items():
        metrics.observe(
            PLUGIN_EXECUTION_DURATION_SECONDS,
            share,
            times,
            plugin=plugin,
            extension_point=upstream_point(point),
            status=code,
        )


def _batch_codes(point: str, result: Any, nodes: int) -> Counter[str]:
    if point == "filter":
        statuses: Sequence[Status | None] = result
        return Counter(str(s.code) if s is not None else "Success" for s in statuses)
    _, status = result
    code = status.code if status is not None else Code.SUCCESS
    return Counter({str(code): nodes})


class PluginEvaluations:
    """One profile's plugin calls at PreFilter, Filter, PreScore and Score, the points upstream
    counts (it wraps those plugins in counting ones); a PreFilter or PreScore that returns Skip
    is not counted, as upstream. A batch form over N nodes counts N calls.

    Filter and Score run once per node, so a call only adds to the metrics' tally, under label
    sets built once per plugin.
    """

    __slots__ = ("_keys", "_profile", "_tally")

    def __init__(self, metrics: Metrics, profile: str) -> None:
        self._tally = metrics.tally(PLUGIN_EVALUATION_TOTAL)
        self._profile = profile
        self._keys: dict[tuple[str, str], Labels] = {}

    def count(self, point: str, plugin: str, times: int = 1) -> None:
        key = self._keys.get((point, plugin))
        if key is None:
            key = self._keys[(point, plugin)] = (
                ("extension_point", upstream_point(point)),
                ("plugin", plugin),
                ("profile", self._profile),
            )
        self._tally[key] += times
