"""PreFilter and Filter: how many matching pods each topology domain holds, and the skew check.

PreFilter counts, per DoNotSchedule constraint, the matching pods of every domain and keeps
the smallest count; Filter rejects a node when placing the pod there would make its domain
exceed the smallest one by more than ``maxSkew``. AddPod/RemovePod keep the counts right while
preemption and nominated pods are simulated.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from heapq import nsmallest
from typing import TYPE_CHECKING

from framework.api.node_affinity import RequiredNodeAffinity
from framework.interface.cycle_state import CycleState, NotFoundError
from framework.interface.plugins import BatchFilterPlugin, PreFilterExtensions, PreFilterPlugin
from framework.interface.status import Code, Status
from framework.plugins import names
from framework.plugins.podtopologyspread.common import (
    ConstraintsError,
    SpreadBase,
    TopologySpreadConstraint,
    node_labels_match_spread_constraints,
)
from framework.plugins.podtopologyspread.domain_counts import count_matching_pods

if TYPE_CHECKING:
    from framework.api.node import Node
    from framework.api.pod import Pod
    from framework.interface.node_info import NodeInfo, PodInfo
    from framework.interface.types import PreFilterResult

PRE_FILTER_STATE_KEY = "PreFilter" + names.POD_TOPOLOGY_SPREAD

ERR_REASON_CONSTRAINTS_NOT_MATCH = "node(s) didn't match pod topology spread constraints"
ERR_REASON_NODE_LABEL_NOT_MATCH = ERR_REASON_CONSTRAINTS_NOT_MATCH + " (missing required label)"

_MAX_INT32 = (1 << 31) - 1


class CriticalPath:
    """A topology value and how many matching pods its domain holds."""

    __slots__ = ("match_num", "topology_value")

    def __init__(self, topology_value: str = "", match_num: int = _MAX_INT32) -> None:
        self.topology_value = topology_value
        self.match_num = match_num

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, CriticalPath):
            return NotImplemented
        return (self.topology_value, self.match_num) == (other.topology_value, other.match_num)

    def __repr__(self) -> str:
        return f"CriticalPath({self.topology_value!r}, {self.match_num})"


class CriticalPaths:
    """The two domains with the fewest matching pods, as far as upstream tracks them.

    ``paths[0].match_num`` is always the minimum; ``paths[1]`` is at least as large but not
    necessarily the second smallest after incremental updates. That is enough because
    preemption only ever changes pods on one node per simulation.
    """

    __slots__ = ("paths",)

    def __init__(self, paths: tuple[CriticalPath, CriticalPath] | None = None) -> None:
        self.paths = paths if paths is not None else (CriticalPath(), CriticalPath())

    def update(self, topology_value: str, num: int) -> None:
        first, second = self.paths
        if topology_value == first.topology_value:
            first.match_num = num
        elif topology_value == second.topology_value:
            second.match_num = num
        elif num < first.match_num:
            self.paths = (CriticalPath(topology_value, num), first)
            return
        elif num < second.match_num:
            self.paths = (first, CriticalPath(topology_value, num))
            return
        else:
            return
        if first.match_num > second.match_num:
            self.paths = (second, first)

    def clone(self) -> CriticalPaths:
        first, second = self.paths
        return CriticalPaths(
            (
                CriticalPath(first.topology_value, first.match_num),
                CriticalPath(second.topology_value, second.match_num),
            )
        )

    def __repr__(self) -> str:
        return f"CriticalPaths{self.paths!r}"


def critical_paths_of(counts: Mapping[str, int]) -> CriticalPaths:
    """The critical paths of ``counts`` as if each domain were ``update``d in turn: the
    smallest count, then the smallest of the others, the earlier domain first among equals."""
    paths = CriticalPaths()
    # The two smallest, stable among equals, are all that the updates in turn would keep.
    smallest = counts.items() if len(counts) <= 2 else nsmallest(2, counts.items(), key=_count)
    for value, num in smallest:
        paths.update(value, num)
    return paths


def _count(item: tuple[str, int]) -> int:
    return item[1]


class PreFilterState:
    """Per DoNotSchedule constraint: matching pods per topology value and the critical paths.

    A state without constraints is legitimate and lets every node pass.
    """

    __slots__ = ("constraints", "critical_paths", "tp_value_to_match_num")

    def __init__(
        self,
        constraints: list[TopologySpreadConstraint] | None = None,
        critical_paths: list[CriticalPaths] | None = None,
        tp_value_to_match_num: list[dict[str, int]] | None = None,
    ) -> None:
        self.constraints = constraints or []
        self.critical_paths = critical_paths or []
        self.tp_value_to_match_num = tp_value_to_match_num or []

    def min_match_num(self, constraint_id: int, min_domains: int) -> int:
        """The global minimum for the skew; 0 while fewer than ``minDomains`` domains exist."""
        if len(self.tp_value_to_match_num[constraint_id]) < min_domains:
            return 0
        return self.critical_paths[constraint_id].paths[0].match_num

    def clone(self) -> PreFilterState:
        # The constraints never change during a cycle, so they are shared.
        return PreFilterState(
            self.constraints,
            [paths.clone() for paths in self.critical_paths],
            [dict(counts) for counts in self.tp_value_to_match_num],
        )


class SpreadFiltering(SpreadBase, PreFilterPlugin, BatchFilterPlugin, PreFilterExtensions):
    """PodTopologySpread's PreFilter, its AddPod/RemovePod extensions and Filter."""

    def pre_filter(
        self, state: CycleState, pod: Pod, nodes: list[NodeInfo]
    ) -> tuple[PreFilterResult | None, Status | None]:
        try:
            pre_filter_state = self.cal_pre_filter_state(pod, nodes)
        except ConstraintsError as err:
            return None, Status.error(f"get constraints from pod: {err}")
        if not pre_filter_state.constraints:
            return None, Status(Code.SKIP)
        state.write(PRE_FILTER_STATE_KEY, pre_filter_state)
        return None, None

    def pre_filter_extensions(self) -> PreFilterExtensions:
        return self

    def add_pod(
        self, state: CycleState, pod_to_schedule: Pod, pod_info_to_add: PodInfo, node_info: NodeInfo
    ) -> Status | None:
        return self._update_state(state, pod_info_to_add.pod, pod_to_schedule, node_info.node, 1)

    def remove_pod(
        self,
        state: CycleState,
        pod_to_schedule: Pod,
        pod_info_to_remove: PodInfo,
        node_info: NodeInfo,
    ) -> Status | None:
        return self._update_state(
            state, pod_info_to_remove.pod, pod_to_schedule, node_info.node, -1
        )

    def _update_state(
        self, state: CycleState, updated_pod: Pod, preemptor: Pod, node: Node | None, delta: int
    ) -> Status | None:
        try:
            pre_filter_state = get_pre_filter_state(state)
        except _StateError as err:
            return Status.error(str(err))
        self.update_with_pod(pre_filter_state, updated_pod, preemptor, node, delta)
        return None

    def update_with_pod(
        self, s: PreFilterState, updated_pod: Pod, preemptor: Pod, node: Node | None, delta: int
    ) -> None:
        """Adds ``delta`` to the domain counts ``updated_pod`` contributes to on ``node``."""
        if updated_pod.namespace != preemptor.namespace or node is None:
            return
        if not node_labels_match_spread_constraints(node.labels, s.constraints):
            return
        required = RequiredNodeAffinity.from_pod(preemptor)
        with_policies = self.enable_node_inclusion_policy_in_pod_topology_spread
        # Without inclusion policies, spreading only counts nodes the pod's affinity accepts.
        if not with_policies and not required.match(node):
            return
        pod_labels = updated_pod.labels
        for i, constraint in enumerate(s.constraints):
            if not constraint.selector.matches(pod_labels):
                continue
            if with_policies and not constraint.match_node_inclusion_policies(
                preemptor, node, required, self.enable_taint_toleration_comparison_operators
            ):
                continue
            value = node.labels[constraint.topology_key]
            counts = s.tp_value_to_match_num[i]
            counts[value] = counts.get(value, 0) + delta
            s.critical_paths[i].update(value, counts[value])

    def cal_pre_filter_state(self, pod: Pod, all_nodes: list[NodeInfo]) -> PreFilterState:
        """Counts matching pods per domain over every node and finds the critical paths."""
        constraints = self.get_constraints(pod)
        if not constraints:
            return PreFilterState()
        # A node counts for a constraint only if it carries every constraint's key.
        keys = tuple(constraint.topology_key for constraint in constraints)
        counts = [
            dict(count_matching_pods(self, pod, constraint, keys, all_nodes))
            for constraint in constraints
        ]
        return PreFilterState(
            constraints, [critical_paths_of(domain_counts) for domain_counts in counts], counts
        )

    def filter(self, state: CycleState, pod: Pod, node_info: NodeInfo) -> Status | None:
        try:
            s = get_pre_filter_state(state)
        except _StateError as err:
            return Status.error(str(err))
        if not s.constraints:
            return None
        node_labels = node_info.node.labels
        pod_labels = pod.labels
        for i, constraint in enumerate(s.constraints):
            value = node_labels.get(constraint.topology_key)
            if value is None:
                return Status(Code.UNSCHEDULABLE_AND_UNRESOLVABLE, ERR_REASON_NODE_LABEL_NOT_MATCH)
            # 'existing matching num' + 'self match (1 or 0)' - 'global minimum' <= maxSkew
            min_match_num = s.min_match_num(i, constraint.min_domains)
            self_match_num = 1 if constraint.selector.matches(pod_labels) else 0
            match_num = s.tp_value_to_match_num[i].get(value, 0)
            if match_num + self_match_num - min_match_num > constraint.max_skew:
                return Status(Code.UNSCHEDULABLE, ERR_REASON_CONSTRAINTS_NOT_MATCH)
        return None

    def filter_nodes(
        self, state: CycleState, pod: Pod, node_infos: Sequence[NodeInfo]
    ) -> list[Status | None]:
        """``filter`` for each node, with each constraint's pod-wide terms worked out once:
        per constraint, the largest count a domain may hold."""
        try:
            s = get_pre_filter_state(state)
        except _StateError:
            return [self.filter(state, pod, node_info) for node_info in node_infos]
        statuses: list[Status | None] = [None] * len(node_infos)
        if not s.constraints:
            return statuses
        pod_labels = pod.labels
        # 'existing matching num' + 'self match (1 or 0)' - 'global minimum' <= maxSkew
        checks = [
            (
                constraint.topology_key,
                s.tp_value_to_match_num[i],
                constraint.max_skew
                + s.min_match_num(i, constraint.min_domains)
                - (1 if constraint.selector.matches(pod_labels) else 0),
            )
            for i, constraint in enumerate(s.constraints)
        ]
        for index, node_info in enumerate(node_infos):
            node_labels = node_info.node.metadata.labels
            for key, counts, most in checks:
                value = node_labels.get(key)
                if value is None:
                    statuses[index] = Status(
                        Code.UNSCHEDULABLE_AND_UNRESOLVABLE, ERR_REASON_NODE_LABEL_NOT_MATCH
                    )
                    break
                if counts.get(value, 0) > most:
                    statuses[index] = Status(Code.UNSCHEDULABLE, ERR_REASON_CONSTRAINTS_NOT_MATCH)
                    break
        return statuses


class _StateError(Exception):
    """The cycle state holds no usable PreFilter state (PreFilter did not run)."""


def get_pre_filter_state(state: CycleState) -> PreFilterState:
    try:
        value = state.read(PRE_FILTER_STATE_KEY)
    except NotFoundError as err:
        raise _StateError(f'reading "{PRE_FILTER_STATE_KEY}" from cycleState: {err}') from None
    if not isinstance(value, PreFilterState):
        raise _StateError(f"{value!r} convert to podtopologyspread.preFilterState error")
    return value
