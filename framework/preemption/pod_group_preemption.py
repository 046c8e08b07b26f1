"""Workload-aware preemption: room for a whole pod group (upstream podgrouppreemption.go).

Run when a pod group's cycle found the group unschedulable (WorkloadAwarePreemption). The
domain is the whole cluster: every pod of lower priority than the *PodGroup* is taken out of
the cycle's snapshot at once, a pod group whose ``disruptionMode`` is ``PodGroup`` as one unit;
if the group then fits, units are put back, the most important first (PDB-violating ones
before the others), as long as it still fits. Whatever could not be put back is evicted.

Feasibility is the caller's pod-group algorithm run without PostFilter, on the snapshot the
victims are taken out of: the caller backs the snapshot up before and restores it after.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import TYPE_CHECKING

from framework.api.pod import PREEMPT_NEVER
from framework.api.pod_group import DISRUPTION_MODE_POD_GROUP, PodGroup
from framework.interface.status import Code, Status, is_success
from framework.plugins import names
from framework.preemption.go_sort import sort_slice
from framework.preemption.preemption import get_pod_disruption_budgets, pdb_covers
from framework.preemption.start_time import StartTimes
from framework.preemption.types import Domain, PodGroupPreemptor, Victim, Victims

if TYPE_CHECKING:
    from framework.api.pod import Pod
    from framework.api.policy import PodDisruptionBudget
    from framework.interface.handle import Handle
    from framework.interface.node_info import NodeInfo, PodInfo
    from framework.preemption.executor import Executor

logger = logging.getLogger(__name__)

PodGroupSchedulingFunc = Callable[[], "Status | None"]
"""Whether the group fits the snapshot as it is now (None or Success: it does)."""

PodGroupLookup = Callable[[str, str], "PodGroup | None"]
"""A PodGroup by namespace and name, None when there is none."""

NO_VICTIMS_FOR_PREEMPTOR = "No preemption victims found for incoming preemptor"
NOT_ELIGIBLE_NEVER = "not eligible due to preemptionPolicy=Never."
CLUSTER_DOMAIN = "cluster-domain"


class PodGroupEvaluator:
    """Preempts for a pod group over the whole cluster (upstream ``PodGroupEvaluator``)."""

    def __init__(self, handle: Handle, executor: Executor, start_times: StartTimes) -> None:
        self.handle = handle
        self.executor = executor
        self.start_times = start_times

    def preempt(
        self,
        pod_group: PodGroup,
        pods: list[Pod],
        pod_group_scheduling_func: PodGroupSchedulingFunc,
    ) -> Status | None:
        """Evicts the fewest, least important units that let the group fit; changes the
        snapshot's NodeInfos, which the caller restores."""
        lister = self.handle.snapshot_shared_lister()
        all_nodes = lister.node_infos().list()
        domain = new_domain_for_workload_preemption(
            all_nodes, self._pod_group, CLUSTER_DOMAIN, self.start_times
        )
        preemptor = PodGroupPreemptor(pod_group, pods)
        pdbs = get_pod_disruption_budgets(self.handle)
        victims, status = self.select_victims_on_domain(
            preemptor, domain, pdbs, pod_group_scheduling_func, lister
        )
        if not is_success(status):
            return status
        return self.executor.actuate_pod_group_preemption(
            victims, preemptor.pods, preemptor.pod_group, names.DEFAULT_PREEMPTION
        )

    def select_victims_on_domain(
        self,
        preemptor: PodGroupPreemptor,
        domain: Domain,
        pdbs: list[PodDisruptionBudget],
        pod_group_scheduling_func: PodGroupSchedulingFunc,
        lister: object = None,
    ) -> tuple[Victims | None, Status | None]:
        """The units to evict, most important first; the snapshot is left without them.

        PreFilter's AddPod / RemovePod extensions are not run (the group's algorithm runs
        PreFilter itself each time). ``lister``, the snapshot, is told of every NodeInfo
        changed in place, so the sums it keeps stay true.
        """
        eligible, message = preemptor_eligible_to_preempt_others(preemptor)
        if not eligible:
            return None, Status(Code.UNSCHEDULABLE, message)
        potential = [v for v in domain.all_possible_victims if is_preemption_allowed(v, preemptor)]
        if not potential:
            return None, Status(Code.UNSCHEDULABLE_AND_UNRESOLVABLE, NO_VICTIMS_FOR_PREEMPTOR)
        for victim in potential:
            status = _remove_pods(victim, lister)
            if status is not None:
                return None, status
        status = pod_group_scheduling_func()
        if not is_success(status):
            return None, status

        sort_slice(potential, more_important_victim)
        violating, non_violating = filter_victims_with_pdb_violation(potential, pdbs)
        to_preempt: list[Victim] = []
        for victim in violating + non_violating:
            _add_pods(victim, lister)
            if not is_success(pod_group_scheduling_func()):
                status = _remove_pods(victim, lister)
                if status is not None:
                    return None, status
                to_preempt.append(victim)
        sort_slice(to_preempt, more_important_victim)
        return Victims([p.pod for v in to_preempt for p in v.pods]), None

    def _pod_group(self, namespace: str, name: str) -> PodGroup | None:
        cluster = self.handle.cluster()
        group = cluster.get("PodGroup", name, namespace) if cluster is not None else None
        return group if isinstance(group, PodGroup) else None


