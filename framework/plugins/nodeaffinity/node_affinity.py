"""NodeAffinity: a pod's ``nodeSelector`` and node affinity, plus the scheduler's added affinity.

Filter keeps nodes matching ``spec.nodeSelector`` AND the required affinity terms (and the
profile's ``addedAffinity``); PreFilter narrows the cycle to the nodes named by
``metadata.name`` field terms; Score sums the weights of the preferred terms a node matches.
"""

from __future__ import annotations

from collections.abc import Hashable, Sequence
from typing import Any

from framework.api.field_errors import aggregate_message
from framework.api.labels import SelectorError
from framework.api.node import Node
from framework.api.node_affinity import (
    NODE_NAME_FIELD,
    NodeSelector,
    PreferredSchedulingTerms,
    RequiredNodeAffinity,
)
from framework.api.node_affinity import (
    NodeAffinity as NodeAffinitySpec,
)
from framework.api.pod import Pod
from framework.config.encode import to_json_value
from framework.config.types import NodeAffinityArgs
from framework.config.validation_pluginargs import validate_node_affinity_args
from framework.interface.cycle_state import CycleState, NotFoundError
from framework.interface.events import (
    ActionType,
    ClusterEvent,
    ClusterEventWithHint,
    EventResource,
    QueueingHint,
)
from framework.interface.node_info import NodeInfo
from framework.interface.plugins import (
    BatchFilterPlugin,
    EnqueueExtensions,
    PreFilterPlugin,
    PreScorePlugin,
    ScoreExtensions,
    ScorePlugin,
    SignPlugin,
)
from framework.interface.signers import (
    NODE_AFFINITY_SIGNER_NAME,
    NODE_SELECTOR_SIGNER_NAME,
    node_affinity_signer,
)
from framework.interface.status import Code, Status
from framework.interface.types import MAX_NODE_SCORE, NodeScore, PreFilterResult, SignFragment
from framework.plugins import names
from framework.plugins.feature import Features
from framework.plugins.helper.normalize_score import default_normalize_score
from framework.plugins.helper.typed import as_typed, go_type_name

PRE_FILTER_STATE_KEY = "PreFilter" + names.NODE_AFFINITY
PRE_SCORE_STATE_KEY = "PreScore" + names.NODE_AFFINITY

ERR_REASON_POD = "node(s) didn't match Pod's node affinity/selector"
ERR_REASON_ENFORCED = "node(s) didn't match scheduler-enforced node affinity"
ERR_REASON_CONFLICT = "pod affinity terms conflict"

_ADDED_REQUIRED_PATH = "addedAffinity.requiredDuringSchedulingIgnoredDuringExecution"
_ADDED_PREFERRED_PATH = "addedAffinity.preferredDuringSchedulingIgnoredDuringExecution"


class _MatchMemo:
    """Whether a node matched a required affinity, per affinity and node object.

    Pods of one workload share their affinity, and a node object is replaced, never changed,
    when the node is updated: so a node's answer holds for every later pod with the same
    affinity. Matching is most of the filter's cost, hundreds of nodes every cycle. Entries
    keep their node, so an id reused by a new object is not mistaken for the old one. Bounded:
    a memo that grows too large is emptied, which only costs matching again.
    """

    AFFINITIES = 16
    NODES = 65_536

    def __init__(self) -> None:
        self._by_affinity: dict[Hashable, dict[int, tuple[Any, bool]]] = {}

    def of(self, affinity: Hashable) -> dict[int, tuple[Any, bool]]:
        """node id -> (node, matched) for this affinity (``RequiredNodeAffinity.key``)."""
        matches = self._by_affinity.get(affinity)
        if matches is None or len(matches) > self.NODES:
            if len(self._by_affinity) >= self.AFFINITIES:
                self._by_affinity.clear()
            matches = self._by_affinity[affinity] = {}
        return matches


class _PreFilterState:
    """The pod's required node selector and affinity, parsed once per cycle."""

    __slots__ = ("required",)

    def __init__(self, required: RequiredNodeAffinity) -> None:
        self.required = required

    def clone(self) -> _PreFilterState:
        # Adding or removing pods never changes it, so sharing is safe.
        return self


class _PreScoreState:
    """The pod's preferred terms (None when the pod has none), parsed once per cycle."""

    __slots__ = ("preferred",)

    def __init__(self, preferred: PreferredSchedulingTerms | None) -> None:
        self.preferred = preferred

    def clone(self) -> _PreScoreState:
        return self


