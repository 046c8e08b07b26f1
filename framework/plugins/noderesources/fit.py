"""NodeResourcesFit: does the node have room for the pod's requests, and how well does it fit.

Filter compares the pod's requests (computed once at PreFilter) with what the node has left;
Score applies the configured strategy (LeastAllocated, MostAllocated or
RequestedToCapacityRatio) to the configured resources.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Sequence
from operator import attrgetter
from typing import Any, NamedTuple

from framework.api.field_errors import aggregate_message
from framework.api.meta import KubeObject
from framework.api.node import Node
from framework.api.pod import Pod
from framework.api.resource_names import RESOURCE_CPU, RESOURCE_MEMORY
from framework.api.resources import (
    RESOURCE_DEVICE_CLASS_PREFIX,
    RESOURCE_EPHEMERAL_STORAGE,
    RESOURCE_PODS,
    is_dra_extended_resource_name,
    is_extended_resource_name,
    is_scalar_resource_name,
    pod_request_list,
)
from framework.config.types import (
    LEAST_ALLOCATED,
    MOST_ALLOCATED,
    REQUESTED_TO_CAPACITY_RATIO,
    NodeResourcesFitArgs,
    ScoringStrategy,
)
from framework.config.validation_pluginargs import validate_node_resources_fit_args
from framework.interface.cycle_state import CycleState, NotFoundError
from framework.interface.events import (
    ActionType,
    ClusterEvent,
    ClusterEventWithHint,
    EventResource,
    QueueingHint,
)
from framework.interface.node_info import (
    AMOUNT_ALLOCATABLE_CPU,
    AMOUNT_ALLOCATABLE_EPHEMERAL_STORAGE,
    AMOUNT_ALLOCATABLE_MEMORY,
    AMOUNT_ALLOWED_PODS,
    AMOUNT_PODS,
    AMOUNT_REQUESTED_CPU,
    AMOUNT_REQUESTED_EPHEMERAL_STORAGE,
    AMOUNT_REQUESTED_MEMORY,
    NodeInfo,
    Resource,
)
from framework.interface.placement import PodGroupAssignments
from framework.interface.plugins import (
    BatchFilterPlugin,
    BatchScorePlugin,
    EnqueueExtensions,
    PlacementScorePlugin,
    PreFilterPlugin,
    PreScorePlugin,
    SignPlugin,
)
from framework.interface.pod_group_info import PodGroupInfo
from framework.interface.signers import RESOURCES_SIGNER_NAME
from framework.interface.status import Code, Status, StatusError
from framework.interface.types import PreFilterResult, SignFragment
from framework.plugins import names
from framework.plugins.dynamicresources.extended_resources import DeviceClassResolver
from framework.plugins.feature import Features
from framework.plugins.helper.typed import as_typed, go_type_name
from framework.plugins.noderesources.dra_extended_resources import (
    DRAPreScoreState,
    dra_pre_score_state,
)
from framework.plugins.noderesources.least_allocated import (
    least_resource_batch_scorer,
    least_resource_scorer,
)
from framework.plugins.noderesources.most_allocated import most_resource_scorer
from framework.plugins.noderesources.requested_to_capacity_ratio import (
    requested_to_capacity_ratio_scorer,
)
from framework.plugins.noderesources.resource_allocation import ResourceAllocationScorer

PRE_FILTER_STATE_KEY = "PreFilter" + names.NODE_RESOURCES_FIT
PRE_SCORE_STATE_KEY = "PreScore" + names.NODE_RESOURCES_FIT

ERR_REASON_SIDECARS_DISABLED = (
    "Pod has a restartable init container and the SidecarContainers feature is disabled"
)
DEVICE_CLASS_KIND = "DeviceClass"

_RESOURCE_AMOUNTS = attrgetter("resource_amounts")


# -- requests and fit ---------------------------------------------------------------------------


class InsufficientResource(NamedTuple):
    """One resource the node lacks for the pod. ``unresolvable`` means even an empty node
    would lack it, so preemption cannot help. (A named tuple: preemption's dry run builds
    hundreds of thousands of them.)"""

    resource_name: str
    reason: str
    requested: int
    used: int
    capacity: int
    unresolvable: bool = False


class _PreFilterState:
    """The pod's requests, the scalar resources Filter must check, and those a DeviceClass
    maps (DynamicResources takes them on a node without them), computed once."""

    __slots__ = ("dra_backed", "request", "scalars_to_check")

    def __init__(
        self,
        request: Resource,
        scalars_to_check: tuple[str, ...],
        dra_backed: frozenset[str] = frozenset(),
    ) -> None:
        self.request = request
        self.scalars_to_check = scalars_to_check
        self.dra_backed = dra_backed

    def clone(self) -> _PreFilterState:
        return self


class _PreScoreState:
    """The pod's request of each scored resource, in the strategy's resource order, and
    the ResourceSlices and claims when a scored resource is backed by DRA."""

    __slots__ = ("dra", "pod_requests")

    def __init__(self, pod_requests: list[int], dra: DRAPreScoreState | None = None) -> None:
        self.pod_requests = pod_requests
        self.dra = dra

    def clone(self) -> _PreScoreState:
        return self


def compute_pod_resource_request(pod: Pod, enable_pod_level_resources: bool = True) -> Resource:
    """The largest amount of each resource the pod needs at any moment, overhead included.

    A pod not yet scheduled has no resize in progress, so status resources are not read.
    """
    requests = pod_request_list(
        pod,
        skip_pod_level_resources=not enable_pod_level_resources,
        use_status_resources=False,
        in_place_pod_level_resources_vertical_scaling=False,
    )
    result = Resource()
    result.set_max_resource(requests)
    return result


def resources_signature(request: Resource) -> dict[str, object]:
    """A pod's computed request as a signature fragment's value (Fit's and BalancedAllocation's)."""
    return {
        "MilliCPU": request.milli_cpu,
        "Memory": request.memory,
        "EphemeralStorage": request.ephemeral_storage,
        "AllowedPodNumber": request.allowed_pod_number,
        "ScalarResources": dict(sorted(request.scalar_resources.items())),
    }


def fits(
    pod: Pod,
    node_info: NodeInfo,
    enable_pod_level_resources: bool = True,
    dra_backed: Collection[str] = (),
) -> list[InsufficientResource]:
    """What the node lacks for the pod, with nothing ignored (upstream ``Fits``)."""
    return fits_request(
        compute_pod_resource_request(pod, enable_pod_level_resources),
        node_info,
        (),
        (),
        dra_backed,
    )


def fits_request(
    pod_request: Resource,
    node_info: NodeInfo,
    ignored_extended_resources: Collection[str],
    ignored_resource_groups: Collection[str],
    dra_backed: Collection[str] = (),
) -> list[InsufficientResource]:
    scalars = scalars_to_check(pod_request, ignored_extended_resources, ignored_resource_groups)
    return _fits(pod_request, scalars, node_info, dra_backed)


def dra_backed_resources(
    request: Resource, cluster: Any, enable_dra_extended_resource: bool
) -> frozenset[str]:
    """The requested extended resources a DeviceClass maps (``shouldDelegateResourceToDRA``
    before the node is looked at): on a node whose allocatable lacks one, DynamicResources
    allocates it from ResourceSlices and Fit leaves it alone."""
    if not enable_dra_extended_resource or cluster is None:
        return frozenset()
    names = [
        name
        for name, amount in request.scalar_resources.items()
        if amount != 0 and is_dra_extended_resource_name(name)
    ]
    if not names:
        return frozenset()
    resolver = DeviceClassResolver.of_cluster(cluster)
    return frozenset(name for name in names if resolver.get_device_class(name) is not None)


def _delegated(name: str, node_info: NodeInfo, dra_backed: Collection[str]) -> bool:
    """Whether DynamicResources, not Fit, handles this resource on this node."""
    return name in dra_backed and node_info.allocatable.scalar_resources.get(name, 0) <= 0


def scalars_to_check(
    pod_request: Resource,
    ignored_extended_resources: Collection[str],
    ignored_resource_groups: Collection[str],
) -> tuple[str, ...]:
    """The requested scalar resources, less zero requests and ignored extended resources."""
    result = []
    for name, quantity in pod_request.scalar_resources.items():
        if quantity == 0:
            continue
        if is_extended_resource_name(name) and (
            name in ignored_extended_resources
            or (ignored_resource_groups and name.split("/")[0] in ignored_resource_groups)
        ):
            continue
        result.append(name)
    return tuple(result)


def _fits(
    pod_request: Resource,
    scalars: tuple[str, ...],
    node_info: NodeInfo,
    dra_backed: Collection[str] = (),
) -> list[InsufficientResource]:
    """Every check runs, so the status lists all that is missing, in upstream's order."""
    insufficient = _fits_amounts(pod_request, node_info.resource_amounts)
    allocatable, requested = node_info.allocatable, node_info.requested
    for name in scalars:
        if dra_backed and _delegated(name, node_info, dra_backed):
            continue
        wanted = pod_request.scalar_resources[name]
        capacity = allocatable.scalar_resources.get(name, 0)
        used = requested.scalar_resources.get(name, 0)
        if wanted > capacity - used:
            insufficient.append(
                InsufficientResource(
                    name, f"Insufficient {name}", wanted, used, capacity, wanted > capacity
                )
            )
    return insufficient


