"""PreScore, Score and NormalizeScore: preferred pod affinity and anti-affinity, both ways.

PreScore sums, per (topology key, value), the weights of every term that relates the incoming
pod and an existing pod: the incoming pod's preferred terms matching existing pods, and
existing pods' terms matching the incoming pod (required affinity counts with
``hardPodAffinityWeight``). Score adds up the node's pairs; NormalizeScore scales min..max to
0..100 with Go's float arithmetic.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, ClassVar

from framework.interface.cycle_state import CycleState, NotFoundError
from framework.interface.node_info import PodInfo, WeightedAffinityTerm
from framework.interface.node_sums import sum_over
from framework.interface.plugins import PreScorePlugin, ScoreExtensions, ScorePlugin
from framework.interface.status import Code, Status
from framework.interface.types import MAX_NODE_SCORE
from framework.plugins import names
from framework.plugins.interpodaffinity.namespaces import (
    get_namespace_labels_snapshot,
    merge_affinity_term_namespaces_if_not_empty,
)

if TYPE_CHECKING:
    from framework.api.node import Node
    from framework.api.pod import Pod
    from framework.cluster.interface import Cluster
    from framework.interface.node_info import AffinityTerm, NodeInfo
    from framework.interface.types import NodeScore

PRE_SCORE_STATE_KEY = "PreScore" + names.INTER_POD_AFFINITY

ScoreMap = dict[str, dict[str, int]]
"""topology key -> topology value -> summed weight."""


class PreScoreState:
    """The summed weights per topology pair, and the incoming pod's preferred terms."""

    __slots__ = (
        "namespace_labels",
        "pod",
        "preferred_affinity_terms",
        "preferred_anti_affinity_terms",
        "topology_score",
    )

    def __init__(
        self,
        pod: Pod,
        preferred_affinity_terms: list[WeightedAffinityTerm],
        preferred_anti_affinity_terms: list[WeightedAffinityTerm],
        namespace_labels: Mapping[str, str],
    ) -> None:
        self.pod = pod
        self.preferred_affinity_terms = preferred_affinity_terms
        self.preferred_anti_affinity_terms = preferred_anti_affinity_terms
        # A copy of the incoming pod's namespace labels.
        self.namespace_labels = namespace_labels
        self.topology_score: ScoreMap = {}

    def clone(self) -> PreScoreState:
        # Nothing changes it after PreScore.
        return self


def _process_term(
    scores: ScoreMap,
    term: AffinityTerm,
    weight: int,
    pod: Pod,
    namespace_labels: Mapping[str, str] | None,
    node: Node,
    multiplier: int,
) -> None:
    if not term.matches(pod, namespace_labels):
        return
    topology_value = node.labels.get(term.topology_key)
    if topology_value is None:
        return
    values = scores.setdefault(term.topology_key, {})
    values[topology_value] = values.get(topology_value, 0) + weight * multiplier


def _process_terms(
    scores: ScoreMap,
    terms: Iterable[WeightedAffinityTerm],
    pod: Pod,
    namespace_labels: Mapping[str, str] | None,
    node: Node,
    multiplier: int,
) -> None:
    for term in terms:
        _process_term(scores, term, term.weight, pod, namespace_labels, node, multiplier)


def may_score_others(existing: PodInfo, hard_pod_affinity_weight: int) -> bool:
    """Whether the existing pod's own terms can add to another pod's score.

    Without preferred terms of the incoming pod only these count, and pods with nothing but
    required anti-affinity (the common kind) have none: they are passed over unprocessed.
    """
    return bool(
        (hard_pod_affinity_weight > 0 and existing.required_affinity_terms)
        or existing.preferred_affinity_terms
        or existing.preferred_anti_affinity_terms
    )


def process_existing_pod(
    s: PreScoreState,
    existing: PodInfo,
    node: Node,
    incoming: Pod,
    hard_pod_affinity_weight: int,
    scores: ScoreMap,
) -> None:
    """Adds every weight relating ``existing`` and the incoming pod to the existing pod's
    topology pairs; affinity adds, anti-affinity subtracts."""
    if not node.labels:
        return
    existing_pod = existing.pod
    # The incoming pod's namespace selectors are merged already: no namespace labels.
    _process_terms(scores, s.preferred_affinity_terms, existing_pod, None, node, 1)
    _process_terms(scores, s.preferred_anti_affinity_terms, existing_pod, None, node, -1)
    if hard_pod_affinity_weight > 0:
        for term in existing.required_affinity_terms:
            _process_term(
                scores, term, hard_pod_affinity_weight, incoming, s.namespace_labels, node, 1
            )
    _process_terms(scores, existing.preferred_affinity_terms, incoming, s.namespace_labels, node, 1)
    _process_terms(
        scores, existing.preferred_anti_affinity_terms, incoming, s.namespace_labels, node, -1
    )


