"""PreFilter and Filter: required pod affinity and anti-affinity, counted per topology pair.

PreFilter counts, per (topology key, value) pair: existing pods whose required anti-affinity
matches the incoming pod, and existing pods matching the incoming pod's required affinity and
anti-affinity terms. Filter then only looks up the node's own pairs. AddPod/RemovePod keep the
counts right while preemption and nominated pods are simulated.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import TYPE_CHECKING, Any

from framework.interface.cycle_state import CycleState, NotFoundError
from framework.interface.node_info import AffinityTerm, PodInfo
from framework.interface.node_sums import sum_over
from framework.interface.plugins import BatchFilterPlugin, PreFilterExtensions, PreFilterPlugin
from framework.interface.status import Code, Status
from framework.plugins import names
from framework.plugins.interpodaffinity.namespaces import (
    get_namespace_labels_snapshot,
    merge_affinity_term_namespaces_if_not_empty,
)
from framework.plugins.interpodaffinity.pair_counts import (
    AffinityCounts,
    AntiAffinityCounts,
    ExistingAntiAffinityCounts,
    TopologyPair,
    pod_matches_all_affinity_terms,
)

if TYPE_CHECKING:
    from framework.api.node import Node
    from framework.api.pod import Pod
    from framework.cluster.interface import Cluster
    from framework.interface.node_info import NodeInfo
    from framework.interface.types import PreFilterResult

PRE_FILTER_STATE_KEY = "PreFilter" + names.INTER_POD_AFFINITY

ERR_REASON_EXISTING_ANTI_AFFINITY_RULES_NOT_MATCH = (
    "node(s) didn't satisfy existing pods anti-affinity rules"
)
ERR_REASON_AFFINITY_RULES_NOT_MATCH = "node(s) didn't match pod affinity rules"
ERR_REASON_ANTI_AFFINITY_RULES_NOT_MATCH = "node(s) didn't match pod anti-affinity rules"

TopologyToMatchedTermCount = dict[TopologyPair, int]


class PreFilterState:
    """The three pair counts plus the incoming pod's terms (namespace selectors merged)."""

    __slots__ = (
        "affinity_counts",
        "affinity_terms",
        "anti_affinity_counts",
        "anti_affinity_terms",
        "existing_anti_affinity_counts",
        "namespace_labels",
        "pod",
    )

    def __init__(
        self,
        pod: Pod,
        affinity_terms: list[AffinityTerm],
        anti_affinity_terms: list[AffinityTerm],
        namespace_labels: Mapping[str, str],
    ) -> None:
        self.pod = pod
        self.affinity_terms = affinity_terms
        self.anti_affinity_terms = anti_affinity_terms
        # A copy of the incoming pod's namespace labels.
        self.namespace_labels = namespace_labels
        # Existing pods whose required anti-affinity matches the incoming pod.
        self.existing_anti_affinity_counts: TopologyToMatchedTermCount = {}
        # Existing pods matching all the incoming pod's required affinity terms.
        self.affinity_counts: TopologyToMatchedTermCount = {}
        # Existing pods matching the incoming pod's required anti-affinity terms.
        self.anti_affinity_counts: TopologyToMatchedTermCount = {}

    def clone(self) -> PreFilterState:
        copy = PreFilterState(
            self.pod, self.affinity_terms, self.anti_affinity_terms, self.namespace_labels
        )
        copy.existing_anti_affinity_counts = dict(self.existing_anti_affinity_counts)
        copy.affinity_counts = dict(self.affinity_counts)
        copy.anti_affinity_counts = dict(self.anti_affinity_counts)
        return copy

    def update_with_pod(self, pod_info: PodInfo, node: Node, multiplier: int) -> None:
        """Adds (or with -1 removes) what one pod on ``node`` contributes to the counts."""
        _update_with_anti_affinity_terms(
            self.existing_anti_affinity_counts,
            pod_info.required_anti_affinity_terms,
            self.pod,
            self.namespace_labels,
            node,
            multiplier,
        )
        if pod_matches_all_affinity_terms(self.affinity_terms, pod_info.pod):
            for term in self.affinity_terms:
                _update(self.affinity_counts, node, term.topology_key, multiplier)
        # The incoming pod's namespace selectors are merged already: no namespace labels.
        _update_with_anti_affinity_terms(
            self.anti_affinity_counts,
            self.anti_affinity_terms,
            pod_info.pod,
            None,
            node,
            multiplier,
        )


