"""The observer API: every extension point and plugin call can be reported as a TraceEvent.

The runtime checks ``framework.observer is None`` before doing any tracing work (not even
reading the clock), so tracing costs nothing when it is off. The schema is documented in
docs/trace.md and shared by the CLI's JSON, the stored traces and the websocket stream.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from dataclasses import dataclass, field, fields
from time import perf_counter
from typing import Any, NamedTuple, Protocol

PLUGIN = "plugin"
"""Event kind: one call of one plugin (for Filter and Score: on one node)."""
EXTENSION_POINT = "extensionPoint"
"""Event kind: one run of a whole extension point (all its plugins)."""
PLUGIN_BATCH = "pluginBatch"
"""Event kind: one call of one plugin's batch form over several nodes (Filter, Score)."""


@dataclass(slots=True)
class TraceEvent:
    """One plugin call or one extension point run for one pod."""

    kind: str
    point: str
    pod: str
    profile: str
    code: str
    plugin: str = ""
    node: str | None = None
    reasons: list[str] = field(default_factory=list)
    score: int | None = None
    duration: float = 0.0
    data: dict[str, Any] = field(default_factory=dict)
    stopped: float = 0.0
    """Extension points: seconds an observer held the point stopped (a debugger stop), not
    counted in ``duration``."""

    def to_dict(self) -> dict[str, Any]:
        """The JSON shape of docs/trace.md (camelCase keys, empty fields left out).

        Values are shared with the event, not copied: events are written once and then only
        read, and stored traces convert tens of thousands of them per second.
        """
        out = {
            name: value
            for name in _EVENT_FIELDS
            if (value := getattr(self, name)) is not None and value != [] and value != {}
        }
        out["durationSeconds"] = out.pop("duration", 0.0)
        stopped = out.pop("stopped")
        if stopped:
            out["stoppedSeconds"] = stopped
        return out

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> TraceEvent:
        """The event ``to_dict`` gave (a stored trace read back, to step through it again).

        Fields ``to_dict`` left out because they were empty get their defaults back; ``pod``
        and ``profile`` default to "" too, for events written by hand. Values are shared with
        the dict, as ``to_dict`` shares them with the event.
        """
        return cls(
            kind=data["kind"],
            point=data["point"],
            pod=data.get("pod", ""),
            profile=data.get("profile", ""),
            code=data["code"],
            plugin=data.get("plugin", ""),
            node=data.get("node"),
            reasons=data.get("reasons", []),
            score=data.get("score"),
            duration=data.get("durationSeconds", 0.0),
            data=data.get("data", {}),
            stopped=data.get("stoppedSeconds", 0.0),
        )


_EVENT_FIELDS = tuple(f.name for f in fields(TraceEvent))


# An extension point's time, less the time an observer held it stopped -------------------------


class _Held(threading.local):
    seconds = 0.0
    """Seconds this thread's scheduling was held stopped by observers, in all."""


_held = _Held()


class PointStart(NamedTuple):
    """When an extension point began: the clock, and how long this thread had been held."""

    clock: float
    held: float


def hold(seconds: float) -> None:
    """Counts ``seconds`` an observer held this thread's scheduling stopped (the debugger,
    waiting for a person): the extension point under way does not count them as its own.
    Per thread, as each scheduler (and each binding cycle) runs its points on one."""
    _held.seconds += seconds


def point_start() -> PointStart:
    return PointStart(perf_counter(), _held.seconds)


def point_time(start: PointStart) -> tuple[float, float]:
    """The point's own seconds since ``start``, and the seconds it was held stopped."""
    stopped = _held.seconds - start.held
    return perf_counter() - start.clock - stopped, stopped


def per_node_events(event: TraceEvent) -> list[TraceEvent]:
    """A batch event as the ``plugin`` events of the same calls made node by node.

    Other events, and a failed Score batch (which names no node), come back as they are. Each
    node gets an equal share of the batch's duration.
    """
    scores = event.data.get("scores")
    if event.kind != PLUGIN_BATCH or (event.point == "score" and scores is None):
        return [event]
    nodes = event.data.get("nodes", [])
    failed = event.data.get("failed", {})
    share = event.duration / len(nodes) if nodes else 0.0
    events = []
    for index, node in enumerate(nodes):
        failure = failed.get(node)
        events.append(
            TraceEvent(
                kind=PLUGIN,
                point=event.point,
                pod=event.pod,
                profile=event.profile,
                code=failure["code"] if failure else "Success",
                plugin=event.plugin,
                node=node,
                reasons=list(failure["reasons"]) if failure else [],
                score=scores[index] if scores is not None else None,
                duration=share,
            )
        )
    return events


def score_cells(data: dict[str, Any]) -> dict[str, dict[str, dict[str, int]]]:
    """plugin -> node -> ``{raw, normalized, weighted}`` from a Score extension point's data.

    The event carries columns (docs/trace.md); this is the per-node view the tables draw.
    Traces stored before the columns were introduced carry this view as ``scores`` already.
    """
    if "scores" in data:
        return data["scores"]
    nodes = data.get("nodes", [])
    weights = data.get("weights", {})
    normalized_columns = data.get("normalized", {})
    return {
        plugin: {
            node: {"raw": raw, "normalized": score, "weighted": score * weights[plugin]}
            for node, raw, score in zip(nodes, raw_column, normalized_columns[plugin], strict=True)
        }
        for plugin, raw_column in data.get("raw", {}).items()
    }


def score_totals(data: dict[str, Any]) -> dict[str, int]:
    """node -> sum of weighted scores, from a Score extension point's data (either form)."""
    totals = data.get("totals", {})
    if isinstance(totals, dict):
        return totals
    return dict(zip(data.get("nodes", []), totals, strict=True))


class Observer(Protocol):
    def on_event(self, event: TraceEvent) -> None: ...


class Recorder:
    """An observer that keeps every event in a list (tests, the CLI, stored traces)."""

    def __init__(self) -> None:
        self.events: list[TraceEvent] = []

    def on_event(self, event: TraceEvent) -> None:
        self.events.append(event)

    def of(self, kind: str | None = None, point: str | None = None) -> list[TraceEvent]:
        return [
            e
            for e in self.events
            if (kind is None or e.kind == kind) and (point is None or e.point == point)
        ]


class CallbackObserver:
    """Adapts a plain function to the Observer protocol."""

    def __init__(self, callback: Callable[[TraceEvent], None]) -> None:
        self._callback = callback

    def on_event(self, event: TraceEvent) -> None:
        self._callback(event)


class DurationRecorder:
    """Aggregates durations per (extension point, plugin, code): the engine's metrics.

    Upstream exports these as Prometheus histograms; here they are counts and sums, enough
    to answer "which plugin is slow" in the playground and the benchmarks.
    """

    def __init__(self) -> None:
        self.count: dict[tuple[str, str, str], int] = {}
        self.total_seconds: dict[tuple[str, str, str], float] = {}

    def on_event(self, event: TraceEvent) -> None:
        key = (event.point, event.plugin, event.code)
        self.count[key] = self.count.get(key, 0) + 1
        self.total_seconds[key] = self.total_seconds.get(key, 0.0) + event.duration


class FanOut:
    """Sends every event to several observers."""

    def __init__(self, *observers: Observer) -> None:
        self.observers = list(observers)

    def on_event(self, event: TraceEvent) -> None:
        for observer in self.observers:
            observer.on_event(event)