def _fits_amounts(pod_request: Resource, amounts: tuple[int, ...]) -> list[InsufficientResource]:
    """``_fits`` for the pod count and the native resources, from a node's
    ``resource_amounts``."""
    insufficient: list[InsufficientResource] = []
    pod_count, allowed = amounts[AMOUNT_PODS], amounts[AMOUNT_ALLOWED_PODS]
    if pod_count + 1 > allowed:
        insufficient.append(
            InsufficientResource(RESOURCE_PODS, "Too many pods", 1, pod_count, allowed)
        )
    for name, wanted, capacity, used in (
        (
            RESOURCE_CPU,
            pod_request.milli_cpu,
            amounts[AMOUNT_ALLOCATABLE_CPU],
            amounts[AMOUNT_REQUESTED_CPU],
        ),
        (
            RESOURCE_MEMORY,
            pod_request.memory,
            amounts[AMOUNT_ALLOCATABLE_MEMORY],
            amounts[AMOUNT_REQUESTED_MEMORY],
        ),
        (
            RESOURCE_EPHEMERAL_STORAGE,
            pod_request.ephemeral_storage,
            amounts[AMOUNT_ALLOCATABLE_EPHEMERAL_STORAGE],
            amounts[AMOUNT_REQUESTED_EPHEMERAL_STORAGE],
        ),
    ):
        if wanted > 0 and wanted > capacity - used:
            insufficient.append(
                InsufficientResource(
                    name, f"Insufficient {name}", wanted, used, capacity, wanted > capacity
                )
            )
    return insufficient