def _update(counts: TopologyToMatchedTermCount, node: Node, key: str, value: int) -> None:
    """Adds to the node's pair for ``key``; a count that drops to zero is removed."""
    topology_value = node.labels.get(key)
    if topology_value is None:
        return
    pair = (key, topology_value)
    total = counts.get(pair, 0) + value
    if total == 0:
        counts.pop(pair, None)
    else:
        counts[pair] = total


def _update_with_anti_affinity_terms(
    counts: TopologyToMatchedTermCount,
    terms: Iterable[AffinityTerm],
    pod: Pod,
    namespace_labels: Mapping[str, str] | None,
    node: Node,
    value: int,
) -> None:
    for term in terms:
        if term.matches(pod, namespace_labels):
            _update(counts, node, term.topology_key, value)


class AffinityFiltering(PreFilterPlugin, BatchFilterPlugin, PreFilterExtensions):
    """InterPodAffinity's PreFilter, its AddPod/RemovePod extensions and Filter."""

    handle: Any
    cluster: Cluster | None

    def pre_filter(
        self, state: CycleState, pod: Pod, nodes: list[NodeInfo]
    ) -> tuple[PreFilterResult | None, Status | None]:
        lister = self.handle.snapshot_shared_lister()
        if lister is None:
            return None, Status.error("SnapshotSharedlister is nil")
        pod_info = PodInfo(pod)
        if pod_info.parse_error is not None:
            return None, Status(
                Code.UNSCHEDULABLE_AND_UNRESOLVABLE, f"parsing pod: {pod_info.parse_error}"
            )
        s = PreFilterState(
            pod,
            [
                merge_affinity_term_namespaces_if_not_empty(term, self.cluster)
                for term in pod_info.required_affinity_terms
            ],
            [
                merge_affinity_term_namespaces_if_not_empty(term, self.cluster)
                for term in pod_info.required_anti_affinity_terms
            ],
            get_namespace_labels_snapshot(pod.namespace, self.cluster),
        )
        s.existing_anti_affinity_counts = dict(
            sum_over(
                ExistingAntiAffinityCounts.of(pod, s.namespace_labels),
                lister,
                lister.node_infos().have_pods_with_required_anti_affinity_list(),
            )
        )
        s.affinity_counts, s.anti_affinity_counts = get_incoming_affinity_anti_affinity_counts(
            s.affinity_terms, s.anti_affinity_terms, nodes, lister
        )
        if (
            not s.existing_anti_affinity_counts
            and not s.affinity_terms
            and not s.anti_affinity_terms
        ):
            return None, Status(Code.SKIP)
        state.write(PRE_FILTER_STATE_KEY, s)
        return None, None

    def pre_filter_extensions(self) -> PreFilterExtensions:
        return self

    def add_pod(
        self, state: CycleState, pod_to_schedule: Pod, pod_info_to_add: PodInfo, node_info: NodeInfo
    ) -> Status | None:
        try:
            s = get_pre_filter_state(state)
        except _StateError as err:
            return Status.error(str(err))
        s.update_with_pod(pod_info_to_add, node_info.node, 1)
        return None

    def remove_pod(
        self,
        state: CycleState,
        pod_to_schedule: Pod,
        pod_info_to_remove: PodInfo,
        node_info: NodeInfo,
    ) -> Status | None:
        try:
            s = get_pre_filter_state(state)
        except _StateError as err:
            return Status.error(str(err))
        s.update_with_pod(pod_info_to_remove, node_info.node, -1)
        return None

    def filter(self, state: CycleState, pod: Pod, node_info: NodeInfo) -> Status | None:
        try:
            s = get_pre_filter_state(state)
        except _StateError as err:
            return Status.error(str(err))
        node_labels = node_info.node.labels
        if not satisfy_pod_affinity(s, node_labels):
            return Status(Code.UNSCHEDULABLE_AND_UNRESOLVABLE, ERR_REASON_AFFINITY_RULES_NOT_MATCH)
        if not satisfy_pod_anti_affinity(s, node_labels):
            return Status(Code.UNSCHEDULABLE, ERR_REASON_ANTI_AFFINITY_RULES_NOT_MATCH)
        if not satisfy_existing_pods_anti_affinity(s, node_labels):
            return Status(Code.UNSCHEDULABLE, ERR_REASON_EXISTING_ANTI_AFFINITY_RULES_NOT_MATCH)
        return None

    def filter_nodes(
        self, state: CycleState, pod: Pod, node_infos: Sequence[NodeInfo]
    ) -> list[Status | None]:
        """``filter`` for each node, with the state read and what the checks read taken out
        once: the checks run inline, in ``filter``'s order, and fail with its statuses."""
        try:
            s = get_pre_filter_state(state)
        except _StateError:
            return [self.filter(state, pod, node_info) for node_info in node_infos]
        statuses: list[Status | None] = [None] * len(node_infos)
        check_affinity = bool(s.affinity_terms)
        anti_counts = s.anti_affinity_counts
        anti_keys = list(dict.fromkeys(t.topology_key for t in s.anti_affinity_terms))
        if not anti_counts:
            anti_keys = []
        existing_counts = s.existing_anti_affinity_counts
        for index, node_info in enumerate(node_infos):
            node_labels = node_info.node.metadata.labels
            if check_affinity and not satisfy_pod_affinity(s, node_labels):
                statuses[index] = Status(
                    Code.UNSCHEDULABLE_AND_UNRESOLVABLE, ERR_REASON_AFFINITY_RULES_NOT_MATCH
                )
                continue
            for key in anti_keys:
                value = node_labels.get(key)
                if value is not None and anti_counts.get((key, value), 0) > 0:
                    statuses[index] = Status(
                        Code.UNSCHEDULABLE, ERR_REASON_ANTI_AFFINITY_RULES_NOT_MATCH
                    )
                    break
            else:
                if existing_counts:
                    for pair in node_labels.items():
                        if existing_counts.get(pair, 0) > 0:
                            statuses[index] = Status(
                                Code.UNSCHEDULABLE,
                                ERR_REASON_EXISTING_ANTI_AFFINITY_RULES_NOT_MATCH,
                            )
                            break
        return statuses