def preemptor_eligible_to_preempt_others(preemptor: PodGroupPreemptor) -> tuple[bool, str]:
    """A group with ``preemptionPolicy: Never`` (from any member) may not preempt."""
    if preemptor.preemption_policy == PREEMPT_NEVER:
        return False, NOT_ELIGIBLE_NEVER
    return True, ""


def is_preemption_allowed(victim: Victim, preemptor: PodGroupPreemptor) -> bool:
    """Only units of lower priority than the preemptor's PodGroup may be evicted."""
    return victim.priority < preemptor.priority


def new_domain_for_workload_preemption(
    nodes: list[NodeInfo], pod_group_of: PodGroupLookup, name: str, start_times: StartTimes
) -> Domain:
    """Every running pod as a victim of its own, but the members of a PodGroup with
    ``disruptionMode: PodGroup`` together as one, with the PodGroup's priority.

    Upstream collects the units in a map and lists them in Go's random map order; here they
    come in the order first seen (nodes in the snapshot's order, then each node's pods), the
    order their "now" start times give them anyway when pods have no start time.
    """
    victims: dict[str, Victim] = {}
    for node_info in nodes:
        for pod_info in node_info.pods:
            pod = pod_info.pod
            group = _preemptible_pod_group(pod, pod_group_of)
            if group is None:
                victims[pod.uid] = _new_victim(pod_info, pod.spec.priority, node_info, start_times)
                continue
            victim = victims.get(group.uid)
            if victim is not None:
                # As upstream: the unit's start time stays its first pod's.
                victim.pods.append(pod_info)
                victim.affected_nodes[node_info.node_name] = node_info
                continue
            victims[group.uid] = _new_victim(pod_info, group.spec.priority, node_info, start_times)
    return Domain(name, nodes, list(victims.values()))


def _preemptible_pod_group(pod: Pod, pod_group_of: PodGroupLookup) -> PodGroup | None:
    """The pod's PodGroup when the group is disrupted as a whole (``disruptionMode:
    PodGroup``); None for a pod outside groups, of a missing group, or of a ``Pod`` one."""
    if pod.spec.pod_group_name is None:
        return None
    group = pod_group_of(pod.namespace, pod.spec.pod_group_name)
    if group is None or group.spec.disruption_mode != DISRUPTION_MODE_POD_GROUP:
        return None
    return group


def _new_victim(
    pod_info: PodInfo, priority: int, node_info: NodeInfo, start_times: StartTimes
) -> Victim:
    return Victim([pod_info], priority, [node_info], start_times.of(pod_info.pod))


def more_important_victim(v1: Victim, v2: Victim) -> bool:
    """Whether ``v1`` should rather be kept than ``v2``: higher priority; at equal priority a
    pod group's unit before a lone pod; two lone pods, the older; two groups, the larger,
    then the older (upstream ``moreImportantVictim``)."""
    if v1.priority != v2.priority:
        return v1.priority > v2.priority
    if v1.is_pod_group() != v2.is_pod_group():
        return v1.is_pod_group()
    if not v1.is_pod_group():
        return _before(v1.earliest_start_time, v2.earliest_start_time)
    if len(v1.pods) != len(v2.pods):
        return len(v1.pods) > len(v2.pods)
    return _before(v1.earliest_start_time, v2.earliest_start_time)


def _before(t1: int | None, t2: int | None) -> bool:
    """Go's ``(*metav1.Time).Before``: false when either time is missing."""
    return t1 is not None and t2 is not None and t1 < t2


def filter_victims_with_pdb_violation(
    victims: list[Victim], pdbs: list[PodDisruptionBudget]
) -> tuple[list[Victim], list[Victim]]:
    """Splits units into those whose eviction would exceed some PDB's budget (any member
    violating makes the unit violating) and the others, each in the given order.

    Budgets are spent in order; a pod stops spending at the first PDB it violates, and a
    unit stops at its first violating member, as upstream's.
    """
    allowed = [pdb.disruptions_allowed for pdb in pdbs]

    def violates(pod: Pod) -> bool:
        if not pod.labels:
            return False
        for index, pdb in enumerate(pdbs):
            if not pdb_covers(pdb, pod):
                continue
            allowed[index] -= 1
            if allowed[index] < 0:
                return True
        return False

    violating: list[Victim] = []
    non_violating: list[Victim] = []
    for victim in victims:
        unit_violates = any(violates(pod_info.pod) for pod_info in victim.pods)
        (violating if unit_violates else non_violating).append(victim)
    return violating, non_violating


def _remove_pods(victim: Victim, lister: object) -> Status | None:
    for pod_info in victim.pods:
        node_info = victim.affected_nodes[pod_info.pod.spec.node_name]
        try:
            node_info.remove_pod(pod_info.pod)
        except (LookupError, ValueError) as err:
            return Status.as_status(err)
        _node_changed(lister, node_info)
    return None


def _add_pods(victim: Victim, lister: object) -> None:
    for pod_info in victim.pods:
        node_info = victim.affected_nodes[pod_info.pod.spec.node_name]
        node_info.add_pod_info(pod_info)
        _node_changed(lister, node_info)


def _node_changed(lister: object, node_info: NodeInfo) -> None:
    """Tells the scheduler's snapshot (the only lister keeping sums) of a change in place."""
    sums = getattr(lister, "node_sums", None)
    if sums is not None:
        sums.node_changed(node_info)
