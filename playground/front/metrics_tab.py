"""The Metrics tab: a workspace's sampled ``/metrics`` series over a time window.

Totals, charts and the top unschedulable plugins are computed from the stored samples
(``playground.metrics.history``) with PromQL's arithmetic (``playground.metrics.window``), and
each comes with the PromQL that gives the same from ``/metrics``. A counter's series missing
from a sample counts as 0 there (the workspace had not counted it yet). A stored row is a run
of unchanged samples, read back as the readings one row per sample would have given.
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

from playground.front.charts import LineChart, line_chart
from playground.metrics import history
from playground.metrics.models import MetricsSample
from playground.metrics.window import (
    Step,
    histogram_quantile,
    increase,
    steps,
    time_average,
)

TOP_PLUGINS = 10
ALL_PROFILES = ""
QUEUES = ("active", "backoff", "unschedulable", "gated")
"""scheduler_pending_pods's queues, in the queue board's order."""


@dataclass(frozen=True, slots=True)
class Window:
    value: str
    """As in the URL (``?window=15m``) and in PromQL ranges."""
    label: str
    seconds: int
    step: int
    """Seconds between two points of the charts (a rate over ``step`` each)."""
    refresh: int = 10
    """Seconds between two reloads of the page's body: a sample's worth for short windows,
    less often for long ones (a day's samples take a second or two to add up)."""

    @property
    def step_range(self) -> str:
        """The step as a PromQL range ("30s", "2m")."""
        return f"{self.step // 60}m" if self.step % 60 == 0 else f"{self.step}s"


WINDOWS = (
    Window("5m", "5 min", 300, 20),
    Window("15m", "15 min", 900, 30),
    Window("1h", "1 h", 3600, 120),
    Window("6h", "6 h", 21600, 600, refresh=60),
    Window("24h", "24 h", 86400, 1800, refresh=60),
)
DEFAULT_WINDOW = WINDOWS[1]


@dataclass(frozen=True, slots=True)
class Reading:
    """One stored sample: when, and the series in ``history``'s form."""

    time: float
    values: dict[str, Any]


@dataclass(frozen=True, slots=True)
class AttemptTotal:
    result: str
    count: float
    per_second: float | None


@dataclass(frozen=True, slots=True)
class PluginRow:
    plugin: str
    average: float
    """Pod-seconds over the window's samples divided by the time they cover."""
    peak: float
    now: float


@dataclass(slots=True)
class MetricsTab:
    """What the page shows for one window and profile."""

    workspace_id: int
    window: Window = DEFAULT_WINDOW
    profile: str = ALL_PROFILES
    profiles: list[str] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)
    """Query values refused (each names its field); the defaults were used."""
    samples: int = 0
    covered: float = 0.0
    """Seconds from the window's first sample to its last."""
    starts_late: bool = False
    """The history begins after the window's start: the window covers less."""
    latest: datetime | None = None
    attempts: list[AttemptTotal] = field(default_factory=list)
    p50: float | None = None
    p99: float | None = None
    pending: list[tuple[str, float]] = field(default_factory=list)
    plugins: list[PluginRow] = field(default_factory=list)
    charts: dict[str, LineChart] = field(default_factory=dict)

    @property
    def windows(self) -> tuple[Window, ...]:
        return WINDOWS

    @property
    def p50_text(self) -> str:
        return duration_text(self.p50)

    @property
    def p99_text(self) -> str:
        return duration_text(self.p99)

    @property
    def covered_text(self) -> str:
        """How long the history in the window is, in the window's units."""
        if self.covered < 120:
            return f"{self.covered:.0f} s"
        if self.covered < 7200:
            return f"{self.covered / 60:.0f} min"
        return f"{self.covered / 3600:.1f} h"

    @property
    def promql(self) -> dict[str, str]:
        """The PromQL giving each number and line from /metrics."""
        return promql(self.workspace_id, self.profile, self.window)


def metrics_tab(
    workspace_id: int, query: Mapping[str, str], now: float | None = None
) -> MetricsTab:
    """The tab for ``?window=`` and ``?profile=`` (defaults, with an error, when unknown)."""
    now = time.time() if now is None else now
    tab = MetricsTab(workspace_id)
    tab.window = _window(query.get("window"), tab.errors)
    readings = _readings(workspace_id, now - tab.window.seconds)
    tab.profiles = _profiles(readings)
    tab.profile = _profile(query.get("profile"), tab.profiles, tab.errors)
    if not readings:
        return tab
    tab.samples = len(readings)
    tab.covered = readings[-1].time - readings[0].time
    tab.starts_late = readings[0].time > now - tab.window.seconds + tab.window.step
    tab.latest = datetime.fromtimestamp(readings[-1].time, tz=UTC)
    series = Series(
        _series(readings, _attempts(tab.profile)), _series(readings, _buckets(tab.profile))
    )
    _totals(tab, readings, series)
    _charts(tab, readings, series, now)
    return tab


