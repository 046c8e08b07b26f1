"""A small line chart of the queue sizes over time, drawn as inline SVG (no library).

Samples are the service's ``[[time, active, backoff, unschedulable, gated], ...]`` (samples
stored before gated pods were counted apart lack the last value: 0); the chart maps time to x
and size to y inside a fixed view box, which the browser scales to the page.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

WIDTH, HEIGHT, PAD = 600, 140, 4
SERIES = ("active", "backoff", "unschedulable", "gated")


@dataclass(slots=True)
class LineChart:
    width: int = WIDTH
    height: int = HEIGHT
    lines: dict[str, str] = field(default_factory=dict)
    """Series name -> SVG polyline points ("x,y x,y ...")."""
    peak: int = 0
    seconds: float = 0.0
    latest: dict[str, int] = field(default_factory=dict)


def queue_chart(samples: Sequence[Sequence[float]]) -> LineChart:
    """The chart of the samples; an empty chart when there are none."""
    if not samples:
        return LineChart()
    samples = [_complete(sample) for sample in samples]
    start, end = samples[0][0], samples[-1][0]
    span = max(end - start, 1e-9)
    peak = max(max(sample[1:]) for sample in samples)
    top = max(peak, 1)

    def point(time: float, value: float) -> str:
        x = PAD + (WIDTH - 2 * PAD) * ((time - start) / span if len(samples) > 1 else 1)
        y = HEIGHT - PAD - (HEIGHT - 2 * PAD) * value / top
        return f"{x:.1f},{y:.1f}"

    lines = {
        name: " ".join(point(sample[0], sample[1 + index]) for sample in samples)
        for index, name in enumerate(SERIES)
    }
    latest = {name: int(samples[-1][1 + index]) for index, name in enumerate(SERIES)}
    return LineChart(lines=lines, peak=int(peak), seconds=end - start, latest=latest)


def _complete(sample: Sequence[float]) -> list[float]:
    """The sample with a size for every series (missing sizes are 0)."""
    return [*sample, *[0] * (1 + len(SERIES) - len(sample))][: 1 + len(SERIES)]