class NodeAffinity(
    PreFilterPlugin,
    BatchFilterPlugin,
    PreScorePlugin,
    ScorePlugin,
    ScoreExtensions,
    EnqueueExtensions,
    SignPlugin,
):
    """Checks a pod's node selector and node affinity against node labels and names."""

    name = names.NODE_AFFINITY

    def __init__(self, args: Any, handle: Any, features: Features) -> None:
        if not isinstance(args, NodeAffinityArgs):
            raise ValueError(f"args are not of type NodeAffinityArgs, got {go_type_name(args)}")
        errors = validate_node_affinity_args(None, args)
        if errors:
            raise ValueError(aggregate_message(errors))
        self.handle = handle
        self.enable_scheduling_queue_hint = features.enable_scheduling_queue_hint
        self.added_node_selector: NodeSelector | None = None
        self.added_pref_sched_terms: PreferredSchedulingTerms | None = None
        self._matches = _MatchMemo()
        if args.added_affinity is not None:
            self._parse_added_affinity(
                NodeAffinitySpec.from_dict(to_json_value(args.added_affinity))
            )

    def sign_pod(self, pod: Pod) -> tuple[list[SignFragment] | None, Status | None]:
        """Feasibility and score depend on the node affinity and the node selector."""
        return [
            SignFragment(NODE_AFFINITY_SIGNER_NAME, node_affinity_signer(pod)),
            SignFragment(NODE_SELECTOR_SIGNER_NAME, dict(pod.spec.node_selector)),
        ], None

    def _parse_added_affinity(self, added: NodeAffinitySpec) -> None:
        """Parses the profile's affinity once, so Filter and Score only match."""
        if added.required is not None:
            errors = added.required.parse_errors()
            if errors:
                raise ValueError(f"parsing {_ADDED_REQUIRED_PATH}: {aggregate_message(errors)}")
            self.added_node_selector = added.required
        if added.preferred:
            try:
                self.added_pref_sched_terms = PreferredSchedulingTerms(added.preferred)
            except SelectorError as err:
                raise ValueError(f"parsing {_ADDED_PREFERRED_PATH}: {err}") from err

    # -- queueing ------------------------------------------------------------------------------

    def events_to_register(self) -> list[ClusterEventWithHint]:
        # Without hints the queue's pre-check may swallow a Node/Add, so taint updates are
        # registered too (upstream issue 109437).
        node_actions = ActionType.ADD | ActionType.UPDATE_NODE_LABEL
        if not self.enable_scheduling_queue_hint:
            node_actions |= ActionType.UPDATE_NODE_TAINT
        return [
            ClusterEventWithHint(
                ClusterEvent(EventResource.NODE, node_actions),
                self.is_schedulable_after_node_change,
            )
        ]

    def is_schedulable_after_node_change(
        self, pod: Pod, old_obj: Any, new_obj: Any
    ) -> QueueingHint:
        """Queue only when the node now matches and (for an update) did not match before."""
        original, modified = as_typed(Node, old_obj, new_obj)
        if self.added_node_selector is not None and not self.added_node_selector.match(modified):
            return QueueingHint.QUEUE_SKIP
        required = RequiredNodeAffinity.from_pod(pod)
        if not _match_or_raise(required, modified):
            return QueueingHint.QUEUE_SKIP
        if original is None:
            return QueueingHint.QUEUE
        if _match_or_raise(required, original):
            return QueueingHint.QUEUE_SKIP
        return QueueingHint.QUEUE

    # -- filtering -----------------------------------------------------------------------------

    def pre_filter(
        self, state: CycleState, pod: Pod, nodes: list[NodeInfo]
    ) -> tuple[PreFilterResult | None, Status | None]:
        required_terms = _required_terms(pod)
        if (
            required_terms is None
            and self.added_node_selector is None
            and not pod.spec.node_selector
        ):
            return None, Status(Code.SKIP)
        state.write(PRE_FILTER_STATE_KEY, _PreFilterState(RequiredNodeAffinity.from_pod(pod)))
        if not required_terms:
            return None, None
        return _node_names_from_terms(required_terms)

    def filter(self, state: CycleState, pod: Pod, node_info: NodeInfo) -> Status | None:
        node = node_info.node
        if self.added_node_selector is not None and not self.added_node_selector.match(node):
            return Status(Code.UNSCHEDULABLE_AND_UNRESOLVABLE, ERR_REASON_ENFORCED)
        try:
            required = state.read(PRE_FILTER_STATE_KEY).required
        except NotFoundError:
            # PreFilter is disabled in this profile: work it out here.
            required = RequiredNodeAffinity.from_pod(pod)
        # Terms that fail to parse simply do not match, as upstream keeps it for compatibility.
        if not required.match(node):
            return Status(Code.UNSCHEDULABLE_AND_UNRESOLVABLE, ERR_REASON_POD)
        return None

    def filter_nodes(
        self, state: CycleState, pod: Pod, node_infos: Sequence[NodeInfo]
    ) -> list[Status | None]:
        """Matches each node once; ``filter`` says why for the nodes that do not match."""
        try:
            required = state.read(PRE_FILTER_STATE_KEY).required
        except NotFoundError:
            return [self.filter(state, pod, node_info) for node_info in node_infos]
        added = self.added_node_selector
        matches = self._matches.of(required.key())
        statuses: list[Status | None] = [None] * len(node_infos)
        for index, node_info in enumerate(node_infos):
            node = node_info.node
            known = matches.get(id(node))
            if known is not None and known[0] is node:
                matched = known[1]
            else:
                matched = (added is None or added.match(node)) and required.match(node)
                matches[id(node)] = (node, matched)
            if not matched:
                statuses[index] = self.filter(state, pod, node_info)
        return statuses

    # -- scoring -------------------------------------------------------------------------------

    def pre_score(self, state: CycleState, pod: Pod, nodes: list[NodeInfo]) -> Status | None:
        try:
            preferred = _pod_preferred_terms(pod)
        except SelectorError as err:
            return Status.as_status(err)
        if preferred is None and self.added_pref_sched_terms is None:
            return Status(Code.SKIP)
        state.write(PRE_SCORE_STATE_KEY, _PreScoreState(preferred))
        return None

    def score(self, state: CycleState, pod: Pod, node_info: NodeInfo) -> tuple[int, Status | None]:
        node = node_info.node
        count = 0
        if self.added_pref_sched_terms is not None:
            count += self.added_pref_sched_terms.score(node)
        try:
            preferred = state.read(PRE_SCORE_STATE_KEY).preferred
        except NotFoundError:
            # PreScore is disabled in this profile: work it out here.
            try:
                preferred = _pod_preferred_terms(pod)
            except SelectorError as err:
                return 0, Status.as_status(err)
        if preferred is not None:
            count += preferred.score(node)
        return count, None

    def score_extensions(self) -> ScoreExtensions:
        return self

    def normalize_score(
        self, state: CycleState, pod: Pod, scores: list[NodeScore]
    ) -> Status | None:
        return default_normalize_score(MAX_NODE_SCORE, False, scores)


