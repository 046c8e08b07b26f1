"""PreScore, Score and NormalizeScore: prefer nodes whose domains hold fewer matching pods.

Each ScheduleAnyway constraint adds ``count * log(domains + 2) + (maxSkew - 1)`` for the node's
domain; the float sum is rounded half away from zero, and NormalizeScore maps the smallest sum
to 100. Logarithm and rounding reproduce Go's ``math.Log`` and ``math.Round`` bit for bit, so
the scores equal kube-scheduler's.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from framework.interface.cycle_state import CycleState, NotFoundError
from framework.interface.plugins import PreScorePlugin, ScoreExtensions, ScorePlugin
from framework.interface.status import Code, Status
from framework.interface.types import MAX_NODE_SCORE
from framework.plugins import names
from framework.plugins.podtopologyspread.common import (
    LABEL_HOSTNAME,
    SCHEDULE_ANYWAY,
    ConstraintsError,
    SpreadBase,
    TopologySpreadConstraint,
    count_pods_match_selector,
    node_labels_match_spread_constraints,
)
from framework.plugins.podtopologyspread.domain_counts import count_matching_pods
from framework.util.gomath import go_div, go_log, go_round

if TYPE_CHECKING:
    from framework.api.pod import Pod
    from framework.interface.node_info import NodeInfo
    from framework.interface.types import NodeScore

PRE_SCORE_STATE_KEY = "PreScore" + names.POD_TOPOLOGY_SPREAD
_INVALID_SCORE = -1
_MAX_INT64 = (1 << 63) - 1


class PreScoreState:
    """The ScheduleAnyway constraints, the nodes left unscored, and pods per domain."""

    __slots__ = (
        "constraints",
        "ignored_nodes",
        "topology_normalizing_weight",
        "topology_value_to_pod_counts",
    )

    def __init__(self) -> None:
        self.constraints: list[TopologySpreadConstraint] = []
        # Nodes missing one of the topology keys: they score 0.
        self.ignored_nodes: set[str] = set()
        # Per constraint, matching pods per topology value (hostname is counted in Score).
        self.topology_value_to_pod_counts: list[dict[str, int]] = []
        # Per constraint, so that small topologies are not drowned by large ones.
        self.topology_normalizing_weight: list[float] = []

    def clone(self) -> PreScoreState:
        # Nothing changes it after PreScore.
        return self


class SpreadScoring(SpreadBase, PreScorePlugin, ScorePlugin, ScoreExtensions):
    """PodTopologySpread's PreScore, Score and NormalizeScore."""

    def pre_score(self, state: CycleState, pod: Pod, nodes: list[NodeInfo]) -> Status | None:
        lister = self.handle.snapshot_shared_lister()
        all_nodes = lister.node_infos().list() if lister is not None else []
        if not all_nodes:
            return Status(Code.SKIP)
        s = PreScoreState()
        # Only user-given or List-defaulted constraints require every topology key, so that
        # nodes without a zone label still get hostname spreading by default.
        require_all_topologies = bool(pod.spec.topology_spread_constraints) or (
            not self.system_defaulted
        )
        try:
            self.init_pre_score_state(s, pod, nodes, require_all_topologies)
        except ConstraintsError as err:
            return Status.error(f"calculating preScoreState: {err}")
        if not s.constraints:
            return Status(Code.SKIP)
        self._count_pods_per_domain(s, pod, all_nodes, require_all_topologies)
        state.write(PRE_SCORE_STATE_KEY, s)
        return None

    def init_pre_score_state(
        self, s: PreScoreState, pod: Pod, filtered_nodes: list[NodeInfo], require_all: bool
    ) -> None:
        """Finds the constraints, the ignored nodes and the domains of the filtered nodes."""
        s.constraints = self._soft_constraints(pod)
        if not s.constraints:
            return
        s.topology_value_to_pod_counts = [{} for _ in s.constraints]
        for node_info in filtered_nodes:
            node = node_info.node
            if require_all and not node_labels_match_spread_constraints(node.labels, s.constraints):
                s.ignored_nodes.add(node.name)
                continue
            for i, constraint in enumerate(s.constraints):
                if constraint.topology_key == LABEL_HOSTNAME:
                    continue
                # A node without the key joins the "" domain, as upstream's map lookup does.
                value = node.labels.get(constraint.topology_key, "")
                s.topology_value_to_pod_counts[i].setdefault(value, 0)
        scored_nodes = len(filtered_nodes) - len(s.ignored_nodes)
        s.topology_normalizing_weight = [
            topology_normalizing_weight(
                scored_nodes
                if constraint.topology_key == LABEL_HOSTNAME
                else len(s.topology_value_to_pod_counts[i])
            )
            for i, constraint in enumerate(s.constraints)
        ]

    def _soft_constraints(self, pod: Pod) -> list[TopologySpreadConstraint]:
        if pod.spec.topology_spread_constraints:
            try:
                return self.filter_topology_spread_constraints(
                    pod.spec.topology_spread_constraints, pod.labels, SCHEDULE_ANYWAY
                )
            except ValueError as err:
                raise ConstraintsError(
                    f"obtaining pod's soft topology spread constraints: {err}"
                ) from err
        try:
            return self.build_default_constraints(pod, SCHEDULE_ANYWAY)
        except ValueError as err:
            raise ConstraintsError(
                f"setting default soft topology spread constraints: {err}"
            ) from err

    def _count_pods_per_domain(
        self, s: PreScoreState, pod: Pod, all_nodes: list[NodeInfo], require_all: bool
    ) -> None:
        """Counts matching pods over every node into the domains of the filtered nodes."""
        keys = tuple(constraint.topology_key for constraint in s.constraints) if require_all else ()
        for i, constraint in enumerate(s.constraints):
            if constraint.topology_key == LABEL_HOSTNAME:
                continue  # counted in Score
            totals = count_matching_pods(self, pod, constraint, keys, all_nodes)
            # Only domains of filtered nodes matter.
            counts = s.topology_value_to_pod_counts[i]
            for value in counts:
                counts[value] = totals.get(value, 0)

    def score(self, state: CycleState, pod: Pod, node_info: NodeInfo) -> tuple[int, Status | None]:
        try:
            s = get_pre_score_state(state)
        except _StateError as err:
            return 0, Status.error(str(err))
        node = node_info.node
        if node.name in s.ignored_nodes:
            return 0, None
        node_labels = node.labels
        score = 0.0
        for i, constraint in enumerate(s.constraints):
            value = node_labels.get(constraint.topology_key)
            if value is None:
                continue
            if constraint.topology_key == LABEL_HOSTNAME:
                count = count_pods_match_selector(
                    node_info.pods, constraint.selector, pod.namespace
                )
            else:
                count = s.topology_value_to_pod_counts[i][value]
            score += score_for_count(count, constraint.max_skew, s.topology_normalizing_weight[i])
        return go_round(score), None

    def score_extensions(self) -> ScoreExtensions:
        return self

    def normalize_score(
        self, state: CycleState, pod: Pod, scores: list[NodeScore]
    ) -> Status | None:
        """Fewest matching pods scores 100: ``100 * (max + min - score) / max``."""
        try:
            s = get_pre_score_state(state)
        except _StateError as err:
            return Status.error(str(err))
        min_score = _MAX_INT64
        max_score = 0
        for entry in scores:
            if entry.name in s.ignored_nodes:
                entry.score = _INVALID_SCORE
                continue
            min_score = min(min_score, entry.score)
            max_score = max(max_score, entry.score)
        for entry in scores:
            if entry.score == _INVALID_SCORE:
                entry.score = 0
            elif max_score == 0:
                entry.score = MAX_NODE_SCORE
            else:
                entry.score = go_div(
                    MAX_NODE_SCORE * (max_score + min_score - entry.score), max_score
                )
        return None


class _StateError(Exception):
    """The cycle state holds no usable PreScore state (PreScore did not run)."""


def get_pre_score_state(state: CycleState) -> PreScoreState:
    try:
        value = state.read(PRE_SCORE_STATE_KEY)
    except NotFoundError as err:
        raise _StateError(f'error reading "{PRE_SCORE_STATE_KEY}" from cycleState: {err}') from None
    if not isinstance(value, PreScoreState):
        raise _StateError(f"{value!r}  convert to podtopologyspread.preScoreState error")
    return value


def topology_normalizing_weight(size: int) -> float:
    """``log(size + 2)``: between 1.09 and 8.52 for clusters of up to 5000 nodes."""
    return go_log(float(size + 2))


def score_for_count(count: int, max_skew: int, topology_weight: float) -> float:
    """Adding ``maxSkew - 1`` waters down differences between domains, tolerating skew."""
    return float(count) * topology_weight + float(max_skew - 1)