def _failure_of(insufficient: list[InsufficientResource]) -> tuple[Code, tuple[str, ...]]:
    """The Filter status's code and reasons for what is missing."""
    code = Code.UNSCHEDULABLE
    for missing in insufficient:
        if missing.unresolvable:
            code = Code.UNSCHEDULABLE_AND_UNRESOLVABLE
    return code, tuple(missing.reason for missing in insufficient)


_FAILURES_KEPT = 4096
"""Failure statuses NodeResourcesFit's batch filter remembers (per plugin) before forgetting."""


def has_restartable_init_container(pod: Pod) -> bool:
    return any(c.is_restartable_init_container for c in pod.spec.init_containers)


# -- scoring strategies -------------------------------------------------------------------------


def _least_allocated(strategy: ScoringStrategy) -> ResourceAllocationScorer:
    return ResourceAllocationScorer(
        LEAST_ALLOCATED,
        least_resource_scorer(strategy.resources),
        strategy.resources,
        batch_scorer=least_resource_batch_scorer(strategy.resources),
    )


def _most_allocated(strategy: ScoringStrategy) -> ResourceAllocationScorer:
    return ResourceAllocationScorer(
        MOST_ALLOCATED, most_resource_scorer(strategy.resources), strategy.resources
    )


def _requested_to_capacity_ratio(strategy: ScoringStrategy) -> ResourceAllocationScorer:
    shape = strategy.requested_to_capacity_ratio.shape  # type: ignore[union-attr]
    return ResourceAllocationScorer(
        REQUESTED_TO_CAPACITY_RATIO,
        requested_to_capacity_ratio_scorer(strategy.resources, shape),
        strategy.resources,
    )


ScorerFactory = Callable[[ScoringStrategy], ResourceAllocationScorer]

NODE_RESOURCE_STRATEGY_TYPE_MAP: dict[str, ScorerFactory] = {
    LEAST_ALLOCATED: _least_allocated,
    MOST_ALLOCATED: _most_allocated,
    REQUESTED_TO_CAPACITY_RATIO: _requested_to_capacity_ratio,
}
"""Strategy type -> the scorer built from the strategy.

Upstream builds these scorers without the plugin's feature switches, so Fit's scores read
container requests only (no pod-level resources, no in-place resize status): kept as is.
"""


