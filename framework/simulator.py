"""Simulations: a scheduler over an in-memory cluster, a fake clock and full tracing.

``Simulation`` loads a configuration and a set of objects, then either creates every pending
pod at once (in file order, a millisecond apart, so queue order is priority then file order) or
one at a time, each after the previous one's outcome is known (how the oracle scenarios were
recorded). Every attempt is reported with its filter verdicts and score table.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable, Collection, Iterable
from dataclasses import dataclass, field
from time import perf_counter
from typing import Any

from framework.admission.admit import create_objects
from framework.api.loader import decode_objects
from framework.api.pod_group import NEEDS_GENERIC_WORKLOAD, not_simulated
from framework.cluster.memory import InMemoryCluster
from framework.cluster.resource_claim_controller import ResourceClaimController
from framework.config.defaults import set_defaults
from framework.config.load import load_config
from framework.config.startup import startup_errors
from framework.debugger.session import Debugger
from framework.features import DEFAULT_FEATURE_GATES, FeatureGates
from framework.metrics import Metrics
from framework.plugins.registry import in_tree_registry
from framework.pod_group_report import PodGroupReport, pod_group_reports
from framework.runtime.registry import Registry
from framework.scheduler.schedule_one import SchedulingAttempt
from framework.scheduler.scheduler import Scheduler
from framework.trace import EXTENSION_POINT, PLUGIN, TraceEvent, per_node_events, score_cells
from framework.util.clock import FakeClock

SIMULATION_EPOCH = 1_767_225_600.0
"""2026-01-01T00:00:00Z: simulations start at a fixed, realistic time (start times compare
against it, so 1970 would make every recorded start time look like the future)."""
CREATION_SPACING = 0.001
"""Seconds between the creation of two pending pods, so their queue timestamps differ."""
NOT_SIMULATED_GATES = ("DRAWorkloadResourceClaims",)
"""Gates whose behaviour the engine lacks: a run with them would silently be one without."""
MAX_CYCLES = 100_000
"""Scheduling cycles one run may take at most (a guard against pods that never settle)."""


class SimulationError(ValueError):
    """The configuration or the objects cannot be simulated (the message says why)."""


@dataclass
class AttemptReport:
    """One attempt as the CLI prints it (ARCHITECTURE.md §4)."""

    attempt: SchedulingAttempt
    events: list[TraceEvent]
    victims: list[str] = field(default_factory=list)

    def to_dict(self) -> dict[str, Any]:
        a = self.attempt
        return {
            "pod": a.pod,
            "result": a.result,
            "node": a.node,
            "message": a.message,
            "evaluatedNodes": a.evaluated_nodes,
            "feasibleNodes": a.feasible_nodes,
            "filter": self.filter_table(),
            "scores": self.score_table(),
            "finalScores": dict(a.final_scores),
            "nominatedNode": a.nominated_node,
            "victims": list(self.victims),
        }

    def filter_table(self) -> dict[str, dict[str, dict[str, Any]]]:
        """node -> plugin -> {code, reasons} for every Filter call of this attempt."""
        table: dict[str, dict[str, dict[str, Any]]] = {}
        for event in (e for batch in self.events for e in per_node_events(batch)):
            if event.kind == PLUGIN and event.point == "filter" and event.node is not None:
                table.setdefault(event.node, {})[event.plugin] = {
                    "code": event.code,
                    "reasons": list(event.reasons),
                }
        return table

    def score_table(self) -> dict[str, dict[str, dict[str, int]]]:
        """plugin -> node -> {raw, normalized, weighted}, from the Score extension point."""
        for event in self.events:
            if event.kind == EXTENSION_POINT and event.point == "score" and event.code == "Success":
                return score_cells(event.data)
        return {}


class _EventsByPod:
    """An observer that keeps each pod's events until its attempt is reported (only the
    events of ``only`` pods, when given: the others are dropped as they come)."""

    def __init__(self, only: Collection[str] | None = None) -> None:
        self.pending: dict[str, list[TraceEvent]] = defaultdict(list)
        self.only = only

    def on_event(self, event: TraceEvent) -> None:
        if self.only is None or event.pod in self.only:
            self.pending[event.pod].append(event)

    def take(self, pod: str) -> list[TraceEvent]:
        return self.pending.pop(pod, [])

    def held(self, pod: str) -> list[TraceEvent]:
        """The pod's events since its last attempt (PreEnqueue verdicts of a held pod)."""
        return list(self.pending.get(pod, ()))