def _window(value: str | None, errors: list[str]) -> Window:
    if not value:
        return DEFAULT_WINDOW
    for window in WINDOWS:
        if window.value == value:
            return window
    choices = ", ".join(window.value for window in WINDOWS)
    errors.append(f'window: unknown value "{value}": choose one of {choices}')
    return DEFAULT_WINDOW


def _profile(value: str | None, seen: list[str], errors: list[str]) -> str:
    if not value or value in seen:
        return value or ALL_PROFILES
    errors.append(f'profile: no samples of profile "{value}" in this window: all are shown')
    return ALL_PROFILES


def _readings(workspace_id: int, since: float) -> list[Reading]:
    """The samples since ``since``, each stored run expanded into the readings it stands for."""
    rows = MetricsSample.objects.filter(
        workspace_id=workspace_id, until__gte=datetime.fromtimestamp(since, tz=UTC)
    ).order_by("taken_at")
    return [
        Reading(at, values)
        for taken_at, until, values in rows.values_list("taken_at", "until", "values")
        for at in run_times(taken_at.timestamp(), until.timestamp(), since)
    ]


def run_times(taken_at: float, until: float, since: float) -> list[float]:
    """The times of a run's samples from ``since`` on: every SAMPLE_INTERVAL from its first
    sample, and its last sample at ``until`` (the service samples about every interval, so
    these are the times one row per sample would have had, up to the service's jitter)."""
    skipped = max(0, math.ceil((since - taken_at) / history.SAMPLE_INTERVAL))
    first = taken_at + skipped * history.SAMPLE_INTERVAL
    count = max(0, math.ceil((until - first) / history.SAMPLE_INTERVAL))
    return [first + index * history.SAMPLE_INTERVAL for index in range(count)] + [until]


def _profiles(readings: list[Reading]) -> list[str]:
    seen = {
        row[1]
        for reading in readings
        for family in ("attempts", "durations", "unschedulable")
        for row in reading.values.get(family, [])
    }
    return sorted(seen)


# ----------------------------------------------------------------------------------------------
# Series: one list of values per label set, aligned with the readings (0 where absent)


@dataclass(frozen=True, slots=True)
class Series:
    """The counters' series the totals and the charts both read."""

    attempts: dict[tuple[Any, ...], list[float]]
    buckets: dict[tuple[Any, ...], list[float]]


Extract = Callable[[dict[str, Any]], dict[tuple[Any, ...], float]]


def _series(readings: list[Reading], extract: Extract) -> dict[tuple[Any, ...], list[float]]:
    columns: dict[tuple[Any, ...], list[float]] = {}
    for index, reading in enumerate(readings):
        for key, value in extract(reading.values).items():
            column = columns.get(key)
            if column is None:
                column = columns[key] = [0.0] * len(readings)
            column[index] = value
    return columns


def _attempts(profile: str) -> Extract:
    """(result, profile) -> attempts, of the profile (every profile's for ALL_PROFILES)."""
    return lambda values: {
        (result, name): count
        for result, name, count in values.get("attempts", [])
        if profile in (ALL_PROFILES, name)
    }


def _buckets(profile: str) -> Extract:
    """(result, profile, le) -> the duration histogram's cumulative count."""

    def extract(values: dict[str, Any]) -> dict[tuple[Any, ...], float]:
        bounds = [*values.get("le", history.BOUNDS), math.inf]
        return {
            (result, name, bound): count
            for result, name, counts, _ in values.get("durations", [])
            if profile in (ALL_PROFILES, name)
            for bound, count in zip(bounds, counts, strict=True)
        }

    return extract


def _unschedulable(profile: str) -> Extract:
    return lambda values: {
        (plugin, name): pods
        for plugin, name, pods in values.get("unschedulable", [])
        if profile in (ALL_PROFILES, name)
    }


def _pending(values: dict[str, Any]) -> dict[tuple[Any, ...], float]:
    return {(queue,): pods for queue, pods in values.get("pending", [])}


def _increase_by(
    series: dict[tuple[Any, ...], list[float]], group: int, first: int = 0, stop: int | None = None
) -> dict[Any, float]:
    """Each series' increase over readings[first:stop], summed by the label at ``group``."""
    totals: dict[Any, float] = {}
    for key, values in series.items():
        totals[key[group]] = totals.get(key[group], 0.0) + increase(values[first:stop])
    return totals


def _quantile(q: float, buckets: dict[Any, float]) -> float | None:
    return histogram_quantile(q, list(buckets.items()))


# ----------------------------------------------------------------------------------------------
# The numbers of the window, and its charts


