"""NodeResourcesBalancedAllocation: favour nodes whose resource usage stays even.

The v1.36 score rewards the change in balance the pod brings: a node whose usage becomes more
even scores towards 100, one that becomes less even towards 50, no change gives about 75.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

from framework.api.field_errors import aggregate_message
from framework.api.pod import Pod
from framework.config.types import NodeResourcesBalancedAllocationArgs
from framework.config.validation_pluginargs import (
    validate_node_resources_balanced_allocation_args,
)
from framework.interface.cycle_state import CycleState, NotFoundError
from framework.interface.node_info import NodeInfo
from framework.interface.plugins import BatchScorePlugin, PreScorePlugin, SignPlugin
from framework.interface.signers import RESOURCES_SIGNER_NAME
from framework.interface.status import Code, Status
from framework.interface.types import MAX_NODE_SCORE, SignFragment
from framework.plugins import names
from framework.plugins.feature import Features
from framework.plugins.helper.typed import go_type_name
from framework.plugins.noderesources.dra_extended_resources import (
    DRAPreScoreState,
    dra_pre_score_state,
)
from framework.plugins.noderesources.fit import (
    compute_pod_resource_request,
    dra_backed_resources,
    resources_signature,
)
from framework.plugins.noderesources.resource_allocation import (
    ResourceAllocationScorer,
    is_best_effort_pod,
)
from framework.util.gomath import go_div

PRE_SCORE_STATE_KEY = "PreScore" + names.NODE_RESOURCES_BALANCED_ALLOCATION


class _PreScoreState:
    """The pod's request of each configured resource, in the args' resource order, and
    the ResourceSlices and claims when a scored resource is backed by DRA."""

    __slots__ = ("dra", "pod_requests")

    def __init__(self, pod_requests: list[int], dra: DRAPreScoreState | None = None) -> None:
        self.pod_requests = pod_requests
        self.dra = dra

    def clone(self) -> _PreScoreState:
        return self


class BalancedAllocation(PreScorePlugin, BatchScorePlugin, SignPlugin):
    """Scores how evenly the node's resources would be used with the pod on it."""

    name = names.NODE_RESOURCES_BALANCED_ALLOCATION

    def __init__(self, args: Any, handle: Any, features: Features) -> None:
        self.enable_pod_level_resources = features.enable_pod_level_resources
        self.enable_dra_extended_resource = features.enable_dra_extended_resource
        self.enable_dra_consumable_capacity = features.enable_dra_consumable_capacity
        if not isinstance(args, NodeResourcesBalancedAllocationArgs):
            raise ValueError(
                "want args to be of type NodeResourcesBalancedAllocationArgs, "
                f"got {go_type_name(args)}"
            )
        errors = validate_node_resources_balanced_allocation_args(None, args)
        if errors:
            raise ValueError(aggregate_message(errors))
        self.handle = handle
        self.scorer = ResourceAllocationScorer(
            names.NODE_RESOURCES_BALANCED_ALLOCATION,
            balanced_resource_scorer,
            args.resources,
            batch_scorer=balanced_resource_batch_scorer,
            use_requested=True,
            enable_in_place_pod_vertical_scaling=features.enable_in_place_pod_vertical_scaling,
            enable_pod_level_resources=features.enable_pod_level_resources,
            enable_in_place_pod_level_resources_vertical_scaling=(
                features.enable_in_place_pod_level_resources_vertical_scaling
            ),
        )

    def sign_pod(self, pod: Pod) -> tuple[list[SignFragment] | None, Status | None]:
        """The score depends on the pod's requests and overhead (the same fragment as Fit's);
        a pod whose extended resource a DeviceClass maps is not signed."""
        request = compute_pod_resource_request(pod, self.enable_pod_level_resources)
        cluster = self.handle.cluster() if self.handle is not None else None
        if dra_backed_resources(request, cluster, self.enable_dra_extended_resource):
            return None, Status(
                Code.UNSCHEDULABLE,
                "signature disabled when dra extended resources are used in the cluster",
            )
        return [SignFragment(RESOURCES_SIGNER_NAME, resources_signature(request))], None

    def pre_score(self, state: CycleState, pod: Pod, nodes: list[NodeInfo]) -> Status | None:
        pod_requests = self.scorer.calculate_pod_resource_request_list(pod)
        if is_best_effort_pod(pod_requests):
            # Scoring pods that request nothing would pile them onto the same nodes
            # (upstream issue 129138).
            return Status(Code.SKIP)
        state.write(PRE_SCORE_STATE_KEY, _PreScoreState(pod_requests, self._dra_pre_score_state()))
        return None

    def score(self, state: CycleState, pod: Pod, node_info: NodeInfo) -> tuple[int, Status | None]:
        pod_requests, dra = self._pre_score_state(state, pod)
        if pod_requests is None:
            return 0, None
        return self.scorer.score(node_info, pod_requests, dra)

    def score_nodes(
        self, state: CycleState, pod: Pod, node_infos: Sequence[NodeInfo]
    ) -> tuple[list[int], Status | None]:
        pod_requests, dra = self._pre_score_state(state, pod)
        if pod_requests is None:
            return [0] * len(node_infos), None
        return self.scorer.score_nodes(node_infos, pod_requests, dra)

    def _pre_score_state(
        self, state: CycleState, pod: Pod
    ) -> tuple[list[int] | None, DRAPreScoreState | None]:
        """The pod's requests (None: a best-effort pod, scored 0) and the DRA state."""
        try:
            pre_score_state = state.read(PRE_SCORE_STATE_KEY)
        except NotFoundError:
            # PreScore is disabled in this profile: work it out here.
            pod_requests = self.scorer.calculate_pod_resource_request_list(pod)
            if is_best_effort_pod(pod_requests):
                return None, None
            return pod_requests, self._dra_pre_score_state()
        return pre_score_state.pod_requests, pre_score_state.dra

    def _dra_pre_score_state(self) -> DRAPreScoreState | None:
        if not self.enable_dra_extended_resource or self.handle is None:
            return None
        return dra_pre_score_state(
            self.handle.cluster(), self.scorer.resources, self.enable_dra_consumable_capacity
        )


