"""The preemption Evaluator: the steps every preemption plugin shares.

A plugin implementing ``Interface`` decides eligibility, how many nodes to try and which pods
to evict on a node; the Evaluator finds candidate nodes by dry-running those evictions, lets
extenders veto them, picks the best node and hands it to the Executor.
"""

from __future__ import annotations

import logging
from abc import ABC, abstractmethod
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from framework.api.field_errors import aggregate_message, go_quote
from framework.api.labels import label_selector_as_selector
from framework.interface.status import Code, Status, StatusError, is_success
from framework.interface.types import NodeToStatus, NominatingInfo, NominatingMode, PostFilterResult
from framework.preemption.start_time import StartTimes
from framework.preemption.types import Candidate, CandidateList, Victims
from framework.scheduler.fit_error import Diagnosis, FitError

if TYPE_CHECKING:
    from framework.api.pod import Pod
    from framework.api.policy import PodDisruptionBudget
    from framework.interface.cycle_state import CycleState
    from framework.interface.handle import Handle
    from framework.interface.node_info import NodeInfo
    from framework.preemption.executor import Executor

logger = logging.getLogger(__name__)

ScoreFunc = Callable[[str], int]

SelectedVictims = tuple[list["Pod"], int, Status | None]
"""What victim selection gives for one node: victims, how many violate a PDB, and a status."""

NOT_HELPFUL = "Preemption is not helpful for scheduling"
MAX_INT32 = (1 << 31) - 1
MIN_INT64 = -(1 << 63)
MAX_INT64 = (1 << 63) - 1


class Interface(ABC):
    """The decisions a preemption plugin makes; the Evaluator calls them in order."""

    @abstractmethod
    def get_offset_and_num_candidates(self, num_nodes: int) -> tuple[int, int]:
        """A random start among the potential nodes, and how many candidates are enough."""

    @abstractmethod
    def candidates_to_victims_map(self, candidates: list[Candidate]) -> dict[str, Victims]:
        """Victims by node name (one candidate per node)."""

    @abstractmethod
    def pod_eligible_to_preempt_others(
        self, pod: Pod, nominated_node_status: Status | None
    ) -> tuple[bool, str]:
        """Whether the pod may preempt at all, and why not."""

    @abstractmethod
    def select_victims_on_node(
        self,
        state: CycleState,
        pod: Pod,
        node_info: NodeInfo,
        pdbs: list[PodDisruptionBudget],
    ) -> tuple[list[Pod], int, Status | None]:
        """The fewest pods to evict so the pod fits, and how many of them violate a PDB.

        ``state`` and ``node_info`` are copies the method may change.
        """

    def select_victims_on_nodes(
        self,
        state: CycleState,
        pod: Pod,
        node_infos: list[NodeInfo],
        pdbs: list[PodDisruptionBudget],
    ) -> list[SelectedVictims]:
        """``select_victims_on_node`` for each node, in order: a plugin may override it to
        judge the nodes together (same results). ``node_infos`` are copies it may change;
        ``state`` is not: each node gets its own copy here."""
        return [self.select_victims_on_node(state.clone(), pod, n, pdbs) for n in node_infos]

    @abstractmethod
    def ordered_score_funcs(self, nodes_to_victims: dict[str, Victims]) -> list[ScoreFunc] | None:
        """Custom node preferences, applied in order; None means the default criteria."""


TieBreaker = Callable[["Pod", list[str], str], str]
"""``(preemptor, tied nodes, picked node) -> node``: replays a recorded choice among ties."""