def _totals(tab: MetricsTab, readings: list[Reading], series: Series) -> None:
    attempts = _increase_by(series.attempts, group=0)
    tab.attempts = [
        AttemptTotal(result, count, count / tab.covered if tab.covered > 0 else None)
        for result, count in sorted(attempts.items())
    ]
    buckets = _increase_by(series.buckets, group=2)
    tab.p50, tab.p99 = _quantile(0.5, buckets), _quantile(0.99, buckets)
    tab.pending = sorted((queue, pods) for (queue,), pods in _pending(readings[-1].values).items())
    tab.plugins = _top_plugins(readings, tab.profile)


def _top_plugins(readings: list[Reading], profile: str) -> list[PluginRow]:
    """Plugins by their average of unschedulable pods over the window, the most first."""
    by_plugin: dict[str, list[float]] = {}
    for (plugin, _), values in _series(readings, _unschedulable(profile)).items():
        summed = by_plugin.setdefault(plugin, [0.0] * len(readings))
        by_plugin[plugin] = [a + b for a, b in zip(summed, values, strict=True)]
    times = [reading.time for reading in readings]
    rows = [
        PluginRow(
            plugin,
            time_average(list(zip(times, values, strict=True))) or 0.0,
            max(values),
            values[-1],
        )
        for plugin, values in by_plugin.items()
    ]
    rows.sort(key=lambda row: (-row.average, row.plugin))
    return rows[:TOP_PLUGINS]


def _charts(tab: MetricsTab, readings: list[Reading], series: Series, now: float) -> None:
    times = [reading.time for reading in readings]
    window = tab.window
    found = [s for s in steps(times, now, window.seconds, window.step) if s.stop - s.first >= 1]
    attempts, buckets = series.attempts, series.buckets
    rates: dict[str, list[tuple[float, float]]] = {}
    latency: dict[str, list[tuple[float, float]]] = {"p50": [], "p99": []}
    for step in found:
        span = times[step.stop - 1] - times[step.first]
        if span <= 0:
            continue
        for result, count in _increase_by(attempts, 0, step.first, step.stop).items():
            rates.setdefault(result, []).append((step.end, count / span))
        step_buckets = _increase_by(buckets, 2, step.first, step.stop)
        for name, q in (("p50", 0.5), ("p99", 0.99)):
            value = _quantile(q, step_buckets)
            if value is not None:
                latency[name].append((step.end, value))
    tab.charts = {
        "attempts": line_chart(rates, now, window.seconds),
        "latency": line_chart(latency, now, window.seconds),
        "pending": line_chart(_pending_lines(readings, found, window), now, window.seconds),
    }


def _pending_lines(
    readings: list[Reading], found: list[Step], window: Window
) -> dict[str, list[tuple[float, float]]]:
    """Each queue's pods at every step's last sample (none for a step without a sample)."""
    lines: dict[str, list[tuple[float, float]]] = {queue: [] for queue in QUEUES}
    for step in found:
        reading = readings[step.stop - 1]
        if reading.time <= step.end - window.step:
            continue
        pending = {queue: pods for queue, pods in reading.values.get("pending", [])}
        for queue in QUEUES:
            lines[queue].append((step.end, pending.get(queue, 0.0)))
    return lines


def promql(workspace_id: int, profile: str, window: Window) -> dict[str, str]:
    """PromQL over /metrics for each number and chart of the tab."""
    selector = f'workspace="{workspace_id}"' + (f',profile="{profile}"' if profile else "")
    attempts = f"scheduler_schedule_attempts_total{{{selector}}}"
    buckets = f"scheduler_scheduling_attempt_duration_seconds_bucket{{{selector}}}"
    pending = f'scheduler_pending_pods{{workspace="{workspace_id}"}}'
    unschedulable = f"scheduler_unschedulable_pods{{{selector}}}"
    step, span = window.step_range, window.value

    def quantile(q: str, within: str) -> str:
        return f"histogram_quantile({q}, sum by (le) (rate({buckets}[{within}])))"

    return {
        "attempts": f"sum by (result) (increase({attempts}[{span}]))",
        "attempts_rate": f"sum by (result) (rate({attempts}[{step}]))",
        "p50": quantile("0.5", span),
        "p99": quantile("0.99", span),
        "latency": f"{quantile('0.5', step)}\n{quantile('0.99', step)}",
        "pending": f"sum by (queue) ({pending})",
        "plugins": (
            f"topk({TOP_PLUGINS}, avg_over_time(sum by (plugin) ({unschedulable})[{span}:]))"
        ),
    }


def duration_text(seconds: float | None) -> str:
    """Seconds in words a person reads at a glance: "4.2 ms", "1.35 s", "—" for none."""
    if seconds is None:
        return "—"
    if seconds < 1:
        return f"{seconds * 1000:.3g} ms"
    return f"{seconds:.3g} s"