def get_incoming_affinity_anti_affinity_counts(
    affinity_terms: list[AffinityTerm],
    anti_affinity_terms: list[AffinityTerm],
    all_nodes: list[NodeInfo],
    lister: object = None,
) -> tuple[TopologyToMatchedTermCount, TopologyToMatchedTermCount]:
    """Pairs of nodes hosting pods that the incoming pod's required terms match.

    The terms' namespace selectors are merged into their namespaces already, so existing pods'
    namespace labels are not looked up. The counts are fresh dicts, the caller's to change.
    """
    affinity_counts: TopologyToMatchedTermCount = {}
    anti_affinity_counts: TopologyToMatchedTermCount = {}
    if affinity_terms:
        affinity_counts = dict(sum_over(AffinityCounts(tuple(affinity_terms)), lister, all_nodes))
    if anti_affinity_terms:
        anti_affinity_counts = dict(
            sum_over(AntiAffinityCounts(tuple(anti_affinity_terms)), lister, all_nodes)
        )
    return affinity_counts, anti_affinity_counts


def satisfy_existing_pods_anti_affinity(s: PreFilterState, node_labels: Mapping[str, str]) -> bool:
    """No existing pod's anti-affinity forbids the node's topology pairs."""
    counts = s.existing_anti_affinity_counts
    if counts:
        for pair in node_labels.items():
            if counts.get(pair, 0) > 0:
                return False
    return True


def satisfy_pod_anti_affinity(s: PreFilterState, node_labels: Mapping[str, str]) -> bool:
    """No pod the incoming pod's anti-affinity matches shares a topology pair with the node."""
    counts = s.anti_affinity_counts
    if counts:
        for term in s.anti_affinity_terms:
            topology_value = node_labels.get(term.topology_key)
            if (
                topology_value is not None
                and counts.get((term.topology_key, topology_value), 0) > 0
            ):
                return False
    return True


def satisfy_pod_affinity(s: PreFilterState, node_labels: Mapping[str, str]) -> bool:
    """Every affinity term finds a matching pod in the node's domain.

    The node must carry every topology key. The first pod of a group with affinity to itself
    may go anywhere with the keys when no pod in the cluster matches its terms yet.
    """
    pods_exist = True
    for term in s.affinity_terms:
        topology_value = node_labels.get(term.topology_key)
        if topology_value is None:
            return False
        if s.affinity_counts.get((term.topology_key, topology_value), 0) <= 0:
            pods_exist = False
    if pods_exist:
        return True
    return not s.affinity_counts and pod_matches_all_affinity_terms(s.affinity_terms, s.pod)


class _StateError(Exception):
    """The cycle state holds no usable PreFilter state (PreFilter did not run)."""


def get_pre_filter_state(state: CycleState) -> PreFilterState:
    try:
        value = state.read(PRE_FILTER_STATE_KEY)
    except NotFoundError as err:
        raise _StateError(
            f'error reading "{PRE_FILTER_STATE_KEY}" from cycleState: {err}'
        ) from None
    if not isinstance(value, PreFilterState):
        raise _StateError(f"{value!r}  convert to interpodaffinity.state error")
    return value