class Simulation:
    """A scheduler, its cluster and clock, and the reports of every attempt so far."""

    def __init__(
        self,
        config_source: str,
        objects_text: str,
        *,
        seed: int = 0,
        registry: Registry | None = None,
        first_nodes: list[str] = (),
        debugger: Debugger | None = None,
        features: FeatureGates = DEFAULT_FEATURE_GATES,
        trace_pods: Collection[str] | None = None,
        on_cycle: Callable[[float], None] | None = None,
    ) -> None:
        """``first_nodes`` are added to the cluster before the other nodes (cache order);
        ``debugger`` observes the scheduler from the start (see ``framework.debugger``);
        ``features`` are the feature gates (the in-tree registry's too, unless one is given).
        ``trace_pods`` ("ns/name") limits the traced pods: the reports of the others carry no
        events, and with none at all tracing is off (it costs nothing then); None traces
        every pod. ``on_cycle`` is called after each scheduling cycle with its wall-clock
        seconds (latency, progress; an exception it raises ends the run).
        The scheduler counts its metrics into ``self.metrics``."""
        check_simulated_gates(features)
        if registry is None:
            registry = in_tree_registry(features)
        cfg = checked_configuration(config_source, registry, features)
        decoded, invalid = decode_objects(objects_text)
        objects, refused = create_objects(decoded)
        if not features.enabled("GenericWorkload"):
            refused += [
                e for o in objects if (e := not_simulated(o, NEEDS_GENERIC_WORKLOAD)) is not None
            ]
        if invalid or refused:
            raise SimulationError("\n".join(str(e) for e in [*invalid, *refused]))
        self.features = features
        objects = _nodes_first_as_listed(objects, list(first_nodes))
        self.pending = [o for o in objects if o.kind == "Pod" and not o.spec.node_name]
        self.cluster = InMemoryCluster(o for o in objects if o not in self.pending)
        self.clock = FakeClock(SIMULATION_EPOCH)
        self.reports: list[AttemptReport] = []
        self._events = _EventsByPod(trace_pods)
        self._on_cycle = on_cycle
        self._deleted: list[str] = []
        self._pods_deleted = 0
        self.metrics = Metrics()
        self.scheduler = Scheduler.from_configuration(
            cfg,
            self.cluster,
            registry,
            clock=self.clock,
            seed=seed,
            observer=None if trace_pods is not None and not trace_pods else self._events,
            on_attempt=self._on_attempt,
            features=features,
            metrics=self.metrics,
        )
        if debugger is not None:
            debugger.attach(self.scheduler)
        self.scheduler.start()
        ResourceClaimController(self.cluster).start()
        self.cluster.watch(self._on_cluster_event)

    def run(self) -> list[AttemptReport]:
        """Creates every pending pod (file order) and schedules until the queue is idle."""
        return self.create(self.pending)

    def create(self, objects: Iterable[Any], settle: bool = True) -> list[AttemptReport]:
        """Creates these (admitted) objects in order, a millisecond apart, then (``settle``)
        schedules until the queue is idle: one step of a scenario recorded step by step."""
        for obj in objects:
            self.clock.step(CREATION_SPACING)
            self.cluster.add(obj)
        if settle:
            self._schedule_until_settled()
        return self.reports

    def run_one_at_a_time(self, delete_unschedulable: bool = True) -> list[AttemptReport]:
        """Creates each pending pod after the previous one's outcome is known.

        With ``delete_unschedulable`` a pod that ends unschedulable is deleted right after its
        first attempt, so it never retries: the protocol the oracle scenarios were recorded with.
        """
        for pod in self.pending:
            self.clock.step(CREATION_SPACING)
            self.cluster.add(pod)
            before = len(self.reports)
            self._schedule_until_settled()
            outcome = self.reports[before:]
            if delete_unschedulable and outcome and outcome[-1].attempt.result != "Scheduled":
                current = self.cluster.get("Pod", pod.name, pod.namespace)
                if current is not None:
                    self.cluster.delete(current)
                self._deleted = []  # the pod itself is no preemption victim
        return self.reports

    def _schedule_until_settled(self) -> None:
        """Schedules until no pod is ready and none backs off after a rejection.

        Pods whose last attempt failed with an error (a PreBind that never completes, a plugin
        error) back off in a queue of their own, and upstream retries them forever, at most
        every ``podMaxBackoffSeconds``. Nothing outside the scheduler changes a simulated
        cluster, so once only such pods are left the run ends, instead of fast-forwarding the
        clock to repeat the same error; they stay in the backoff queue.
        """
        queue = self.scheduler.queue
        retried_groups_at: int | None = None
        for _ in range(MAX_CYCLES):
            queue.run_periodic()
            if not len(queue.active_q) and not queue.backoff_q.len_backoff():
                return
            if not len(queue.active_q) and self._only_pod_groups_back_off():
                # Upstream retries failed groups on backoff alone, forever: retry them once
                # more, and stop if that neither bound nor preempted anything.
                progress = self._bound_count() + self._pods_deleted
                if retried_groups_at == progress:
                    return
                retried_groups_at = progress
            if not self._run_one_cycle():
                return

    def schedule_until(self, deadline: float) -> None:
        """Schedules what is due until the fake clock reaches ``deadline`` (seconds on
        ``self.clock``), then sets the clock there: pods whose backoff ends later wait, as
        they would while nothing else happens. A recording's changes are applied this way,
        each at its time (``framework.compare.replay``)."""
        queue = self.scheduler.queue
        for _ in range(MAX_CYCLES):
            queue.run_periodic()
            if self._timed(self.scheduler.schedule_one):
                continue
            due = queue.next_periodic_deadline()
            if due is None or due > deadline:
                break
            self.clock.set_time(max(due, self.clock.now()))
        if deadline > self.clock.now():
            self.clock.set_time(deadline)
        queue.run_periodic()

    def settle(self) -> list[AttemptReport]:
        """Schedules until the queue is idle (after changes applied from outside)."""
        self._schedule_until_settled()
        return self.reports

    def change_from_outside(self, change: Callable[[InMemoryCluster], Any]) -> None:
        """Applies ``change`` to the cluster as a client would (a recording's update or
        delete): a pod it deletes is no preemption victim of the next attempt."""
        change(self.cluster)
        self._deleted = []

    def _run_one_cycle(self) -> bool:
        """One scheduling cycle (with a fake clock, time skips to the next backoff first if no
        pod is ready)."""
        return self._timed(lambda: bool(self.scheduler.run_until_idle(max_cycles=1)))

    def _timed(self, cycle: Callable[[], bool]) -> bool:
        """Runs ``cycle``; when it ran one, ``on_cycle`` hears how long it took."""
        if self._on_cycle is None:
            return cycle()
        start = perf_counter()
        ran = cycle()
        if ran:
            self._on_cycle(perf_counter() - start)
        return ran

    def pod_group_reports(self) -> list[PodGroupReport]:
        """Every PodGroup as the run left it, its members with their outcomes (the pods of the
        objects file, pending ones first, each as it is now, or as created if it was deleted)."""
        now = {pod.key: pod for pod in self.cluster.list("Pod")}
        pending = [now.get(pod.key, pod) for pod in self.pending]
        created = {pod.key for pod in self.pending}
        pods = pending + [pod for key, pod in now.items() if key not in created]
        attempts = [(report.attempt, report.events) for report in self.reports]
        return pod_group_reports(self.cluster.list("PodGroup"), pods, attempts, self._events.held)

    def _only_pod_groups_back_off(self) -> bool:
        backing_off = self.scheduler.queue.pods_in_backoff_q()
        return bool(backing_off) and all(p.spec.pod_group_name for p in backing_off)

    def _bound_count(self) -> int:
        return sum(1 for r in self.reports if r.attempt.result == "Scheduled")

    def _on_attempt(self, attempt: SchedulingAttempt) -> None:
        victims, self._deleted = self._deleted, []
        self.reports.append(AttemptReport(attempt, self._events.take(attempt.pod), victims))

    def _on_cluster_event(self, event_type: str, old: Any, new: Any) -> None:
        if event_type == "DELETED" and old.kind == "Pod":
            self._deleted.append(old.key)
            self._pods_deleted += 1


