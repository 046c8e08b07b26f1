"""One variant of a comparison: the inputs scheduled under one configuration, summarized.

``run_variant`` is what each process (or Celery task) of a comparison runs. Its result holds
where every attempted pod went, the report's measures (computed here, beside the cluster, so
only a small summary crosses the process boundary) and, for the pods asked for, every attempt
with its trace events.
"""

from __future__ import annotations

import gc
from collections.abc import Callable, Collection, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from time import perf_counter
from typing import Any

from framework.api.errors import ObjectError
from framework.compare.errors import Cancelled, CompareError
from framework.compare.inputs import CompareInputs
from framework.compare.outcomes import placements, pod_counts
from framework.compare.replay import replay
from framework.compare.skew import skew
from framework.compare.utilization import utilization
from framework.config.load import ConfigError
from framework.features import FeatureGateError
from framework.plugins.registry import in_tree_registry
from framework.runtime.framework import FrameworkError
from framework.simulator import (
    AttemptReport,
    Simulation,
    SimulationError,
    check_simulated_gates,
    checked_configuration,
)
from framework.util.percentile import percentile

Progress = Callable[[int, int], None]
ShouldStop = Callable[[], bool]
CHECK_EVERY_SECONDS = 0.5
"""How often (wall clock) a run reports progress and asks whether to stop."""
_INPUT_ERRORS = (
    OSError,
    ConfigError,
    ObjectError,
    FrameworkError,
    SimulationError,
    FeatureGateError,
)


@dataclass(frozen=True)
class VariantSpec:
    """A configuration to compare, and the name reports give it."""

    name: str
    config_text: str


@dataclass
class VariantResult:
    """What one variant's run left: placements, the report's measures and the traced
    attempts. ``to_dict`` / ``from_dict`` carry it between processes as plain JSON."""

    name: str
    placements: dict[str, str | None]
    attempts: dict[str, list[dict[str, Any]]] = field(default_factory=dict)
    measures: dict[str, Any] = field(default_factory=dict)
    """The variant's entry of the report (``pods``, ``utilization``, ...), without its name."""

    def to_dict(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "placements": dict(self.placements),
            "attempts": {pod: list(attempts) for pod, attempts in self.attempts.items()},
            "measures": self.measures,
        }

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> VariantResult:
        return cls(
            name=data["name"],
            placements=dict(data["placements"]),
            attempts={pod: list(attempts) for pod, attempts in data.get("attempts", {}).items()},
            measures=dict(data.get("measures", {})),
        )


def run_variant(
    spec: VariantSpec,
    inputs: CompareInputs,
    *,
    trace_pods: frozenset[str] = frozenset(),
    progress: Progress | None = None,
    should_stop: ShouldStop | None = None,
) -> VariantResult:
    """Schedules the inputs under the spec's configuration (the pending pods, then the
    recording's changes at their times) and summarizes the run. ``trace_pods`` keeps those
    pods' attempts with their trace events; tracing is off for the others. CompareError for
    a configuration or objects that cannot be run; Cancelled when ``should_stop`` says so."""
    meter = _CycleMeter(progress, should_stop)
    with _collector_paused():
        simulation = _simulation(spec, inputs, trace_pods, meter)
    meter.follow(simulation, _pods_to_schedule(simulation, inputs))
    if inputs.changes:
        replay(simulation, inputs.changes)
    else:
        simulation.run()
    meter.report()
    return _result(spec.name, simulation, trace_pods, meter.cycle_seconds)