class Evaluator:
    """Runs preemption for one plugin: eligibility, candidates, extenders, choice, actuation.

    ``tie_breaker``, when set, may replace the chosen node by another one upstream could have
    chosen as well (see ``tied_nodes_for_preemption``); the simulator uses it to replay the
    choices a real kube-scheduler made, as it does for equal final scores.
    """

    def __init__(
        self,
        plugin_name: str,
        handle: Handle,
        interface: Interface,
        executor: Executor,
        start_times: StartTimes | None = None,
    ) -> None:
        self.plugin_name = plugin_name
        self.handle = handle
        self.interface = interface
        self.executor = executor
        self.start_times = start_times or StartTimes()
        self.tie_breaker: TieBreaker | None = None

    def preempt(
        self, state: CycleState, pod: Pod, m: NodeToStatus
    ) -> tuple[PostFilterResult | None, Status]:
        """Nominates a node and evicts its victims, or says why preemption cannot help.

        ``(None, status)`` leaves the pod's nomination as it is (an error, or victims still
        terminating); a result with an empty node clears it; a named node sets it.
        """
        latest = self._latest_version(pod)
        if isinstance(latest, Status):
            return None, latest
        pod = latest

        eligible, message = self.interface.pod_eligible_to_preempt_others(
            pod, m.get(pod.status.nominated_node_name)
        )
        if not eligible:
            return None, Status(Code.UNSCHEDULABLE, message)

        all_nodes = self.handle.snapshot_shared_lister().node_infos().list()
        candidates, node_to_status, err = self.find_candidates(state, all_nodes, pod, m)
        if err is not None and not candidates:
            return None, Status.as_status(err)
        if not candidates:
            return _clear_nomination(), Status(
                Code.UNSCHEDULABLE, str(not_helpful(pod, len(all_nodes), node_to_status))
            )

        candidates, status = self.call_extenders(pod, candidates)
        if not is_success(status):
            return None, status

        best = self.select_candidate(candidates)
        if best is not None and self.tie_breaker is not None:
            best = self._break_tie(pod, candidates, best)
        if best is None or not best.name:
            return None, Status(Code.UNSCHEDULABLE, "no candidate node for preemption")

        status = self.executor.actuate_pod_preemption(
            best.name, best.victims, pod, self.plugin_name
        )
        if not is_success(status):
            return None, status
        nominated = NominatingInfo(best.name, NominatingMode.OVERRIDE)
        return PostFilterResult(nominated), Status(Code.SUCCESS)

    def _latest_version(self, pod: Pod) -> Pod | Status:
        """The preemptor as the cluster has it now (upstream reads its pod informer)."""
        cluster = self.handle.cluster()
        if cluster is None:
            return pod
        latest = cluster.get("Pod", pod.name, pod.namespace)
        if latest is None:
            return Status.as_status(StatusError(f"pod {go_quote(pod.name)} not found"))
        return latest

    # -- candidates ------------------------------------------------------------------------------

    def find_candidates(
        self, state: CycleState, all_nodes: list[NodeInfo], pod: Pod, m: NodeToStatus
    ) -> tuple[list[Candidate], NodeToStatus | None, Exception | None]:
        """Dry-runs preemption on the nodes that failed with a resolvable Unschedulable."""
        if not all_nodes:
            return [], None, StatusError("no nodes available")
        potential_nodes = m.nodes_for_status_code(all_nodes, Code.UNSCHEDULABLE)
        if not potential_nodes:
            return [], NodeToStatus(), None
        pdbs = get_pod_disruption_budgets(self.handle)
        offset, num_candidates = self.interface.get_offset_and_num_candidates(len(potential_nodes))
        return self.dry_run_preemption(state, pod, potential_nodes, pdbs, offset, num_candidates)

    def dry_run_preemption(
        self,
        state: CycleState,
        pod: Pod,
        potential_nodes: list[NodeInfo],
        pdbs: list[PodDisruptionBudget],
        offset: int,
        num_candidates: int,
    ) -> tuple[list[Candidate], NodeToStatus, Exception | None]:
        """Selects victims on copies of the nodes, starting at ``offset`` and wrapping around.

        Stops once there are enough candidates and at least one of them violates no PDB;
        candidates that violate none come first. Nodes are handed to the plugin in chunks of
        as many nodes as candidates are still missing (at least one): a node adds at most one
        candidate, so the stop is never before the end of a chunk and exactly the nodes
        upstream checks one by one are checked.
        """
        non_violating = CandidateList(num_candidates)
        violating = CandidateList(num_candidates)
        node_statuses = NodeToStatus()
        errors: list[BaseException] = []

        def record(
            node_name: str, pods: list[Pod], num_violations: int, status: Status | None
        ) -> None:
            if is_success(status) and pods:
                candidate = Candidate(node_name, Victims(pods, num_violations))
                (non_violating if num_violations == 0 else violating).add(candidate)
                return
            if is_success(status):
                status = Status.as_status(
                    StatusError(f"expected at least one victim pod on node {go_quote(node_name)}")
                )
            if status.code == Code.ERROR:
                errors.append(status.as_error())
            node_statuses.set(node_name, status)

        num_nodes = len(potential_nodes)
        checked = 0
        while checked < num_nodes:
            found = non_violating.size() + violating.size()
            if non_violating.size() > 0 and found >= num_candidates:
                break
            size = min(max(num_candidates - found, 1), num_nodes - checked)
            chunk = [
                potential_nodes[(offset + index) % num_nodes].clone()
                for index in range(checked, checked + size)
            ]
            results = self.interface.select_victims_on_nodes(state, pod, chunk, pdbs)
            for node_info, (pods, num_violations, status) in zip(chunk, results, strict=True):
                record(node_info.node_name, pods, num_violations, status)
            checked += size
        candidates = non_violating.get() + violating.get()
        err = StatusError(aggregate_message(errors)) if errors else None
        return candidates, node_statuses, err

    # -- extenders -------------------------------------------------------------------------------

    def call_extenders(
        self, pod: Pod, candidates: list[Candidate]
    ) -> tuple[list[Candidate], Status | None]:
        """Lets extenders that support preemption narrow the candidates or change victims."""
        extenders = list(self.handle.extenders())
        if not extenders:
            return candidates, None
        victims_map = self.interface.candidates_to_victims_map(candidates)
        if not victims_map:
            return candidates, None
        node_lister = self.handle.snapshot_shared_lister().node_infos()
        for extender in extenders:
            if not extender.supports_preemption() or not extender.is_interested(pod):
                continue
            try:
                node_to_victims = dict(extender.process_preemption(pod, victims_map, node_lister))
            except Exception as err:
                if extender.is_ignorable():
                    logger.info("skipped extender %s, which failed: %s", extender.name(), err)
                    continue
                return [], Status.as_status(err)
            status = _check_extender_victims(extender, node_to_victims)
            if status is not None:
                return [], status
            victims_map = node_to_victims
            if not victims_map:
                break
        return [Candidate(name, victims) for name, victims in victims_map.items()], None

    # -- choice ----------------------------------------------------------------------------------

    def select_candidate(self, candidates: list[Candidate]) -> Candidate | None:
        """The best candidate by the plugin's score functions or the default criteria."""
        if not candidates:
            return None
        if len(candidates) == 1:
            return candidates[0]
        victims_map = self.interface.candidates_to_victims_map(candidates)
        score_funcs = self.interface.ordered_score_funcs(victims_map)
        node = pick_one_node_for_preemption(victims_map, score_funcs, self.start_times)
        victims = victims_map.get(node)
        if victims is not None:
            return Candidate(node, victims)
        logger.error("unexpected case: no candidate was selected among %s", candidates)
        return candidates[0]

    def _break_tie(self, pod: Pod, candidates: list[Candidate], best: Candidate) -> Candidate:
        victims_map = self.interface.candidates_to_victims_map(candidates)
        tied = tied_nodes_for_preemption(
            victims_map, self.interface.ordered_score_funcs(victims_map)
        )
        if len(tied) < 2 or best.name not in tied:
            return best
        chosen = self.tie_breaker(pod, tied, best.name)
        if chosen == best.name or chosen not in tied:
            return best
        return Candidate(chosen, victims_map[chosen])