def balanced_resource_scorer(
    requested: list[int], allocated: list[int], allocatable: list[int]
) -> int:
    """50 plus half of (50 + balance with the pod - balance without it).

    Both balances lie in [50, 100], so the result stays in [50, 100] too.
    """
    score_with_pod = balanced_resource_score(requested, allocatable)
    score_without_pod = balanced_resource_score(allocated, allocatable)
    half = go_div(MAX_NODE_SCORE, 2)
    return half + go_div(half + score_with_pod - score_without_pod, 2)


def balanced_resource_batch_scorer(
    pod_requests: list[int], allocatable: list[list[int]], allocated: list[list[int]]
) -> list[int] | None:
    """``balanced_resource_scorer`` by columns, for the usual shape only: two resources that
    every node has (None otherwise). The float steps are the per-node ones, in the same order;
    both balances lie in [50, 100], so Go's truncating halving is Python's floor here.
    """
    if len(allocatable) != 2 or not all(allocatable[0]) or not all(allocatable[1]):
        return None
    wanted0, wanted1 = pod_requests
    top = float(MAX_NODE_SCORE)
    half = MAX_NODE_SCORE // 2
    scores = []
    for capacity0, used0, capacity1, used1 in zip(
        allocatable[0], allocated[0], allocatable[1], allocated[1], strict=True
    ):
        c0, c1 = float(capacity0), float(capacity1)
        with0, with1 = float(used0 + wanted0) / c0, float(used1 + wanted1) / c1
        without0, without1 = float(used0) / c0, float(used1) / c1
        if with0 > 1.0:
            with0 = 1.0
        if with1 > 1.0:
            with1 = 1.0
        if without0 > 1.0:
            without0 = 1.0
        if without1 > 1.0:
            without1 = 1.0
        with_pod = int((1 - abs((with0 - with1) / 2)) * top)
        without_pod = int((1 - abs((without0 - without1) / 2)) * top)
        scores.append(half + (half + with_pod - without_pod) // 2)
    return scores


def balanced_resource_score(requested: list[int], allocatable: list[int]) -> int:
    """(1 - standard deviation of the usage fractions) * 100, truncated.

    Float operations are upstream's, in upstream's order, so scores match to the unit.
    """
    fractions: list[float] = []
    total_fraction = 0.0
    for i, capacity in enumerate(allocatable):
        if capacity == 0:
            continue
        fraction = min(float(requested[i]) / float(capacity), 1.0)
        total_fraction += fraction
        fractions.append(fraction)

    std = 0.0
    if len(fractions) == 2:
        std = abs((fractions[0] - fractions[1]) / 2)
    elif len(fractions) > 2:
        mean = total_fraction / float(len(fractions))
        squares = 0.0
        for fraction in fractions:
            squares = squares + (fraction - mean) * (fraction - mean)
        std = math.sqrt(squares / float(len(fractions)))
    return int((1 - std) * float(MAX_NODE_SCORE))
