"""What preemption weighed for a pod: the candidates, the other nodes, the deciding criterion.

DefaultPreemption's own steps run again, read-only, over a dry-run copy of the objects the
attempt saw: the Filter statuses of the cycle (the engine's first-failure run, nominated pods
included), the plugin's eligibility check, its dry run of evictions on copies of the nodes
(``Evaluator.dry_run_preemption``: victims chosen as for real, PDBs counted), and upstream's
criteria in their order (``pick_with_deciding_criterion``). Nothing is evicted or nominated.

Two knowing differences from the real run, both about *which* nodes are looked at, never how:
unless the caller gives the real dry run's start (``search``; the command records it), every
potential node is dry-run (the real one stops after ``minCandidateNodesAbsolute`` /
``minCandidateNodesPercentage`` candidates from a random offset, which only matters beyond 100
nodes); and extenders are not asked. Among candidates tied on every criterion the real run
takes the first in its random search order; the explainer reports the node the attempt
nominated when it is among them.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from framework.explain.configuration import resolve_configuration
from framework.explain.filter_run import FilterRun, filter_run
from framework.features import DEFAULT_FEATURE_GATES, FeatureGates
from framework.interface.node_info import PodInfo
from framework.interface.status import Code, Status
from framework.interface.types import NodeToStatus
from framework.plugins.defaultpreemption.default_preemption import (
    NO_VICTIMS,
    filter_pods_with_pdb_violation,
)
from framework.preemption.preemption import (
    DEFAULT_CRITERIA,
    get_pod_disruption_budgets,
    not_helpful,
    pick_with_deciding_criterion,
    tied_nodes_for_preemption,
)

if TYPE_CHECKING:
    from framework.api.pod import Pod
    from framework.preemption.types import Candidate, Victims
    from framework.runtime.registry import Registry
    from framework.util.clock import Clock

NOMINATED, NOT_HELPFUL, NOT_NEEDED = "nominated", "not helpful", "not needed"
ONLY_CANDIDATE = "only candidate"
FIRST_CANDIDATE = "first candidate in the search order"
DEFAULT_PREEMPTION = "DefaultPreemption"
NOT_SEARCHED = (
    "not searched: the dry run stopped once it had {wanted} candidates "
    "(minCandidateNodesPercentage / minCandidateNodesAbsolute)"
)


@dataclass
class VictimReport:
    pod: str
    priority: int
    pdb_violation: bool
    start_time: str | None

    def to_dict(self) -> dict[str, Any]:
        return {
            "pod": self.pod,
            "priority": self.priority,
            "pdbViolation": self.pdb_violation,
            "startTime": self.start_time,
        }


@dataclass
class CandidateReport:
    """One candidate node: the victims preemption would evict there, most important first."""

    node: str
    victims: list[VictimReport]
    pdb_violations: int

    def to_dict(self) -> dict[str, Any]:
        priorities = [v.priority for v in self.victims]
        return {
            "node": self.node,
            "victims": [v.to_dict() for v in self.victims],
            "pdbViolations": self.pdb_violations,
            "highestVictimPriority": max(priorities, default=None),
            "sumPriorities": sum(priorities),
            "victimCount": len(self.victims),
        }


@dataclass
class PreemptionExplanation:
    """What preemption weighed for one attempt (see the module); ``to_dict`` is the JSON."""

    pod: str
    outcome: str
    message: str = ""
    candidates: list[CandidateReport] = field(default_factory=list)
    not_candidates: list[dict[str, str]] = field(default_factory=list)
    criteria: list[dict[str, Any]] = field(default_factory=list)
    decided_by: str | None = None
    nominated_node: str | None = None

    def to_dict(self) -> dict[str, Any]:
        return {
            "pod": self.pod,
            "outcome": self.outcome,
            "message": self.message,
            "candidates": [c.to_dict() for c in self.candidates],
            "notCandidates": list(self.not_candidates),
            "criteria": list(self.criteria),
            "decidedBy": self.decided_by,
            "nominatedNode": self.nominated_node,
        }


def explain_preemption(
    pod: Pod,
    cluster_objects: list[Any],
    attempt: dict[str, Any],
    *,
    profile: Any = None,
    registry: Registry | None = None,
    features: FeatureGates = DEFAULT_FEATURE_GATES,
    clock: Clock | None = None,
    search: tuple[int, int] | None = None,
) -> PreemptionExplanation | None:
    """Explains the preemption of the pod's ``attempt`` over ``cluster_objects``, the cluster
    as the attempt saw it (victims not yet evicted); None when the pod was scheduled or its
    profile has no DefaultPreemption. ``clock`` is "now" for pods without a start time.

    ``search`` is the real dry run's ``(offset, candidates wanted)`` when known (the command
    records it): the same nodes are then searched; without it every potential node is."""
    if attempt.get("result") == "Scheduled":
        return None
    cfg, profile_name = resolve_configuration(profile, pod, features)
    with filter_run(
        cfg, cluster_objects, pod, profile_name, registry=registry, features=features, clock=clock
    ) as (run, _):
        plugin = run.framework.plugins_map.get(DEFAULT_PREEMPTION)
        if plugin is None:
            return None
        return _explain(run, plugin, attempt.get("nominatedNode"), search)


def _explain(
    run: FilterRun, plugin: Any, attempted: str | None, search: tuple[int, int] | None
) -> PreemptionExplanation:
    pod = run.pod
    statuses, feasible = _cycle_statuses(run)
    out = PreemptionExplanation(pod.key, NOT_HELPFUL)
    if feasible:
        out.outcome = NOT_NEEDED
        out.message = f"the pod fits on {len(feasible)} node(s) now: {', '.join(feasible)}"
        return out
    eligible, why = plugin.pod_eligible_to_preempt_others(
        pod, statuses.get(pod.status.nominated_node_name)
    )
    if not eligible:
        out.message = f"preemption: {why}"
        return out
    potential = statuses.nodes_for_status_code(run.nodes, Code.UNSCHEDULABLE)
    out.not_candidates = _unresolvable(run, statuses, {n.node_name for n in potential})
    pdbs = get_pod_disruption_budgets(run.framework)
    offset, wanted = search if search is not None else (0, len(potential))
    candidates, dry_statuses, _ = plugin.evaluator.dry_run_preemption(
        run.state, pod, potential, pdbs, offset, wanted
    )
    out.not_candidates += [
        {"node": name, "why": _not_a_candidate(pod, status)}
        for name, status in dry_statuses.items()
    ]
    searched = {c.name for c in candidates} | {name for name, _ in dry_statuses.items()}
    out.not_candidates += [
        {"node": n.node_name, "why": NOT_SEARCHED.format(wanted=wanted)}
        for n in potential
        if n.node_name not in searched
    ]
    if not candidates:
        out.message = "preemption: " + str(not_helpful(pod, len(run.nodes), dry_statuses))
        return out
    out.candidates = [_candidate_report(c, pdbs) for c in candidates]
    _decide(out, plugin, candidates, attempted)
    return out


def _cycle_statuses(run: FilterRun) -> tuple[NodeToStatus, list[str]]:
    """Each node's Filter status as the cycle had it (first failure, nominated pods added),
    and the nodes that pass."""
    statuses = NodeToStatus()
    pre_filter = run.pre_filter_status
    if pre_filter is not None and not pre_filter.is_success():
        statuses.absent_nodes_status = pre_filter
        return statuses, []
    nodes = [n for n in run.nodes if run.allowed is None or n.node_name in run.allowed]
    results = run.framework.run_filter_plugins_with_nominated_pods_on_nodes(
        run.state, run.pod, nodes
    )
    feasible = []
    for node, status in zip(nodes, results, strict=True):
        if status is None or status.is_success():
            feasible.append(node.node_name)
        else:
            statuses.set(node.node_name, status)
    return statuses, feasible


def _unresolvable(
    run: FilterRun, statuses: NodeToStatus, potential: set[str]
) -> list[dict[str, str]]:
    """The nodes whose failure evicting pods cannot resolve (UnschedulableAndUnresolvable)."""
    out = []
    for node in run.nodes:
        if node.node_name in potential:
            continue
        status = statuses.get(node.node_name)
        narrowing = run.failures.get(node.node_name, {})
        if run.allowed is not None and node.node_name not in run.allowed and narrowing:
            status = next(iter(narrowing.values()))
        plugin = status.plugin or "PreFilter"
        out.append(
            {
                "node": node.node_name,
                "why": f"preemption cannot resolve {plugin}: {status.message()}",
            }
        )
    return out


def _not_a_candidate(pod: Pod, status: Status) -> str:
    if status.message() == NO_VICTIMS:
        return (
            f"no pod of lower priority than {pod.spec.priority} to evict: "
            "every pod there has the same or a higher priority"
        )
    plugin = f"{status.plugin}: " if status.plugin else ""
    return f"no victims would help: even with every lower-priority pod evicted, {plugin}" + (
        status.message() or status.code.name
    )


def _candidate_report(candidate: Candidate, pdbs: list[Any]) -> CandidateReport:
    victims: Victims = candidate.victims
    violating, _ = filter_pods_with_pdb_violation([PodInfo(p) for p in victims.pods], pdbs)
    violating_keys = {info.pod.key for info in violating}
    return CandidateReport(
        candidate.name,
        [
            VictimReport(
                p.key,
                p.spec.priority,
                p.key in violating_keys,
                p.status.start_time.isoformat() if p.status.start_time else None,
            )
            for p in victims.pods
        ],
        victims.num_pdb_violations,
    )


def _decide(
    out: PreemptionExplanation, plugin: Any, candidates: list[Candidate], attempted: str | None
) -> None:
    """Upstream's choice among the candidates, and which criterion made it."""
    out.outcome = NOMINATED
    victims_map = plugin.candidates_to_victims_map(candidates)
    if len(candidates) == 1:
        out.nominated_node, out.decided_by = candidates[0].name, ONLY_CANDIDATE
        out.criteria = [{"name": name, "decided": False} for name in DEFAULT_CRITERIA]
        return
    score_funcs = plugin.ordered_score_funcs(victims_map)
    node, index = pick_with_deciding_criterion(victims_map, score_funcs, plugin.start_times)
    if index is None:
        tied = tied_nodes_for_preemption(victims_map, score_funcs)
        if attempted in tied:
            node = attempted
    names = (
        DEFAULT_CRITERIA
        if not score_funcs
        else [f"criterion {i + 1}" for i in range(len(score_funcs))]
    )
    out.criteria = [{"name": name, "decided": i == index} for i, name in enumerate(names)]
    out.nominated_node = node
    out.decided_by = names[index] if index is not None else FIRST_CANDIDATE