def get_pod_disruption_budgets(handle: Handle) -> list[PodDisruptionBudget]:
    """Every PDB in the cluster (upstream lists them from the PDB informer)."""
    cluster = handle.cluster()
    if cluster is None:
        return []
    return list(cluster.list("PodDisruptionBudget"))


def pdb_covers(pdb: PodDisruptionBudget, pod: Pod) -> bool:
    """Whether evicting the pod spends the PDB's budget: same namespace, selected by it, and
    not already among its ``disruptedPods`` (counted by the API server)."""
    if pdb.namespace != pod.namespace:
        return False
    try:
        selector = label_selector_as_selector(pdb.selector)
    except ValueError:
        return False  # an invalid selector matches nothing
    # A missing or empty selector matches nothing.
    if selector.empty() or not selector.matches(pod.labels):
        return False
    return pod.name not in pdb.disrupted_pods


DEFAULT_CRITERIA = (
    "fewest PDB violations",
    "highest-priority victim lowest",
    "smallest sum of priorities",
    "fewest victims",
    "latest start time of the highest-priority victims",
)
"""The names of the default criteria, in the order ``pick_one_node_for_preemption`` uses them."""


def pick_one_node_for_preemption(
    nodes_to_victims: dict[str, Victims],
    score_funcs: list[ScoreFunc] | None,
    start_times: StartTimes,
) -> str:
    """The node whose victims hurt least; victims of each node are most important first.

    Default criteria, each consulted only to break the previous one's ties: fewest PDB
    violations, lowest highest-priority victim, smallest sum of priorities, fewest victims,
    latest start of the highest-priority victims, then the first node.
    """
    return pick_with_deciding_criterion(nodes_to_victims, score_funcs, start_times)[0]