def _required_terms(pod: Pod) -> list[Any] | None:
    """The pod's required node selector terms, or None when it has no required affinity."""
    affinity = pod.spec.affinity
    node_affinity = affinity.node_affinity if affinity is not None else None
    if node_affinity is None or node_affinity.required is None:
        return None
    return node_affinity.required.node_selector_terms


def _node_names_from_terms(terms: list[Any]) -> tuple[PreFilterResult | None, Status | None]:
    """The nodes named by ``metadata.name In`` field requirements, when every term names some.

    Requirements within a term are ANDed (intersection); terms are ORed (union). One term that
    names no node means any node may match.
    """
    node_names: set[str] = set()
    for term in terms:
        term_names: set[str] | None = None
        for requirement in term.match_fields:
            if requirement.key == NODE_NAME_FIELD and requirement.operator == "In":
                values = set(requirement.values)
                term_names = values if term_names is None else term_names & values
        if term_names is None:
            return None, None
        node_names |= term_names
    if not node_names:
        return None, Status(Code.UNSCHEDULABLE_AND_UNRESOLVABLE, ERR_REASON_CONFLICT)
    return PreFilterResult(node_names), None


def _pod_preferred_terms(pod: Pod) -> PreferredSchedulingTerms | None:
    """The pod's preferred terms ready to score; raises SelectorError if one does not parse."""
    affinity = pod.spec.affinity
    node_affinity = affinity.node_affinity if affinity is not None else None
    if node_affinity is None or not node_affinity.preferred:
        return None
    return PreferredSchedulingTerms(node_affinity.preferred)


def _match_or_raise(required: RequiredNodeAffinity, node: Node) -> bool:
    matched, err = required.match_with_error(node)
    if err is not None:
        raise err
    return matched
