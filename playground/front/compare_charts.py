"""The result page's two charts as inline SVG geometry (no library): a utilization histogram
per profile (ten bins of 10 %, CPU and memory side by side) and a node-by-profile heatmap of
requested CPU (a cell's shade: its fraction; its title: both fractions)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

BINS = 10
HIST_WIDTH, HIST_HEIGHT, HIST_BOTTOM, HIST_TOP = 320, 160, 24, 8
BAR_GAP = 2
CELL_WIDTH, CELL_HEIGHT, NODE_LABEL_WIDTH, HEAD_HEIGHT = 90, 14, 160, 18
MAX_HEATMAP_NODES = 300
"""Rows the heatmap draws (the busiest first by the first profile); the rest are counted."""


@dataclass(frozen=True, slots=True)
class Bar:
    x: float
    y: float
    width: float
    height: float
    count: int
    label: str
    series: str


@dataclass(frozen=True, slots=True)
class Histogram:
    name: str
    bars: list[Bar]
    peak: int
    width: int = HIST_WIDTH
    height: int = HIST_HEIGHT
    baseline: int = HIST_HEIGHT - HIST_BOTTOM


def histogram(name: str, counts: dict[str, list[int]]) -> Histogram:
    """Bars of nodes per utilization bin, CPU then memory in each bin."""
    series = [key for key in ("cpu", "memory") if key in counts]
    peak = max([1, *(count for key in series for count in counts[key])])
    slot = HIST_WIDTH / BINS
    width = (slot - BAR_GAP) / max(1, len(series))
    plot = HIST_HEIGHT - HIST_BOTTOM - HIST_TOP
    bars = []
    for which, key in enumerate(series):
        for index, count in enumerate(counts[key][:BINS]):
            height = plot * count / peak
            bars.append(
                Bar(
                    x=round(index * slot + which * width, 2),
                    y=round(HIST_HEIGHT - HIST_BOTTOM - height, 2),
                    width=round(width, 2),
                    height=round(height, 2),
                    count=count,
                    label=f"{index * 10}-{index * 10 + 10} %",
                    series=key,
                )
            )
    return Histogram(name, bars, peak)


@dataclass(frozen=True, slots=True)
class HeatCell:
    x: int
    y: int
    shade: int
    """0..100: how dark (the CPU fraction in percent, capped)."""
    title: str

    @property
    def fill(self) -> str:
        """White for an empty node to a deep blue for a full one."""
        return f"hsl(212, 70%, {97 - self.shade * 0.6:.0f}%)"


@dataclass(frozen=True, slots=True)
class Heatmap:
    columns: list[tuple[int, str]]
    """(x, profile name) of every column."""
    nodes: list[tuple[int, str]]
    """(y, node name) of every row drawn."""
    cells: list[HeatCell]
    width: int
    height: int
    left_out: int


def heatmap(variants: list[dict[str, Any]]) -> Heatmap:
    """Rows: nodes (most requested CPU under the first profile first); columns: profiles."""
    per_variant = [(v.get("utilization") or {}).get("nodes") or {} for v in variants]
    every = set().union(*(nodes.keys() for nodes in per_variant)) if per_variant else set()
    first = per_variant[0] if per_variant else {}
    ordered = sorted(every, key=lambda node: (-(first.get(node) or {}).get("cpu", 0.0), node))
    shown = ordered[:MAX_HEATMAP_NODES]
    cells = []
    rows = []
    for row, node in enumerate(shown):
        y = HEAD_HEIGHT + row * CELL_HEIGHT
        rows.append((y, node))
        for column, nodes in enumerate(per_variant):
            use = nodes.get(node) or {}
            cpu, memory = use.get("cpu", 0.0), use.get("memory", 0.0)
            cells.append(
                HeatCell(
                    x=NODE_LABEL_WIDTH + column * CELL_WIDTH,
                    y=y,
                    shade=max(0, min(100, round(cpu * 100))),
                    title=f"{node} · {variants[column].get('name')}: CPU {cpu * 100:.0f} %, "
                    f"memory {memory * 100:.0f} %",
                )
            )
    return Heatmap(
        columns=[
            (NODE_LABEL_WIDTH + column * CELL_WIDTH, variant.get("name", ""))
            for column, variant in enumerate(variants)
        ],
        nodes=rows,
        cells=cells,
        width=NODE_LABEL_WIDTH + CELL_WIDTH * len(variants),
        height=HEAD_HEIGHT + CELL_HEIGHT * len(shown),
        left_out=len(ordered) - len(shown),
    )
