"""DefaultPreemption: the PostFilter that evicts lower-priority pods to make room.

The plugin supplies the decisions (``preemption.Interface``): who may preempt, how many nodes
to dry-run from a random offset, and which pods to evict on a node (all lower-priority pods
out, then as many as still fit back in, PDB-violating ones first). The shared Evaluator and
Executor do the rest. With async preemption on, it also gates the preemptor at PreEnqueue while
its victims are being evicted.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from typing import Any

from framework.api.field_errors import aggregate_message
from framework.api.labels import label_selector_as_selector
from framework.api.pod import CONDITION_TRUE, DISRUPTION_TARGET, PREEMPT_NEVER, Pod
from framework.api.policy import PodDisruptionBudget
from framework.config.types import DefaultPreemptionArgs
from framework.config.validation_pluginargs import validate_default_preemption_args
from framework.interface.cycle_state import CycleState
from framework.interface.events import (
    ActionType,
    ClusterEvent,
    ClusterEventWithHint,
    EventResource,
    QueueingHint,
)
from framework.interface.node_info import NodeInfo, PodInfo
from framework.interface.plugins import EnqueueExtensions, PostFilterPlugin, PreEnqueuePlugin
from framework.interface.status import Code, Status, code_of, is_success
from framework.interface.types import NodeToStatus, PostFilterResult
from framework.plugins import names
from framework.plugins.feature import Features
from framework.plugins.helper.typed import go_type_name
from framework.preemption.executor import POD_REASON_PREEMPTION_BY_SCHEDULER, Executor
from framework.preemption.go_sort import sort_slice
from framework.preemption.preemption import Evaluator, Interface, ScoreFunc, SelectedVictims
from framework.preemption.start_time import StartTimes
from framework.preemption.types import Candidate, Victims
from framework.storage.lookup import NotFoundError, get_object
from framework.util.clock import Clock

IsEligiblePodFunc = Callable[[NodeInfo, PodInfo, Pod], bool]
"""Extra filtering of victims, on top of "lower priority than the preemptor"."""

MoreImportantPodFunc = Callable[[Pod, Pod], bool]
"""True when the first pod should be kept in preference to the second."""

NO_VICTIMS = "No preemption victims found for incoming pod"


class DefaultPreemption(PostFilterPlugin, PreEnqueuePlugin, EnqueueExtensions, Interface):
    """Preempts the fewest, least important pods on the node where that hurts least.

    ``rng`` draws the dry run's start offset; when not given, the handle's ``rng`` (the
    scheduler's seeded generator) is used if it has one, else one seeded with 0, so runs
    repeat. ``clock`` (default: the handle's) is "now" for pods without a start time. Tests may
    replace ``get_offset_rand`` (``n -> offset``), ``is_eligible_pod`` and
    ``more_important_pod`` as upstream's tests replace the corresponding fields.
    """

    name = names.DEFAULT_PREEMPTION

    def __init__(
        self,
        args: Any,
        handle: Any,
        features: Features,
        *,
        rng: random.Random | None = None,
        clock: Clock | None = None,
    ) -> None:
        if not isinstance(args, DefaultPreemptionArgs):
            raise ValueError(f"got args of type {go_type_name(args)}, want *DefaultPreemptionArgs")
        errors = validate_default_preemption_args(None, args)
        if errors:
            raise ValueError(aggregate_message(errors))
        self.handle = handle
        self.args = args
        self.enable_async_preemption = features.enable_async_preemption
        self.enable_topology_aware_workload_scheduling = (
            features.enable_topology_aware_workload_scheduling
        )
        self._rng = rng
        self.get_offset_rand: Callable[[int], int] = self._offset_rand
        self.start_times = StartTimes(clock or getattr(handle, "clock", None))
        self.executor = Executor(handle, features)
        self.evaluator = Evaluator(self.name, handle, self, self.executor, self.start_times)
        self.is_eligible_pod: IsEligiblePodFunc = lambda node_info, victim, preemptor: True
        self.more_important_pod: MoreImportantPodFunc = self.start_times.more_important_pod

    # -- PostFilter -----------------------------------------------------------------------------

    def post_filter(
        self, state: CycleState, pod: Pod, filtered_node_status_map: NodeToStatus
    ) -> tuple[PostFilterResult | None, Status | None]:
        refusal = self._placement_based_refusal(pod)
        if refusal is not None:
            return None, refusal
        result, status = self.evaluator.preempt(state, pod, filtered_node_status_map)
        message = status.message()
        if message:
            return result, Status(status.code, "preemption: " + message)
        return result, status

    def _placement_based_refusal(self, pod: Pod) -> Status | None:
        """With TopologyAwareWorkloadScheduling, a member of a group with a topology
        constraint does not preempt pod by pod: its group is tried in several placements, and
        each would evict on its own (upstream leaves it to workload-aware preemption)."""
        group_name = pod.spec.pod_group_name
        if group_name is None or not self.enable_topology_aware_workload_scheduling:
            return None
        try:
            group = get_object(self.handle.cluster(), "PodGroup", "", group_name, pod.namespace)
        except NotFoundError:
            return Status(Code.UNSCHEDULABLE, "preemption: pod group for pod not found")
        if group.spec.topology_keys:
            return Status(
                Code.UNSCHEDULABLE,
                "preemption: not eligible due to placement-based pod group scheduling limitation",
            )
        return None

    # -- PreEnqueue and queueing ----------------------------------------------------------------

    def pre_enqueue(self, pod: Pod) -> Status | None:
        if not self.enable_async_preemption:
            return None
        if self.executor.is_pod_running_preemption(pod.uid):
            return Status(
                Code.UNSCHEDULABLE_AND_UNRESOLVABLE,
                "waiting for the preemption for this pod to be finished",
            )
        return None

    def events_to_register(self) -> list[ClusterEventWithHint]:
        if not self.enable_async_preemption:
            # PreEnqueue never gates then, so nothing can make a gated pod schedulable.
            return []
        return [
            ClusterEventWithHint(
                ClusterEvent(EventResource.POD, ActionType.DELETE),
                self.is_pod_schedulable_after_pod_deletion,
            )
        ]

    def is_pod_schedulable_after_pod_deletion(
        self, pod: Pod, old_obj: Any, new_obj: Any
    ) -> QueueingHint:
        """Always Skip: the plugins whose failure preemption resolves decide on requeueing."""
        return QueueingHint.QUEUE_SKIP

    # -- preemption.Interface -------------------------------------------------------------------

    def calculate_num_candidates(self, num_nodes: int) -> int:
        """How many candidates the dry run must find: a percentage of the nodes, at least
        the absolute minimum, at most all of them."""
        n = (num_nodes * self.args.min_candidate_nodes_percentage) // 100
        n = max(n, self.args.min_candidate_nodes_absolute)
        return min(n, num_nodes)

    def get_offset_and_num_candidates(self, num_nodes: int) -> tuple[int, int]:
        return self.get_offset_rand(num_nodes), self.calculate_num_candidates(num_nodes)

    def _offset_rand(self, n: int) -> int:
        if self._rng is None:
            handle_rng = getattr(self.handle, "rng", None)
            self._rng = handle_rng if isinstance(handle_rng, random.Random) else random.Random(0)
        return self._rng.randrange(n)

    def candidates_to_victims_map(self, candidates: list[Candidate]) -> dict[str, Victims]:
        return {candidate.name: candidate.victims for candidate in candidates}

    def pod_eligible_to_preempt_others(
        self, pod: Pod, nominated_node_status: Status | None
    ) -> tuple[bool, str]:
        """A pod may not preempt with ``preemptionPolicy: Never``, nor while victims it
        already preempted on its nominated node are still terminating."""
        if pod.spec.preemption_policy == PREEMPT_NEVER:
            return False, "not eligible due to preemptionPolicy=Never."
        nominated_node = pod.status.nominated_node_name
        if not nominated_node:
            return True, ""
        # A nominated node that no longer fits at all is worth preempting again.
        if code_of(nominated_node_status) == Code.UNSCHEDULABLE_AND_UNRESOLVABLE:
            return True, ""
        node_info = _get_node_info(self.handle, nominated_node)
        if node_info is not None:
            for pod_info in node_info.pods:
                if self._is_preemption_allowed(
                    node_info, pod_info, pod
                ) and pod_terminating_by_preemption(pod_info.pod):
                    return False, "not eligible due to a terminating pod on the nominated node."
        return True, ""

    def select_victims_on_node(
        self,
        state: CycleState,
        pod: Pod,
        node_info: NodeInfo,
        pdbs: list[PodDisruptionBudget],
    ) -> tuple[list[Pod], int, Status | None]:
        """Removes every lower-priority pod, then reprieves as many as still let the pod fit,
        PDB-violating ones first and the most important first within each group."""
        potential = self._potential_victims(node_info, pod)
        for pod_info in potential:
            status = self._remove_pod(state, pod, pod_info, node_info)
            if status is not None:
                return [], 0, status
        if not potential:
            return [], 0, Status(Code.UNSCHEDULABLE_AND_UNRESOLVABLE, NO_VICTIMS)
        # Affinity of the preemptor to its own victims is not considered, as upstream.
        status = self.handle.run_filter_plugins_with_nominated_pods(state, pod, node_info)
        if not is_success(status):
            return [], 0, status
        return self._reprieve_victims(state, pod, node_info, potential, pdbs)

    def select_victims_on_nodes(
        self,
        state: CycleState,
        pod: Pod,
        node_infos: list[NodeInfo],
        pdbs: list[PodDisruptionBudget],
    ) -> list[SelectedVictims]:
        """``select_victims_on_node`` on each node, the filtering with every lower-priority pod
        removed done in one batch for all of them (most nodes of a dry run stop there).

        Only when no PreFilter extension runs in the cycle: removing pods then leaves the
        state as it is, so one copy serves every node. Otherwise, and when plugins are called
        node by node (the debugger), each node is judged on its own.
        """
        handle = self.handle
        if handle.per_node or handle.pre_filter_extensions_run(state):
            return super().select_victims_on_nodes(state, pod, node_infos, pdbs)
        results: list[SelectedVictims] = [([], 0, None)] * len(node_infos)
        emptied: list[tuple[int, list[PodInfo]]] = []
        for index, node_info in enumerate(node_infos):
            potential = self._potential_victims(node_info, pod)
            if not potential:
                results[index] = ([], 0, Status(Code.UNSCHEDULABLE_AND_UNRESOLVABLE, NO_VICTIMS))
                continue
            try:
                node_info.remove_pods([pod_info.pod for pod_info in potential])
            except (LookupError, ValueError) as err:
                results[index] = ([], 0, Status.as_status(err))
                continue
            emptied.append((index, potential))
        if not emptied:
            return results
        state = state.clone()
        statuses = handle.run_filter_plugins_with_nominated_pods_on_nodes(
            state, pod, [node_infos[index] for index, _ in emptied]
        )
        fitting: list[tuple[int, list[PodInfo]]] = []
        for (index, potential), status in zip(emptied, statuses, strict=True):
            if is_success(status):
                fitting.append((index, potential))
            else:
                results[index] = ([], 0, status)
        if not fitting:
            return results
        if pdbs:
            # Victims may be sorted again after their reprieve: one node after the other keeps
            # upstream's order of "now" readings.
            for index, potential in fitting:
                node_info = node_infos[index]
                results[index] = self._reprieve_victims(state, pod, node_info, potential, pdbs)
            return results
        reprieved = self._reprieve_victims_on_nodes(
            state, pod, [(node_infos[index], potential) for index, potential in fitting]
        )
        for (index, _), result in zip(fitting, reprieved, strict=True):
            results[index] = result
        return results

    def _reprieve_victims_on_nodes(
        self, state: CycleState, pod: Pod, nodes: list[tuple[NodeInfo, list[PodInfo]]]
    ) -> list[SelectedVictims]:
        """``_reprieve_victims`` on each node, without PDBs nor PreFilter extensions: the k-th
        pod of every node is put back, then those nodes are filtered in one batch.

        Each node sees the same pods in the same order as on its own (most important first;
        without PDBs none violates one, and the victims keep that order).
        """
        for _, potential in nodes:
            sort_slice(potential, lambda a, b: self.more_important_pod(a.pod, b.pod))
        victims: list[list[Pod]] = [[] for _ in nodes]
        errors: dict[int, Status] = {}
        for step in range(max(len(potential) for _, potential in nodes)):
            active = [j for j, (_, p) in enumerate(nodes) if step < len(p) and j not in errors]
            for j in active:
                node_info, potential = nodes[j]
                node_info.add_pod_info(potential[step])
            statuses = self.handle.run_filter_plugins_with_nominated_pods_on_nodes(
                state, pod, [nodes[j][0] for j in active]
            )
            for j, status in zip(active, statuses, strict=True):
                if is_success(status):
                    continue
                node_info, potential = nodes[j]
                victim = potential[step].pod
                try:
                    node_info.remove_pod(victim)
                except (LookupError, ValueError) as err:
                    errors[j] = Status.as_status(err)
                    continue
                victims[j].append(victim)
        return [
            ([], 0, errors[j]) if j in errors else (found, 0, Status(Code.SUCCESS))
            for j, found in enumerate(victims)
        ]

    def _potential_victims(self, node_info: NodeInfo, pod: Pod) -> list[PodInfo]:
        """The node's pods the preemptor may evict, in the node's order."""
        return [p for p in node_info.pods if self._is_preemption_allowed(node_info, p, pod)]

    def _reprieve_victims(
        self,
        state: CycleState,
        pod: Pod,
        node_info: NodeInfo,
        potential: list[PodInfo],
        pdbs: list[PodDisruptionBudget],
    ) -> tuple[list[Pod], int, Status | None]:
        """Puts the removed pods back one by one, PDB-violating ones first and the most
        important first within each group; those after which the pod no longer fits are the
        victims."""
        sort_slice(potential, lambda a, b: self.more_important_pod(a.pod, b.pod))
        violating, non_violating = filter_pods_with_pdb_violation(potential, pdbs)
        victims: list[PodInfo] = []
        num_violating_victims = 0
        for group in (violating, non_violating):
            for pod_info in group:
                fits, status = self._reprieve(state, pod, pod_info, node_info)
                if status is not None:
                    return [], 0, status
                if not fits:
                    victims.append(pod_info)
                    if group is violating:
                        num_violating_victims += 1
        if violating and non_violating:
            sort_slice(victims, lambda a, b: self.more_important_pod(a.pod, b.pod))
        return [v.pod for v in victims], num_violating_victims, Status(Code.SUCCESS)

    def ordered_score_funcs(self, nodes_to_victims: dict[str, Victims]) -> list[ScoreFunc] | None:
        return None

    # -- helpers ----------------------------------------------------------------------------------

    def _is_preemption_allowed(self, node_info: NodeInfo, victim: PodInfo, preemptor: Pod) -> bool:
        return victim.pod.spec.priority < preemptor.spec.priority and self.is_eligible_pod(
            node_info, victim, preemptor
        )

    def _remove_pod(
        self, state: CycleState, pod: Pod, pod_info: PodInfo, node_info: NodeInfo
    ) -> Status | None:
        try:
            node_info.remove_pod(pod_info.pod)
        except (LookupError, ValueError) as err:
            return Status.as_status(err)
        status = self.handle.run_pre_filter_extension_remove_pod(state, pod, pod_info, node_info)
        return None if is_success(status) else Status.as_status(status.as_error())

    def _add_pod(
        self, state: CycleState, pod: Pod, pod_info: PodInfo, node_info: NodeInfo
    ) -> Status | None:
        node_info.add_pod_info(pod_info)
        status = self.handle.run_pre_filter_extension_add_pod(state, pod, pod_info, node_info)
        return None if is_success(status) else Status.as_status(status.as_error())

    def _reprieve(
        self, state: CycleState, pod: Pod, pod_info: PodInfo, node_info: NodeInfo
    ) -> tuple[bool, Status | None]:
        """Puts the pod back; takes it out again (a victim) if the preemptor no longer fits."""
        status = self._add_pod(state, pod, pod_info, node_info)
        if status is not None:
            return False, status
        fits = is_success(self.handle.run_filter_plugins_with_nominated_pods(state, pod, node_info))
        if not fits:
            status = self._remove_pod(state, pod, pod_info, node_info)
            if status is not None:
                return False, status
        return fits, None


def pod_terminating_by_preemption(pod: Pod) -> bool:
    """Being deleted, with the DisruptionTarget condition the scheduler sets on its victims."""
    if pod.metadata.deletion_timestamp is None:
        return False
    condition = pod.status.condition(DISRUPTION_TARGET)
    if condition is None:
        return False
    return (
        condition.status == CONDITION_TRUE
        and condition.reason == POD_REASON_PREEMPTION_BY_SCHEDULER
    )


def filter_pods_with_pdb_violation(
    pod_infos: list[PodInfo], pdbs: list[PodDisruptionBudget]
) -> tuple[list[PodInfo], list[PodInfo]]:
    """Splits pods into those whose eviction would exceed a PDB's budget and the others.

    Budgets are spent in order, so of several pods under one PDB the later ones violate it.
    A pod already in a PDB's ``disruptedPods`` was counted by the API server and spends nothing.
    The order of the input is kept within each group.
    """
    allowed = [pdb.disruptions_allowed for pdb in pdbs]
    violating: list[PodInfo] = []
    non_violating: list[PodInfo] = []
    for pod_info in pod_infos:
        pod = pod_info.pod
        violated = False
        if pod.labels:
            for index, pdb in enumerate(pdbs):
                if not _pdb_covers(pdb, pod):
                    continue
                allowed[index] -= 1
                if allowed[index] < 0:
                    violated = True
        (violating if violated else non_violating).append(pod_info)
    return violating, non_violating


def _pdb_covers(pdb: PodDisruptionBudget, pod: Pod) -> bool:
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


def _get_node_info(handle: Any, node_name: str) -> NodeInfo | None:
    try:
        return handle.snapshot_shared_lister().node_infos().get(node_name)
    except LookupError:
        return None