def pick_with_deciding_criterion(
    nodes_to_victims: dict[str, Victims],
    score_funcs: list[ScoreFunc] | None,
    start_times: StartTimes,
) -> tuple[str, int | None]:
    """``pick_one_node_for_preemption``'s node, and the index of the criterion that left it
    alone (None when the nodes tied on every criterion and the first was taken)."""
    if not nodes_to_victims:
        return "", None
    candidates = list(nodes_to_victims)
    if not score_funcs:
        score_funcs = _default_score_funcs(nodes_to_victims, start_times)
    for index, score in enumerate(score_funcs):
        selected: list[str] = []
        max_score = MIN_INT64
        for node in candidates:
            node_score = score(node)
            if node_score > max_score:
                max_score = node_score
                selected = []
            if node_score == max_score:
                selected.append(node)
        if len(selected) == 1:
            return selected[0], index
        candidates = selected
    return candidates[0], None


def tied_nodes_for_preemption(
    nodes_to_victims: dict[str, Victims], score_funcs: list[ScoreFunc] | None
) -> list[str]:
    """The nodes upstream may pick between, depending only on Go's random map order.

    They are equal under every criterion, taking "now" (the start of a pod that has none) as
    one instant, later than any recorded start: upstream reads it afresh per node, so which of
    them looks newest depends on the order it reads them in.
    """
    if not score_funcs:
        score_funcs = _default_score_funcs(nodes_to_victims, _InstantNow())
    tied = list(nodes_to_victims)
    for score in score_funcs:
        if len(tied) < 2:
            break
        scores = {node: score(node) for node in tied}
        best = max(scores.values())
        tied = [node for node in tied if scores[node] == best]
    return tied


class _InstantNow(StartTimes):
    """ "Now" frozen after every real start time, to see which nodes only it tells apart."""

    __slots__ = ()

    def now(self) -> int:
        return MAX_INT64


def _default_score_funcs(
    nodes_to_victims: dict[str, Victims], start_times: StartTimes
) -> list[ScoreFunc]:
    def fewest_pdb_violations(node: str) -> int:
        return -nodes_to_victims[node].num_pdb_violations

    def lowest_highest_priority(node: str) -> int:
        return -nodes_to_victims[node].pods[0].spec.priority

    def smallest_sum_of_priorities(node: str) -> int:
        # Shifted to be non-negative, so more pods of negative priority never look better.
        return -sum(p.spec.priority + MAX_INT32 + 1 for p in nodes_to_victims[node].pods)

    def fewest_victims(node: str) -> int:
        return -len(nodes_to_victims[node].pods)

    def latest_start_time(node: str) -> int:
        earliest = start_times.earliest_of_highest_priority(nodes_to_victims[node].pods)
        if earliest is None:
            logger.error("unexpected nil earliest start time for node %s", node)
            return MIN_INT64
        return earliest

    return [
        fewest_pdb_violations,
        lowest_highest_priority,
        smallest_sum_of_priorities,
        fewest_victims,
        latest_start_time,
    ]


def _check_extender_victims(extender: Any, node_to_victims: dict[str, Victims]) -> Status | None:
    """Drops (ignorable extender) or rejects nodes an extender returned without victims."""
    for node_name, victims in list(node_to_victims.items()):
        if victims is not None and victims.pods:
            continue
        if extender.is_ignorable():
            del node_to_victims[node_name]
            logger.info(
                "ignored node %s: extender %s reported no victims", node_name, extender.name()
            )
            continue
        return Status.as_status(
            StatusError(f"expected at least one victim pod on node {go_quote(node_name)}")
        )
    return None


def _clear_nomination() -> PostFilterResult:
    return PostFilterResult(NominatingInfo("", NominatingMode.OVERRIDE))


def not_helpful(pod: Pod, num_all_nodes: int, node_to_status: NodeToStatus | None) -> FitError:
    """The FitError that says on which nodes (and why) preemption cannot help."""
    statuses = node_to_status if node_to_status is not None else NodeToStatus()
    statuses.absent_nodes_status = Status(Code.UNSCHEDULABLE_AND_UNRESOLVABLE, NOT_HELPFUL)
    return FitError(pod, num_all_nodes, Diagnosis(node_to_status=statuses))