def get_scorer(strategy: ScoringStrategy | None) -> ResourceAllocationScorer:
    if strategy is None:
        raise ValueError("scoring strategy not specified")
    factory = NODE_RESOURCE_STRATEGY_TYPE_MAP.get(strategy.type)
    if factory is None:
        raise ValueError(f"scoring strategy {strategy.type} is not supported")
    return factory(strategy)


# -- the plugin ---------------------------------------------------------------------------------


class Fit(
    PreFilterPlugin,
    BatchFilterPlugin,
    PreScorePlugin,
    BatchScorePlugin,
    EnqueueExtensions,
    SignPlugin,
    PlacementScorePlugin,
):
    """Checks that a node has enough resources for the pod and scores how it would fit."""

    name = names.NODE_RESOURCES_FIT

    def __init__(self, args: Any, handle: Any, features: Features) -> None:
        if not isinstance(args, NodeResourcesFitArgs):
            raise ValueError(
                f"want args to be of type NodeResourcesFitArgs, got {go_type_name(args)}"
            )
        errors = validate_node_resources_fit_args(None, args)
        if errors:
            raise ValueError(aggregate_message(errors))
        self.scorer = get_scorer(args.scoring_strategy)
        self.placement_scorer: ResourceAllocationScorer | None = None
        """Bin packing over a placement's nodes, whatever the node scoring strategy
        (TopologyAwareWorkloadScheduling)."""
        if features.enable_topology_aware_workload_scheduling:
            self.placement_scorer = get_scorer(
                ScoringStrategy(type=MOST_ALLOCATED, resources=args.scoring_strategy.resources)
            )
        self.handle = handle
        self.ignored_resources = frozenset(args.ignored_resources)
        self.ignored_resource_groups = frozenset(args.ignored_resource_groups)
        self.enable_in_place_pod_vertical_scaling = features.enable_in_place_pod_vertical_scaling
        self.enable_sidecar_containers = features.enable_sidecar_containers
        self._failures: dict[tuple[Any, ...], Status] = {}
        """(node amounts, pod's CPU, memory, storage) -> the Filter failure (``_failure``)."""
        self.enable_scheduling_queue_hint = features.enable_scheduling_queue_hint
        self.enable_pod_level_resources = features.enable_pod_level_resources
        self.enable_dra_extended_resource = features.enable_dra_extended_resource
        self.enable_dra_consumable_capacity = features.enable_dra_consumable_capacity
        self.enable_in_place_pod_level_resources_vertical_scaling = (
            features.enable_in_place_pod_level_resources_vertical_scaling
        )

    def sign_pod(self, pod: Pod) -> tuple[list[SignFragment] | None, Status | None]:
        """Feasibility and score depend on the pod's requests and overhead; a pod whose
        extended resource a DeviceClass maps is not signed (DRA may allocate it)."""
        request = compute_pod_resource_request(pod, self.enable_pod_level_resources)
        if self._dra_backed(request):
            return None, Status(
                Code.UNSCHEDULABLE,
                "signature disabled when dra extended resources are used in the cluster",
            )
        return [SignFragment(RESOURCES_SIGNER_NAME, resources_signature(request))], None

    def _dra_backed(self, request: Resource) -> frozenset[str]:
        cluster = self.handle.cluster() if self.handle is not None else None
        return dra_backed_resources(request, cluster, self.enable_dra_extended_resource)

    # -- queueing ------------------------------------------------------------------------------

    def events_to_register(self) -> list[ClusterEventWithHint]:
        pod_actions = ActionType.DELETE
        if self.enable_in_place_pod_vertical_scaling:
            # A running pod scaled down in place frees resources.
            pod_actions |= ActionType.UPDATE_POD_SCALE_DOWN
        node_actions = ActionType.ADD | ActionType.UPDATE_NODE_ALLOCATABLE
        if not self.enable_scheduling_queue_hint:
            # Without hints the queue's pre-check may swallow a Node/Add (upstream issue 109437).
            node_actions |= ActionType.UPDATE_NODE_TAINT | ActionType.UPDATE_NODE_LABEL
        events = [
            ClusterEventWithHint(
                ClusterEvent(EventResource.POD, pod_actions), self.is_schedulable_after_pod_event
            ),
            ClusterEventWithHint(
                ClusterEvent(EventResource.NODE, node_actions),
                self.is_schedulable_after_node_change,
            ),
        ]
        if self.enable_dra_extended_resource:
            events.append(
                ClusterEventWithHint(
                    ClusterEvent(EventResource.DEVICE_CLASS, ActionType.ADD | ActionType.UPDATE),
                    self.is_schedulable_after_device_class_event,
                )
            )
        return events

    def is_schedulable_after_pod_event(self, pod: Pod, old_obj: Any, new_obj: Any) -> QueueingHint:
        """A deleted pod that was placed (or nominated), or a pod scaled down, may free room."""
        original, modified = as_typed(Pod, old_obj, new_obj)
        if modified is None:
            if not original.spec.node_name and not original.status.nominated_node_name:
                return QueueingHint.QUEUE_SKIP
            return QueueingHint.QUEUE
        if not self.enable_in_place_pod_vertical_scaling:
            return QueueingHint.QUEUE_SKIP
        if not self._is_schedulable_after_pod_scale_down(pod, original, modified):
            return QueueingHint.QUEUE_SKIP
        return QueueingHint.QUEUE

    def _is_schedulable_after_pod_scale_down(
        self, target: Pod, original: Pod, modified: Pod
    ) -> bool:
        """True for the target pod itself, or a placed pod that shrank in something the target
        requests."""
        if modified.uid == target.uid:
            return True
        if not modified.spec.node_name:
            return False
        options = {
            "use_status_resources": self.enable_in_place_pod_vertical_scaling,
            "in_place_pod_level_resources_vertical_scaling": (
                self.enable_in_place_pod_level_resources_vertical_scaling
            ),
        }
        before, after = Resource(), Resource()
        before.set_max_resource(pod_request_list(original, **options))
        after.set_max_resource(pod_request_list(modified, **options))
        for name, quantity in pod_request_list(target, **options).items():
            if quantity.is_zero():
                continue
            if name == RESOURCE_CPU:
                shrank = before.milli_cpu > after.milli_cpu
            elif name == RESOURCE_MEMORY:
                shrank = before.memory > after.memory
            elif name == RESOURCE_EPHEMERAL_STORAGE:
                shrank = before.ephemeral_storage > after.ephemeral_storage
            else:
                shrank = is_scalar_resource_name(name) and before.scalar_resources.get(
                    name, 0
                ) > after.scalar_resources.get(name, 0)
            if shrank:
                return True
        return False

    def is_schedulable_after_node_change(
        self, pod: Pod, old_obj: Any, new_obj: Any
    ) -> QueueingHint:
        """Queue when the pod fits the new or changed node and (for an update) the node grew
        in something the pod requests."""
        original, modified = as_typed(Node, old_obj, new_obj)
        dra_backed = self._dra_backed(
            compute_pod_resource_request(pod, self.enable_pod_level_resources)
        )
        if not is_fit(pod, modified, self.enable_pod_level_resources, dra_backed):
            return QueueingHint.QUEUE_SKIP
        if original is None:
            return QueueingHint.QUEUE
        if not have_any_requested_resources_increased(
            pod, original, modified, self.enable_pod_level_resources, dra_backed
        ):
            return QueueingHint.QUEUE_SKIP
        return QueueingHint.QUEUE

    def is_schedulable_after_device_class_event(
        self, pod: Pod, old_obj: Any, new_obj: Any
    ) -> QueueingHint:
        """Queue when a device class starts to provide an extended resource the pod requests."""
        original, modified = _as_device_classes(old_obj, new_obj)
        modified_name = _extended_resource_name(modified)
        if original is not None:
            if (_extended_resource_name(original) or "") == (modified_name or ""):
                return QueueingHint.QUEUE_SKIP
        elif RESOURCE_DEVICE_CLASS_PREFIX + modified.name in pod_request_list(pod):
            # A class's name never changes, so its implicit resource name matters on Add only.
            return QueueingHint.QUEUE
        if modified_name is not None and modified_name in pod_request_list(pod):
            return QueueingHint.QUEUE
        return QueueingHint.QUEUE_SKIP

    # -- filtering -----------------------------------------------------------------------------

    def pre_filter(
        self, state: CycleState, pod: Pod, nodes: list[NodeInfo]
    ) -> tuple[PreFilterResult | None, Status | None]:
        if not self.enable_sidecar_containers and has_restartable_init_container(pod):
            # Older kubelets size such pods differently: refuse rather than overbook.
            return None, Status(Code.UNSCHEDULABLE_AND_UNRESOLVABLE, ERR_REASON_SIDECARS_DISABLED)
        request = compute_pod_resource_request(pod, self.enable_pod_level_resources)
        scalars = scalars_to_check(request, self.ignored_resources, self.ignored_resource_groups)
        dra_backed = self._dra_backed(request) if scalars else frozenset()
        state.write(PRE_FILTER_STATE_KEY, _PreFilterState(request, scalars, dra_backed))
        return None, None

    def filter(self, state: CycleState, pod: Pod, node_info: NodeInfo) -> Status | None:
        try:
            pre_filter_state = state.read(PRE_FILTER_STATE_KEY)
        except NotFoundError as err:
            return Status.as_status(
                StatusError(f'error reading "{PRE_FILTER_STATE_KEY}" from cycleState: {err}')
            )
        insufficient = _fits(
            pre_filter_state.request,
            pre_filter_state.scalars_to_check,
            node_info,
            pre_filter_state.dra_backed,
        )
        if not insufficient:
            return None
        code, reasons = _failure_of(insufficient)
        return Status(code, *reasons)

    def filter_nodes(
        self, state: CycleState, pod: Pod, node_infos: Sequence[NodeInfo]
    ) -> list[Status | None]:
        """Nodes with room for every requested amount pass at a glance; the others (and pods
        with scalar resources) go through ``filter``, which says what is missing."""
        try:
            pre_filter_state = state.read(PRE_FILTER_STATE_KEY)
        except NotFoundError:
            return [self.filter(state, pod, node_info) for node_info in node_infos]
        if pre_filter_state.scalars_to_check:
            return [self.filter(state, pod, node_info) for node_info in node_infos]
        request = pre_filter_state.request
        cpu, memory, storage = request.milli_cpu, request.memory, request.ephemeral_storage
        statuses: list[Status | None] = [None] * len(node_infos)
        # The nodes' interned amounts (NodeInfo.resource_amounts): alike nodes share one tuple,
        # so this reads one object per node where attribute walks read four, each far from
        # the last (a cycle's nodes are not in the cache; this was three times slower).
        for index, amounts in enumerate(map(_RESOURCE_AMOUNTS, node_infos)):
            if (
                amounts[AMOUNT_PODS] + 1 > amounts[AMOUNT_ALLOWED_PODS]
                or (
                    cpu > 0
                    and cpu > amounts[AMOUNT_ALLOCATABLE_CPU] - amounts[AMOUNT_REQUESTED_CPU]
                )
                or (
                    memory > 0
                    and memory
                    > amounts[AMOUNT_ALLOCATABLE_MEMORY] - amounts[AMOUNT_REQUESTED_MEMORY]
                )
                or (
                    storage > 0
                    and storage
                    > amounts[AMOUNT_ALLOCATABLE_EPHEMERAL_STORAGE]
                    - amounts[AMOUNT_REQUESTED_EPHEMERAL_STORAGE]
                )
            ):
                statuses[index] = self._failure(pre_filter_state, amounts)
        return statuses

    def _failure(self, pre_filter_state: _PreFilterState, amounts: tuple[int, ...]) -> Status:
        """``filter``'s status for a node with these amounts (no scalar resources to check).

        What is missing depends only on the node's amounts and the pod's requests, and where
        preemption nominated pods the same full nodes fail every pod's first attempt, cycle
        after cycle (over a million failures in the Preemption benchmark): the status itself
        is remembered and alike nodes share it. Statuses are read, never changed, once
        returned (the runtime only names the plugin, with this plugin's name every time).
        """
        request = pre_filter_state.request
        key = (amounts, request.milli_cpu, request.memory, request.ephemeral_storage)
        known = self._failures.get(key)
        if known is None:
            if len(self._failures) >= _FAILURES_KEPT:
                self._failures.clear()
            code, reasons = _failure_of(_fits_amounts(request, amounts))
            known = self._failures[key] = Status(code, *reasons)
        return known

    # -- scoring -------------------------------------------------------------------------------

    def pre_score(self, state: CycleState, pod: Pod, nodes: list[NodeInfo]) -> Status | None:
        state.write(
            PRE_SCORE_STATE_KEY,
            _PreScoreState(
                self.scorer.calculate_pod_resource_request_list(pod), self._dra_pre_score_state()
            ),
        )
        return None

    def score(self, state: CycleState, pod: Pod, node_info: NodeInfo) -> tuple[int, Status | None]:
        pod_requests, dra = self._pre_score_state(state, pod)
        return self.scorer.score(node_info, pod_requests, dra)

    def score_nodes(
        self, state: CycleState, pod: Pod, node_infos: Sequence[NodeInfo]
    ) -> tuple[list[int], Status | None]:
        pod_requests, dra = self._pre_score_state(state, pod)
        return self.scorer.score_nodes(node_infos, pod_requests, dra)

    def score_placement(
        self, state: CycleState, pod_group: PodGroupInfo, placement: PodGroupAssignments
    ) -> tuple[int, Status | None]:
        """How full the placement's nodes would be with the members proposed there
        (MostAllocated over their sums); no normalization."""
        if self.placement_scorer is None:
            return 0, Status.error("placement scoring needs TopologyAwareWorkloadScheduling")
        return self.placement_scorer.score_placement(placement), None

    def _pre_score_state(
        self, state: CycleState, pod: Pod
    ) -> tuple[list[int], DRAPreScoreState | None]:
        try:
            pre_score_state = state.read(PRE_SCORE_STATE_KEY)
        except NotFoundError:
            # PreScore is disabled in this profile: work it out here.
            return self.scorer.calculate_pod_resource_request_list(pod), self._dra_pre_score_state()
        return pre_score_state.pod_requests, pre_score_state.dra

    def _dra_pre_score_state(self) -> DRAPreScoreState | None:
        if not self.enable_dra_extended_resource or self.handle is None:
            return None
        return dra_pre_score_state(
            self.handle.cluster(), self.scorer.resources, self.enable_dra_consumable_capacity
        )


