"""Line charts over a time window, drawn as inline SVG (no library): the queue sizes here,
the Metrics tab's series (``line_chart``).

Samples are the service's ``[[time, active, backoff, unschedulable, gated], ...]`` (samples
stored before gated pods were counted apart lack the last value: 0). The chart shows a window
of time ending at the latest sample (1 minute, 5 minutes, ... or all the samples kept): time
on x, with ticks in seconds or minutes before that sample; pods on y, from 0 to a round number
at or above the window's peak. A burst of a few seconds then spans a visible part of the
chart, not a pixel of the whole history. Lines are clipped to the plot, so a line entering the
window from an earlier sample starts at its left edge.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field

WIDTH, HEIGHT = 900, 200
LEFT, RIGHT, TOP, BOTTOM = 56, 12, 12, 40
"""Margins around the plot, room for the axes' labels (view box units)."""
SERIES = ("active", "backoff", "unschedulable", "gated")
WINDOWS = (("60", "1 min", 60.0), ("300", "5 min", 300.0), ("600", "10 min", 600.0))
ALL = "all"
DEFAULT_WINDOW = "300"
SECOND_STEPS = (5, 10, 15, 30, 60)
MINUTE_STEPS = (1, 2, 5, 10, 15, 30, 60)
MAX_TICKS = 6
"""Time ticks at most, the latest sample's included."""


@dataclass(frozen=True, slots=True)
class Tick:
    position: float
    """x or y in the view box."""
    label: str


@dataclass(slots=True)
class LineChart:
    width: int = WIDTH
    height: int = HEIGHT
    left: int = LEFT
    top: int = TOP
    right: int = WIDTH - RIGHT
    bottom: int = HEIGHT - BOTTOM
    window: str = DEFAULT_WINDOW
    window_label: str = "5 min"
    error: str = ""
    """Why the window asked for was not used (the default was)."""
    lines: dict[str, str] = field(default_factory=dict)
    """Series name -> SVG polyline points ("x,y x,y ...")."""
    x_ticks: list[Tick] = field(default_factory=list)
    y_ticks: list[Tick] = field(default_factory=list)
    peak: int = 0
    """The most pods in one series within the window."""
    latest: dict[str, int] = field(default_factory=dict)

    @property
    def period(self) -> str:
        """The window in words ("peak 3 pods in the last 5 min"; "all": "in all the samples
        kept", not "in the last all")."""
        if self.window == ALL:
            return "all the samples kept"
        return f"the last {self.window_label}"

    @property
    def plot_width(self) -> int:
        return self.right - self.left

    @property
    def plot_height(self) -> int:
        return self.bottom - self.top

    @property
    def middle(self) -> int:
        """The plot's vertical middle, where the pods axis is titled."""
        return (self.top + self.bottom) // 2

    @property
    def windows(self) -> list[tuple[str, str]]:
        """(value, label) of every window a person can choose, "all" last."""
        return [(value, label) for value, label, _ in WINDOWS] + [(ALL, "all")]


def queue_chart(samples: Sequence[Sequence[float]], window: str | None = None) -> LineChart:
    """The chart of the samples within the window ("60", "300", "600" seconds or "all";
    the default when not given, and when unknown, saying so in ``error``)."""
    chart = LineChart()
    chart.window, chart.error = _window(window)
    chart.window_label = dict(chart.windows)[chart.window]
    if not samples:
        return chart
    samples = [_complete(sample) for sample in samples]
    end = samples[-1][0]
    span = _span(chart.window, samples)
    start = end - span
    shown = _from(samples, start)
    chart.peak = int(max(max(sample[1:]) for sample in shown if sample[0] >= start))
    lines = {
        name: [(sample[0], sample[1 + index]) for sample in shown]
        for index, name in enumerate(SERIES)
    }
    _draw(chart, lines, end, span, smallest_step=1)
    chart.latest = {name: int(samples[-1][1 + index]) for index, name in enumerate(SERIES)}
    return chart