@dataclass(frozen=True, slots=True)
class ExistingPodScores:
    """The weights relating the existing pods of a node and the incoming pod, per topology
    pair (a NodeQuery the snapshot keeps between cycles).

    Without preferred terms of the incoming pod (``has_constraints`` false) only pods with
    affinity that may score others are processed. A pair whose weights cancel out stays, as
    upstream's map entry does.
    """

    ordered: ClassVar[bool] = False

    namespace: str
    labels: frozenset[tuple[str, str]]
    namespace_labels: frozenset[tuple[str, str]]
    preferred_affinity_terms: tuple[WeightedAffinityTerm, ...]
    preferred_anti_affinity_terms: tuple[WeightedAffinityTerm, ...]
    hard_pod_affinity_weight: int
    has_constraints: bool
    state: PreScoreState = field(compare=False)

    @classmethod
    def of(
        cls, s: PreScoreState, hard_pod_affinity_weight: int, has_constraints: bool
    ) -> ExistingPodScores:
        return cls(
            s.pod.namespace,
            frozenset(s.pod.labels.items()),
            frozenset(s.namespace_labels.items()),
            tuple(s.preferred_affinity_terms),
            tuple(s.preferred_anti_affinity_terms),
            hard_pod_affinity_weight,
            has_constraints,
            s,
        )

    def contribution(self, node_info: NodeInfo) -> dict[tuple[str, str], int] | None:
        existing_pods = node_info.pods if self.has_constraints else node_info.pods_with_affinity
        if not existing_pods:
            return None
        weight = self.hard_pod_affinity_weight
        scores: ScoreMap = {}
        for existing in existing_pods:
            if self.has_constraints or may_score_others(existing, weight):
                process_existing_pod(
                    self.state, existing, node_info.node, self.state.pod, weight, scores
                )
        return {
            (topology_key, topology_value): total
            for topology_key, values in scores.items()
            for topology_value, total in values.items()
        }


class AffinityScoring(PreScorePlugin, ScorePlugin, ScoreExtensions):
    """InterPodAffinity's PreScore, Score and NormalizeScore."""

    handle: Any
    cluster: Cluster | None
    hard_pod_affinity_weight: int
    ignore_preferred_terms_of_existing_pods: bool

    def pre_score(self, state: CycleState, pod: Pod, nodes: list[NodeInfo]) -> Status | None:
        lister = self.handle.snapshot_shared_lister()
        if lister is None:
            return Status(Code.ERROR, "empty shared lister in InterPodAffinity PreScore")
        affinity = pod.spec.affinity
        has_preferred_affinity = (
            affinity is not None
            and affinity.pod_affinity is not None
            and bool(affinity.pod_affinity.preferred)
        )
        has_preferred_anti_affinity = (
            affinity is not None
            and affinity.pod_anti_affinity is not None
            and bool(affinity.pod_anti_affinity.preferred)
        )
        has_constraints = has_preferred_affinity or has_preferred_anti_affinity
        if self.ignore_preferred_terms_of_existing_pods and not has_constraints:
            return Status(Code.SKIP)
        # Without preferred terms of its own, only pods with affinity can score the pod.
        node_infos = lister.node_infos()
        all_nodes = (
            node_infos.list() if has_constraints else node_infos.have_pods_with_affinity_list()
        )
        pod_info = PodInfo(pod)
        if pod_info.parse_error is not None:
            return Status.error(f"failed to parse pod: {pod_info.parse_error}")
        s = PreScoreState(
            pod,
            [
                merge_affinity_term_namespaces_if_not_empty(term, self.cluster)
                for term in pod_info.preferred_affinity_terms
            ],
            [
                merge_affinity_term_namespaces_if_not_empty(term, self.cluster)
                for term in pod_info.preferred_anti_affinity_terms
            ],
            get_namespace_labels_snapshot(pod.namespace, self.cluster),
        )
        query = ExistingPodScores.of(s, self.hard_pod_affinity_weight, has_constraints)
        totals = sum_over(query, lister, all_nodes)
        if not totals:
            return Status(Code.SKIP)
        for (topology_key, topology_value), weight in totals.items():
            s.topology_score.setdefault(topology_key, {})[topology_value] = weight
        state.write(PRE_SCORE_STATE_KEY, s)
        return None

    def score(self, state: CycleState, pod: Pod, node_info: NodeInfo) -> tuple[int, Status | None]:
        try:
            s = get_pre_score_state(state)
        except _StateError as err:
            return 0, Status.error(str(err))
        node_labels = node_info.node.labels
        score = 0
        for topology_key, values in s.topology_score.items():
            topology_value = node_labels.get(topology_key)
            if topology_value is not None:
                score += values.get(topology_value, 0)
        return score, None

    def score_extensions(self) -> ScoreExtensions:
        return self

    def normalize_score(
        self, state: CycleState, pod: Pod, scores: list[NodeScore]
    ) -> Status | None:
        """Maps the lowest score to 0 and the highest to 100, in float64, truncating."""
        try:
            s = get_pre_score_state(state)
        except _StateError as err:
            return Status.error(str(err))
        if not s.topology_score or not scores:
            return None
        min_count = min(entry.score for entry in scores)
        max_min_diff = max(entry.score for entry in scores) - min_count
        for entry in scores:
            f_score = 0.0
            if max_min_diff > 0:
                f_score = float(MAX_NODE_SCORE) * (
                    float(entry.score - min_count) / float(max_min_diff)
                )
            entry.score = int(f_score)
        return None


class _StateError(Exception):
    """The cycle state holds no usable PreScore state (PreScore did not run)."""


def get_pre_score_state(state: CycleState) -> PreScoreState:
    try:
        value = state.read(PRE_SCORE_STATE_KEY)
    except NotFoundError as err:
        raise _StateError(
            f'failed to read "{PRE_SCORE_STATE_KEY}" from cycleState: {err}'
        ) from None
    if not isinstance(value, PreScoreState):
        raise _StateError(f"{value!r}  convert to interpodaffinity.preScoreState error")
    return value