# -- node hints ---------------------------------------------------------------------------------


def is_fit(
    pod: Pod,
    node: Node | None,
    enable_pod_level_resources: bool,
    dra_backed: Collection[str] = (),
) -> bool:
    """The pod fits the node as if no pod ran there (a missing node fits nothing)."""
    if node is None:
        return False
    return not fits(pod, _node_info_of(node), enable_pod_level_resources, dra_backed)


def have_any_requested_resources_increased(
    pod: Pod,
    original: Node,
    modified: Node,
    enable_pod_level_resources: bool = True,
    dra_backed: Collection[str] = (),
) -> bool:
    """The node now allows more pods, or more of something the pod requests (or the node
    has none of a resource DRA may provide)."""
    request = compute_pod_resource_request(pod, enable_pod_level_resources)
    modified_info = _node_info_of(modified)
    before = _node_info_of(original).allocatable
    after = modified_info.allocatable
    if after.allowed_pod_number > before.allowed_pod_number:
        return True
    if (
        request.milli_cpu == 0
        and request.memory == 0
        and request.ephemeral_storage == 0
        and not request.scalar_resources
    ):
        return False
    if (
        (request.milli_cpu > 0 and after.milli_cpu > before.milli_cpu)
        or (request.memory > 0 and after.memory > before.memory)
        or (request.ephemeral_storage > 0 and after.ephemeral_storage > before.ephemeral_storage)
    ):
        return True
    return any(
        quantity != 0
        and (
            after.scalar_resources.get(name, 0) > before.scalar_resources.get(name, 0)
            or _delegated(name, modified_info, dra_backed)
        )
        for name, quantity in request.scalar_resources.items()
    )


def _node_info_of(node: Node) -> NodeInfo:
    node_info = NodeInfo()
    node_info.set_node(node)
    return node_info


def _as_device_classes(old_obj: Any, new_obj: Any) -> tuple[Any, Any]:
    """Device classes are read from their manifests (no typed DeviceClass kind exists yet)."""
    for obj in (new_obj, old_obj):
        if obj is not None and not (isinstance(obj, KubeObject) and obj.kind == DEVICE_CLASS_KIND):
            raise TypeError(f"expected DeviceClass, but got {type(obj).__name__}")
    return old_obj, new_obj


def _extended_resource_name(device_class: KubeObject) -> str | None:
    spec = device_class.manifest.get("spec") or {}
    return spec.get("extendedResourceName")
