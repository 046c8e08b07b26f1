"""The explain panels' charts, drawn as inline SVG by the templates from these shapes.

Two charts, for what people would rather look at than read:

- the reasons histogram: one bar per (plugin, reason), its length the share of the nodes it
  rejected, the plugin that rejected most drawn in its own colour;
- a closest node's usage: per resource, one bar on a scale that fits both the node's
  allocatable and what the pod would need there: what other pods request, the part of the
  pod's request that fits in the free room, and the part that does not (the missing amount)
  past the allocatable mark, in another colour.

Lengths are percentages of the SVG's view box (``viewBox="0 0 100 ..."``), so the bars scale
with the page and the templates only place rectangles.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

MAX_REASON_BARS = 12
"""Histogram rows shown; the rest are counted in one line (hostname affinity can give each
node its own reason)."""


@dataclass(frozen=True, slots=True)
class ReasonBar:
    plugin: str
    reason: str
    nodes: int
    percent: float
    """The bar's length: the share of the evaluated nodes it rejected."""
    most_rejecting: bool


@dataclass(frozen=True, slots=True)
class Histogram:
    bars: list[ReasonBar]
    hidden: int
    """Reasons left out (fewer nodes each than every bar shown)."""
    hidden_nodes: int


def reasons_histogram(
    reasons: Iterable[Mapping[str, Any]], nodes: int, most_rejecting: str | None
) -> Histogram:
    """The explanation's reasons as bars, most nodes first (then plugin and reason), at most
    ``MAX_REASON_BARS`` of them."""
    ordered = sorted(reasons, key=lambda r: (-r["nodes"], r["plugin"], r["reason"]))
    total = max(nodes, max((r["nodes"] for r in ordered), default=0), 1)
    bars = [
        ReasonBar(
            plugin=r["plugin"],
            reason=r["reason"],
            nodes=r["nodes"],
            percent=round(100 * r["nodes"] / total, 2),
            most_rejecting=r["plugin"] == most_rejecting,
        )
        for r in ordered[:MAX_REASON_BARS]
    ]
    rest = ordered[MAX_REASON_BARS:]
    return Histogram(bars, len(rest), sum(r["nodes"] for r in rest))


@dataclass(frozen=True, slots=True)
class UsageBar:
    """One resource of a closest node: segments as (start, width) in percent of the scale."""

    name: str
    unit: str
    requested: int
    """What the pod asks for."""
    free: int
    allocatable: int
    used: tuple[float, float]
    fits: tuple[float, float]
    missing: tuple[float, float]
    allocatable_at: float
    """Where the allocatable mark is drawn."""

    @property
    def missing_amount(self) -> int:
        return max(0, self.requested - max(self.free, 0))

    @property
    def others(self) -> int:
        """What the node's other pods request (allocatable minus free)."""
        return max(0, self.allocatable - self.free)


def usage_bar(resource: Mapping[str, Any]) -> UsageBar:
    """The bar of one ``closest[].resources`` entry (``name``, ``requested``, ``free``,
    ``allocatable``, ``unit``)."""
    requested, free = int(resource["requested"]), int(resource["free"])
    allocatable = int(resource["allocatable"])
    room = max(free, 0)
    others = max(0, allocatable - room)
    fitting = min(requested, room)
    missing = max(0, requested - room)
    scale = max(allocatable, others + requested, 1)

    def span(start: int, width: int) -> tuple[float, float]:
        return round(100 * start / scale, 2), round(100 * width / scale, 2)

    return UsageBar(
        name=resource["name"],
        unit=resource.get("unit", ""),
        requested=requested,
        free=free,
        allocatable=allocatable,
        used=span(0, others),
        fits=span(others, fitting),
        missing=span(others + fitting, missing),
        allocatable_at=round(100 * allocatable / scale, 2),
    )