def line_chart(
    lines: dict[str, Sequence[tuple[float, float]]], end: float, span: float
) -> LineChart:
    """A chart of (time, value) lines over the ``span`` seconds ending at ``end``; the y axis
    goes from 0 to a round number at or above the highest value."""
    chart = LineChart()
    _draw(chart, lines, end, max(span, 1.0))
    return chart


def _draw(
    chart: LineChart,
    lines: dict[str, Sequence[tuple[float, float]]],
    end: float,
    span: float,
    smallest_step: float = 0.0,
) -> None:
    highest = max((value for points in lines.values() for _, value in points), default=0.0)
    top, chart.y_ticks = _value_ticks(highest, smallest_step)
    chart.x_ticks = _time_ticks(span)
    start = end - span

    def point(time: float, value: float) -> str:
        return f"{_x(time, start, span):.1f},{_y(value, top):.1f}"

    chart.lines = {
        name: " ".join(point(time, value) for time, value in points)
        for name, points in lines.items()
    }


def _window(window: str | None) -> tuple[str, str]:
    known = [value for value, _, _ in WINDOWS] + [ALL]
    if window is None or window == "":
        return DEFAULT_WINDOW, ""
    if window in known:
        return window, ""
    choices = ", ".join(known)
    return DEFAULT_WINDOW, f'window: unknown value "{window}": choose one of {choices}'


def _span(window: str, samples: list[list[float]]) -> float:
    """Seconds the x axis covers: the window's, or all the samples' (at least one second)."""
    seconds = dict((value, s) for value, _, s in WINDOWS).get(window)
    if seconds is None:
        seconds = samples[-1][0] - samples[0][0]
    return max(seconds, 1.0)


def _from(samples: list[list[float]], start: float) -> list[list[float]]:
    """The samples from ``start`` on, and the one before it: the lines enter from the left."""
    first = next((i for i, sample in enumerate(samples) if sample[0] >= start), len(samples))
    return samples[max(first - 1, 0) :]


def _x(time: float, start: float, span: float) -> float:
    return LEFT + (WIDTH - LEFT - RIGHT) * (time - start) / span


def _y(value: float, top: float) -> float:
    return HEIGHT - BOTTOM - (HEIGHT - TOP - BOTTOM) * value / top


def _value_ticks(peak: float, smallest_step: float = 0.0) -> tuple[float, list[Tick]]:
    """The y axis's top (a round number at or above the peak) and its ticks, every step."""
    step = _round_step(peak, smallest_step)
    steps = max(1, math.ceil(peak / step - 1e-9))
    values = [round(step * index, 12) for index in range(steps + 1)]
    return values[-1], [Tick(_y(value, values[-1]), f"{value:g}") for value in values]


def _round_step(peak: float, smallest: float = 0.0) -> float:
    """1, 2 or 5 times a power of ten (at least ``smallest``): the smallest giving at most 4
    steps up to the peak."""
    magnitude = 10.0 ** math.floor(math.log10(peak / 4)) if peak > 0 else 1.0
    while True:
        for factor in (1, 2, 5):
            step = factor * magnitude
            if peak <= 4 * step and step >= smallest:
                return step
        magnitude *= 10


def _time_ticks(span: float) -> list[Tick]:
    """Ticks back from the latest sample (0), in seconds up to two minutes, then minutes."""
    unit, size, steps = ("s", 1, SECOND_STEPS) if span <= 120 else ("min", 60, MINUTE_STEPS)
    step = next((s for s in steps if span / (s * size) < MAX_TICKS), steps[-1])
    ticks = []
    for ago in range(0, int(span // size) + 1, step):
        label = f"\N{MINUS SIGN}{ago} {unit}" if ago else f"0 {unit}"
        ticks.append(Tick(_x(span - ago * size, 0.0, span), label))
    return ticks[::-1]


def _complete(sample: Sequence[float]) -> list[float]:
    """The sample with a size for every series (missing sizes are 0)."""
    return [*sample, *[0] * (1 + len(SERIES) - len(sample))][: 1 + len(SERIES)]