def _simulation(
    spec: VariantSpec, inputs: CompareInputs, trace_pods: Collection[str], meter: _CycleMeter
) -> Simulation:
    """The simulation, or CompareError saying whether the feature gates, the configuration or
    the objects are at fault (checked in that order, each on its own)."""
    try:
        check_simulated_gates(inputs.features)
        registry = in_tree_registry(inputs.features)
    except _INPUT_ERRORS as err:
        raise CompareError(str(err), part="features", variant=spec.name) from None
    try:
        checked_configuration(spec.config_text, registry, inputs.features)
    except _INPUT_ERRORS as err:
        raise CompareError(str(err), part="config", variant=spec.name) from None
    try:
        return Simulation(
            spec.config_text,
            inputs.objects_text,
            seed=inputs.seed,
            registry=registry,
            features=inputs.features,
            trace_pods=trace_pods,
            on_cycle=meter.on_cycle,
        )
    except _INPUT_ERRORS as err:
        raise CompareError(str(err), part="objects", variant=spec.name) from None


@contextmanager
def _collector_paused() -> Iterator[None]:
    """Loading a cluster makes millions of objects and no garbage cycles; the cyclic garbage
    collector, run again and again as they pile up, took a quarter of a large variant's
    time. It is paused meanwhile (and left as the caller had it)."""
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_enabled:
            gc.enable()


def _pods_to_schedule(simulation: Simulation, inputs: CompareInputs) -> int:
    added = {
        (c.object["metadata"].get("namespace") or "default", c.object["metadata"].get("name"))
        for c in inputs.changes
        if c.type == "ADDED"
        and c.object.get("kind") == "Pod"
        and not (c.object.get("spec") or {}).get("nodeName")
    }
    return len(simulation.pending) + len(added)


class _CycleMeter:
    """Times every cycle, and now and then reports progress and asks whether to stop."""

    def __init__(self, progress: Progress | None, should_stop: ShouldStop | None) -> None:
        self.progress = progress
        self.should_stop = should_stop
        self.cycle_seconds: list[float] = []
        self.simulation: Simulation | None = None
        self.total = 0
        self._attempted: set[str] = set()
        self._seen_reports = 0
        self._next_check = perf_counter() + CHECK_EVERY_SECONDS

    def follow(self, simulation: Simulation, total: int) -> None:
        self.simulation, self.total = simulation, total
        self.report()

    def on_cycle(self, seconds: float) -> None:
        self.cycle_seconds.append(seconds)
        if perf_counter() < self._next_check:
            return
        self._next_check = perf_counter() + CHECK_EVERY_SECONDS
        if self.should_stop is not None and self.should_stop():
            raise Cancelled("the comparison was cancelled")
        self.report()

    def report(self) -> None:
        """Calls ``progress(pods attempted so far, pods to schedule)``."""
        if self.progress is None or self.simulation is None:
            return
        reports = self.simulation.reports
        self._attempted.update(r.attempt.pod for r in reports[self._seen_reports :])
        self._seen_reports = len(reports)
        self.progress(len(self._attempted), max(self.total, len(self._attempted)))


def _result(
    name: str, simulation: Simulation, trace_pods: Collection[str], cycle_seconds: list[float]
) -> VariantResult:
    reports = simulation.reports
    scheduler = simulation.scheduler
    scheduler.cache.update_snapshot(scheduler.snapshot)
    node_infos = scheduler.snapshot.list()
    measures = pod_counts(reports)
    measures["utilization"] = utilization(node_infos)
    measures["skew"] = skew(node_infos)
    measures["latency"] = {
        "cycleP50Ms": round(percentile(cycle_seconds, 50) * 1000, 3),
        "cycleP99Ms": round(percentile(cycle_seconds, 99) * 1000, 3),
    }
    return VariantResult(
        name=name,
        placements=placements(reports),
        attempts=_traced_attempts(reports, trace_pods),
        measures=measures,
    )


def _traced_attempts(
    reports: list[AttemptReport], trace_pods: Collection[str]
) -> dict[str, list[dict[str, Any]]]:
    """Each traced pod's attempts as simulate's JSON entries, with their trace events."""
    attempts: dict[str, list[dict[str, Any]]] = {pod: [] for pod in sorted(trace_pods)}
    for report in reports:
        if report.attempt.pod in attempts:
            entry = report.to_dict()
            entry["events"] = [event.to_dict() for event in report.events]
            attempts[report.attempt.pod].append(entry)
    return attempts