def check_simulated_gates(features: FeatureGates) -> None:
    """SimulationError naming the enabled gates whose behaviour the engine lacks."""
    unsimulated = [name for name in NOT_SIMULATED_GATES if features.enabled(name)]
    if unsimulated:
        raise SimulationError(
            f"feature gates not simulated yet (docs/workloads.md): {', '.join(unsimulated)}"
        )


def checked_configuration(
    config_source: str, registry: Registry, features: FeatureGates = DEFAULT_FEATURE_GATES
) -> Any:
    """The configuration loaded and defaulted; ConfigError if it cannot be read, and
    SimulationError with what kube-scheduler refuses at start (the CLI and a comparison tell
    a bad configuration from bad objects by checking it first)."""
    cfg = load_config(config_source)
    set_defaults(cfg, features)  # the default plugins and args depend on the gates
    errors = startup_errors(cfg, registry, features)
    if errors:
        raise SimulationError("\n".join(str(e) for e in errors))
    return cfg


def _nodes_first_as_listed(objects: list[Any], first: list[str]) -> list[Any]:
    """The objects, with the named nodes moved (in the given order) before every other node."""
    rank = {name: index for index, name in enumerate(first)}
    named = sorted(
        (o for o in objects if o.kind == "Node" and o.name in rank), key=lambda o: rank[o.name]
    )
    return named + [o for o in objects if not (o.kind == "Node" and o.name in rank)]


def simulate(config_source: str, objects_text: str, seed: int = 0) -> list[dict[str, Any]]:
    """Every attempt of a batch simulation, as the CLI's JSON ``pods`` list."""
    return [report.to_dict() for report in Simulation(config_source, objects_text, seed=seed).run()]
