"""DynamicResources: allocates a pod's ResourceClaims from ResourceSlices, as upstream.

PreEnqueue waits for the claims to exist; PreFilter checks them and sets up one allocator
over the devices already taken (allocated claims and in-flight allocations); Filter runs the
allocator per node; Score prefers earlier subrequests of prioritized lists; Reserve keeps the
chosen allocation in flight so the next pod does not get the same devices; PreBind writes
``status.allocation`` and ``status.reservedFor`` (then waits for device binding conditions,
binding_conditions.py); PostFilter deallocates a claim that no node could use. Extended
resources served by a DeviceClass get one special claim, built per node in Filter and created
in PreBind (extended_resources.py).
"""

from __future__ import annotations

import contextlib
import datetime as _dt
import time
from collections.abc import Sequence
from typing import Any, NamedTuple

from framework.api.field_errors import aggregate_message
from framework.api.node_affinity import NodeSelector
from framework.api.pod import Pod
from framework.api.resource_claim import (
    AllocationResult,
    ResourceClaim,
    has_finalizer,
    with_finalizer,
)
from framework.cluster.generated_names import generated_name
from framework.config.defaults import DYNAMIC_RESOURCES_BINDING_TIMEOUT_DEFAULT
from framework.config.types import DynamicResourcesArgs
from framework.config.validation_pluginargs import validate_dynamic_resources_args
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
    BatchScoreExtensions,
    BatchScorePlugin,
    EnqueueExtensions,
    FilterPlugin,
    PostFilterPlugin,
    PreBindPlugin,
    PreEnqueuePlugin,
    PreFilterPlugin,
    ReservePlugin,
    SignPlugin,
)
from framework.interface.status import Code, Status
from framework.interface.types import (
    MAX_NODE_SCORE,
    NodeScore,
    NodeToStatus,
    PostFilterResult,
    PreBindPreFlightResult,
    PreFilterResult,
    SignFragment,
)
from framework.metrics import RESOURCECLAIM_CREATES_TOTAL
from framework.plugins import names
from framework.plugins.dynamicresources import binding_conditions
from framework.plugins.dynamicresources.binding_conditions import BindingFailedError
from framework.plugins.dynamicresources.extended_resources import (
    DEVICE_CLASS_KIND,
    DeviceClassResolver,
    create_requests_and_mappings,
    dra_extended_resources,
    find_extended_resource_claim,
    for_creation,
    has_device_class_mapped_resource,
    in_memory_claim,
    is_special_claim_name,
    resources_needing_dra,
    with_requests,
)
from framework.plugins.dynamicresources.in_flight import (
    InFlightAllocations,
    gather_allocated_state,
)
from framework.plugins.dynamicresources.pod_claims import (
    RESOURCE_CLAIM_KIND,
    RESOURCE_CLAIM_RESOURCE,
    ClaimError,
    is_reserved_for_pod,
    klog_ref,
    pod_claims,
    pod_reference,
)
from framework.plugins.dynamicresources.structured.allocator import (
    Allocator,
    FailedAllocationOnNode,
)
from framework.plugins.dynamicresources.structured.pools import AllocationError
from framework.plugins.dynamicresources.structured.types import Features as StructuredFeatures
from framework.plugins.feature import Features
from framework.plugins.helper.normalize_score import (
    default_normalize_score,
    default_normalize_score_values,
)
from framework.storage import lookup

STATE_KEY = names.DYNAMIC_RESOURCES
RESOURCE_SLICE_KIND = "ResourceSlice"

FIRST_AVAILABLE_DEVICE_REQUEST_MAX_SIZE = 8
"""resourceapi.FirstAvailableDeviceRequestMaxSize: a subrequest at position i scores 8 - i."""

RESOURCE_CLAIM_RESERVED_FOR_MAX_SIZE = 256
"""resourceapi.ResourceClaimReservedForMaxSize: how many consumers a claim can have."""


class _NodeAllocation(NamedTuple):
    """What Filter found for one node (upstream ``nodeAllocation``): the allocations of the
    claims to allocate, in order, and the node's variant of the extended resource claim
    with the pod's request mappings."""

    results: list[AllocationResult]
    extended_resource_claim: ResourceClaim | None = None
    request_mappings: Sequence[dict[str, str]] = ()


class _StateData:
    """The pod's claims and what the cycle learnt about them (upstream ``stateData``).

    ``claims`` holds the user's claims (``spec.resourceClaims`` order) followed, when the pod
    has DRA extended resources, by the special claim (upstream's ``claimStore``).
    ``allocations[i]`` is the allocation Reserve chose for claim i; ``available_on_nodes[i]``
    the node selector of claim i when it is allocated already.
    """

    __slots__ = (
        "allocations",
        "allocator",
        "available_on_nodes",
        "claims",
        "initial_extended_resource_claim_uid",
        "node_allocations",
        "num_user_owned",
        "pod_scalar_resources",
        "resolver",
        "unavailable_claims",
    )

    def __init__(self) -> None:
        self.claims: list[ResourceClaim] = []
        self.num_user_owned = 0
        self.initial_extended_resource_claim_uid = ""
        self.pod_scalar_resources: dict[str, int] = {}
        self.resolver: DeviceClassResolver | None = None
        self.allocator: Allocator | None = None
        self.available_on_nodes: list[NodeSelector | None] = []
        self.allocations: list[AllocationResult | None] = []
        self.unavailable_claims: set[int] = set()
        self.node_allocations: dict[str, _NodeAllocation] = {}

    def set_claims(
        self, user_claims: list[ResourceClaim], extended_resource_claim: ResourceClaim | None
    ) -> None:
        self.claims = list(user_claims)
        self.num_user_owned = len(user_claims)
        if extended_resource_claim is not None:
            self.claims.append(extended_resource_claim)
            self.initial_extended_resource_claim_uid = extended_resource_claim.uid

    def claims_empty(self) -> bool:
        return not self.claims

    def no_user_claim(self) -> bool:
        return self.num_user_owned == 0

    def user_claims(self) -> list[ResourceClaim]:
        return self.claims[: self.num_user_owned]

    def extended_resource_claim(self) -> ResourceClaim | None:
        """The special claim, if the pod has one."""
        if self.num_user_owned == len(self.claims):
            return None
        return self.claims[self.num_user_owned]

    def is_extended_resource_claim(self, index: int) -> bool:
        return index >= self.num_user_owned

    def to_allocate(self) -> list[tuple[int, ResourceClaim]]:
        return [(i, c) for i, c in enumerate(self.claims) if c.status.allocation is None]

    def clone(self) -> _StateData:
        return self


class DynamicResources(
    PreEnqueuePlugin,
    PreFilterPlugin,
    FilterPlugin,
    PostFilterPlugin,
    BatchScorePlugin,
    BatchScoreExtensions,
    ReservePlugin,
    PreBindPlugin,
    EnqueueExtensions,
    SignPlugin,
):
    """Allocates ResourceClaims with structured parameters (upstream ``DynamicResources``)."""

    name = names.DYNAMIC_RESOURCES

    def __init__(self, args: Any, handle: Any, features: Features) -> None:
        self.handle = handle
        self.features = features
        self.enabled = features.enable_dynamic_resource_allocation
        self.in_flight = InFlightAllocations()
        if not self.enabled:
            # Disabled: the plugin does nothing and needs no args.
            return
        if not isinstance(args, DynamicResourcesArgs):
            raise ValueError(f"got args of type {_type_name(args)}, want *DynamicResourcesArgs")
        errors = validate_dynamic_resources_args(None, args, _Gates(features))
        if errors:
            raise ValueError(aggregate_message(errors))
        self.args = args
        self.binding_timeout: _dt.timedelta = (
            args.binding_timeout or DYNAMIC_RESOURCES_BINDING_TIMEOUT_DEFAULT
        )
        self.binding_conditions_enabled = (
            features.enable_dra_device_binding_conditions
            and features.enable_dra_resource_claim_device_status
        )

    def sign_pod(self, pod: Pod) -> tuple[list[SignFragment] | None, Status | None]:
        """Claims may span nodes in ways a signature cannot show: such pods are not signed."""
        if pod.spec.resource_claims:
            return None, Status(
                Code.UNSCHEDULABLE, "pods with dra resource claims are not signable"
            )
        return None, None

    # -- queueing ------------------------------------------------------------------------------

    def events_to_register(self) -> list[ClusterEventWithHint]:
        if not self.enabled:
            return []
        # Without hints the queue's pre-check may swallow a Node/Add (upstream issue 109437).
        node_actions = (
            ActionType.ADD | ActionType.UPDATE_NODE_LABEL | ActionType.UPDATE_NODE_ALLOCATABLE
        )
        if not self.features.enable_scheduling_queue_hint:
            node_actions |= ActionType.UPDATE_NODE_TAINT
        add_or_update = ActionType.ADD | ActionType.UPDATE
        return [
            ClusterEventWithHint(ClusterEvent(EventResource.NODE, node_actions)),
            ClusterEventWithHint(
                ClusterEvent(EventResource.RESOURCE_CLAIM, add_or_update),
                self.is_schedulable_after_claim_change,
            ),
            ClusterEventWithHint(
                ClusterEvent(EventResource.POD, ActionType.UPDATE_POD_GENERATED_RESOURCE_CLAIM),
                self.is_schedulable_after_pod_change,
            ),
            ClusterEventWithHint(ClusterEvent(EventResource.DEVICE_CLASS, add_or_update)),
            ClusterEventWithHint(ClusterEvent(EventResource.RESOURCE_SLICE, add_or_update)),
        ]

    def is_schedulable_after_claim_change(
        self, pod: Pod, old_obj: Any, new_obj: Any
    ) -> QueueingHint:
        """A deallocated claim frees devices; otherwise only the pod's own claims matter."""
        original = _of_kind(RESOURCE_CLAIM_KIND, old_obj)
        modified = _of_kind(RESOURCE_CLAIM_KIND, new_obj)
        try:
            claims = pod_claims(self.handle.cluster(), pod)
        except ClaimError:
            return QueueingHint.QUEUE_SKIP
        if (
            original is not None
            and original.status.allocation is not None
            and modified.status.allocation is None
        ):
            return QueueingHint.QUEUE
        if not any(claim.uid == modified.uid for claim in claims):
            return QueueingHint.QUEUE_SKIP
        if original is None:
            return QueueingHint.QUEUE
        if _status_of(original) == _status_of(modified):
            # Something else changed (in practice: a driver added its finalizer).
            return QueueingHint.QUEUE_SKIP
        return QueueingHint.QUEUE

    def is_schedulable_after_pod_change(self, pod: Pod, old_obj: Any, new_obj: Any) -> QueueingHint:
        """The pod's generated claims got their names: schedulable if all claims exist."""
        if not isinstance(new_obj, Pod):
            raise TypeError(f"expected Pod, but got {type(new_obj).__name__}")
        if pod.uid != new_obj.uid:
            return QueueingHint.QUEUE_SKIP
        try:
            pod_claims(self.handle.cluster(), new_obj)
        except ClaimError:
            return QueueingHint.QUEUE_SKIP
        return QueueingHint.QUEUE

    # -- PreEnqueue, PreFilter -----------------------------------------------------------------

    def pre_enqueue(self, pod: Pod) -> Status | None:
        """Every claim must exist (and a generated one belong to the pod) before scheduling."""
        if not self.enabled:
            return None
        try:
            pod_claims(self.handle.cluster(), pod)
        except ClaimError as err:
            return Status(Code.UNSCHEDULABLE_AND_UNRESOLVABLE, str(err))
        return None

    def pre_filter(
        self, state: CycleState, pod: Pod, nodes: list[NodeInfo]
    ) -> tuple[PreFilterResult | None, Status | None]:
        if not self.enabled:
            return None, Status(Code.SKIP)
        data = _StateData()
        state.write(STATE_KEY, data)
        cluster = self.handle.cluster()
        try:
            user_claims = pod_claims(cluster, pod)
        except ClaimError as err:
            return None, Status(Code.UNSCHEDULABLE_AND_UNRESOLVABLE, str(err))
        extended_resource_claim = self._pre_filter_extended_resources(pod, data)
        claims = [*user_claims, *([extended_resource_claim] if extended_resource_claim else [])]
        if not claims:
            return None, Status(Code.SKIP)
        data.available_on_nodes = [None] * len(claims)
        data.allocations = [None] * len(claims)
        num_to_allocate = 0
        for index, claim in enumerate(claims):
            allocation = claim.status.allocation
            if (
                allocation is not None
                and len(claim.status.reserved_for) >= RESOURCE_CLAIM_RESERVED_FOR_MAX_SIZE
                and not is_reserved_for_pod(pod, claim)
            ):
                return None, Status(Code.UNSCHEDULABLE_AND_UNRESOLVABLE, "resourceclaim in use")
            if allocation is not None:
                # Allocated: usable where its devices are (every claim can be shared).
                data.available_on_nodes[index] = allocation.node_selector
                continue
            num_to_allocate += 1
            if self.in_flight.get(claim.uid) is not None:
                return None, Status(
                    Code.UNSCHEDULABLE_AND_UNRESOLVABLE,
                    f"resource claim {klog_ref(claim)} is in the process of being allocated",
                )
            if claim is extended_resource_claim:
                # Its requests are made per node in Filter (or it is left from an earlier
                # cycle, which Filter refuses).
                continue
            status = self._validate_requests(cluster, claim)
            if status is not None:
                return None, status
        if num_to_allocate:
            data.allocator = Allocator(
                allocator_features(self.features),
                gather_allocated_state(
                    lookup.list_objects(cluster, RESOURCE_CLAIM_KIND),
                    self.in_flight,
                    self.features.enable_dra_consumable_capacity,
                ),
                lambda name: cluster.get(DEVICE_CLASS_KIND, name) if cluster else None,
                lookup.list_objects(cluster, RESOURCE_SLICE_KIND),
            )
        data.set_claims(user_claims, extended_resource_claim)
        return None, None

    def _validate_requests(self, cluster: Any, claim: ResourceClaim) -> Status | None:
        """Every request names an existing class; subrequests need DRAPrioritizedList."""
        for request in claim.spec.requests:
            if request.exactly is not None:
                status = _validate_device_class(
                    cluster, request.exactly.device_class_name, request.name
                )
            elif request.first_available:
                if not self.features.enable_dra_prioritized_list:
                    return Status(
                        Code.UNSCHEDULABLE_AND_UNRESOLVABLE,
                        f"resource claim {klog_ref(claim)}, request {request.name}: has "
                        "subrequests, but the DRAPrioritizedList feature is disabled",
                    )
                status = None
                for sub in request.first_available:
                    status = status or _validate_device_class(
                        cluster, sub.exactly.device_class_name, f"{request.name}/{sub.name}"
                    )
            else:
                return Status(
                    Code.UNSCHEDULABLE_AND_UNRESOLVABLE,
                    f"resource claim {klog_ref(claim)}, request {request.name}: "
                    "unknown request type",
                )
            if status is not None:
                return status
        return None

    def _pre_filter_extended_resources(self, pod: Pod, data: _StateData) -> ResourceClaim | None:
        """The special claim when a DeviceClass serves some of the pod's extended resources.

        It is the claim an earlier cycle created for the pod if there is one (Filter then
        refuses every node and PostFilter deletes it), else a new one in memory.
        """
        if not self.features.enable_dra_extended_resource:
            return None
        scalar_resources = dra_extended_resources(pod)
        if scalar_resources is None:
            return None
        cluster = self.handle.cluster()
        resolver = DeviceClassResolver.of_cluster(cluster)
        if not has_device_class_mapped_resource(scalar_resources, resolver):
            return None
        data.pod_scalar_resources = scalar_resources
        data.resolver = resolver
        existing = find_extended_resource_claim(
            pod, lookup.list_objects(cluster, RESOURCE_CLAIM_KIND)
        )
        return existing if existing is not None else in_memory_claim(pod)

    # -- Filter, PostFilter, Score -------------------------------------------------------------

    def filter(self, state: CycleState, pod: Pod, node_info: NodeInfo) -> Status | None:
        if not self.enabled:
            return None
        data, status = _read_state(state)
        if data is None:
            return status
        if data.claims_empty():
            return None
        node_claim, mappings, status = self._filter_extended_resources(data, pod, node_info)
        if status is not None:
            return status
        if node_claim is None and data.no_user_claim():
            # Only extended resources, all served by the node's device plugins.
            return None
        node = node_info.node
        unavailable = [
            index
            for index, claim in enumerate(data.claims)
            if not self._usable_on(data, index, claim, node)
        ]
        allocations: list[AllocationResult] = []
        if data.allocator is not None:
            claims_to_allocate = [
                node_claim if node_claim is not None and data.is_extended_resource_claim(i) else c
                for i, c in data.to_allocate()
            ]
            try:
                allocations = data.allocator.allocate(node, claims_to_allocate)
            except FailedAllocationOnNode as err:
                # Only invalid pools could have served: other nodes may still do.
                return Status(Code.UNSCHEDULABLE_AND_UNRESOLVABLE, str(err))
            except AllocationError as err:
                # Something is wrong with a claim or class: abort scheduling the pod.
                return Status.error(str(err))
            if allocations is None or len(allocations) != len(claims_to_allocate):
                return Status(Code.UNSCHEDULABLE_AND_UNRESOLVABLE, "cannot allocate all claims")
        if unavailable:
            data.unavailable_claims.update(unavailable)
            return Status(
                Code.UNSCHEDULABLE_AND_UNRESOLVABLE, "resourceclaim not available on the node"
            )
        if data.allocator is not None:
            data.node_allocations[node.name] = _NodeAllocation(allocations, node_claim, mappings)
        return None

    def _usable_on(self, data: _StateData, index: int, claim: ResourceClaim, node: Any) -> bool:
        """An allocated claim must reach the node and, with binding conditions, not have
        failed or timed out waiting for them (PostFilter may then deallocate it)."""
        selector = data.available_on_nodes[index]
        if selector is not None and not selector.match(node):
            return False
        if claim.status.allocation is None or not self.binding_conditions_enabled:
            return True
        try:
            ready = binding_conditions.is_claim_ready_for_binding(claim)
        except BindingFailedError:
            return False
        return ready or not self._is_claim_timeout(claim)

    def _filter_extended_resources(
        self, data: _StateData, pod: Pod, node_info: NodeInfo
    ) -> tuple[ResourceClaim | None, list[dict[str, str]], Status | None]:
        """The node's variant of the special claim, asking for what only DRA can give here
        (None when device plugins serve it all), with the pod's request mappings."""
        claim = data.extended_resource_claim()
        if claim is None:
            return None, [], None
        if claim.spec.requests:
            # Left from an earlier cycle: PostFilter deletes it and the pod tries anew.
            return (
                None,
                [],
                Status(
                    Code.UNSCHEDULABLE_AND_UNRESOLVABLE, "cannot schedule extended resource claim"
                ),
            )
        resolver: DeviceClassResolver = data.resolver  # type: ignore[assignment]
        needed, unmet = resources_needing_dra(data.pod_scalar_resources, node_info, resolver)
        if unmet is not None:
            return None, [], Status(Code.UNSCHEDULABLE_AND_UNRESOLVABLE, "cannot fit resource")
        if (data.no_user_claim() and not needed) or claim.status.allocation is not None:
            return None, [], None
        requests, mappings = create_requests_and_mappings(pod, needed, resolver)
        return with_requests(claim, requests), mappings, None

    def post_filter(
        self, state: CycleState, pod: Pod, filtered_node_status_map: NodeToStatus
    ) -> tuple[PostFilterResult | None, Status | None]:
        """Deallocates one allocated claim that no node could use, unless others use it."""
        if not self.enabled:
            return None, Status(Code.UNSCHEDULABLE, "plugin disabled")
        data, status = _read_state(state)
        if data is None:
            return None, status
        if data.claims_empty():
            return None, Status(Code.UNSCHEDULABLE, "no new claims to deallocate")
        extended_resource_claim = data.extended_resource_claim()
        stale_extended_claim = extended_resource_claim is not None and not is_special_claim_name(
            extended_resource_claim.name
        )
        # Upstream picks one at random; the lowest index keeps simulations reproducible.
        for index in sorted(data.unavailable_claims):
            if data.is_extended_resource_claim(index):
                if stale_extended_claim:
                    break
                continue
            claim = data.claims[index]
            reserved = claim.status.reserved_for
            if not reserved or (len(reserved) == 1 and reserved[0].uid == pod.uid):
                deallocated = claim.deep_copy()
                deallocated.status.allocation = None
                deallocated.status.reserved_for = []
                deallocated.status.devices = []
                try:
                    self.handle.cluster().update(deallocated)
                except Exception as err:
                    return None, Status.as_status(err)
                return None, Status(Code.UNSCHEDULABLE, "deallocation of ResourceClaim completed")
        if stale_extended_claim:
            # Created by an earlier cycle whose binding failed: delete it and start anew.
            try:
                self.handle.cluster().delete(extended_resource_claim)
            except Exception as err:
                return None, Status.as_status(err)
            return None, Status(Code.UNSCHEDULABLE, "deletion of ResourceClaim completed")
        return None, Status(Code.UNSCHEDULABLE, "still not schedulable")

    def score(self, state: CycleState, pod: Pod, node_info: NodeInfo) -> tuple[int, Status | None]:
        """Prefers nodes where prioritized lists got their earlier subrequests."""
        if not self.enabled or not self.features.enable_dra_prioritized_list:
            return 0, None
        data, status = _read_state(state)
        if data is None:
            return 0, status
        if data.claims_empty():
            return 0, None
        node_allocation = data.node_allocations.get(node_info.node.name)
        if node_allocation is None:
            return 0, None
        return compute_score(data.claims, node_allocation.results)

    def score_nodes(
        self, state: CycleState, pod: Pod, node_infos: Sequence[NodeInfo]
    ) -> tuple[list[int], Status | None]:
        """``score`` on each node; a pod without claims (most pods) scores 0 everywhere,
        answered once instead of node by node."""
        if not self.enabled or not self.features.enable_dra_prioritized_list:
            return [0] * len(node_infos), None
        data, status = _read_state(state)
        if data is None and node_infos:
            return [], status
        if data is None or data.claims_empty():
            return [0] * len(node_infos), None
        scores = []
        for node_info in node_infos:
            score, status = self.score(state, pod, node_info)
            if status is not None:
                return [], status
            scores.append(score)
        return scores, None

    def score_extensions(self) -> BatchScoreExtensions:
        return self

    def normalize_score(
        self, state: CycleState, pod: Pod, scores: list[NodeScore]
    ) -> Status | None:
        if not self.enabled:
            return None
        return default_normalize_score(MAX_NODE_SCORE, False, scores)

    def normalize_score_values(
        self, state: CycleState, pod: Pod, scores: list[int]
    ) -> Status | None:
        if not self.enabled:
            return None
        return default_normalize_score_values(MAX_NODE_SCORE, False, scores)

    # -- Reserve, Unreserve, PreBind -----------------------------------------------------------

    def reserve(self, state: CycleState, pod: Pod, node_name: str) -> Status | None:
        """Keeps the node's allocations in flight until PreBind writes them."""
        if not self.enabled:
            return None
        data, status = _read_state(state)
        if data is None:
            return status
        to_allocate = data.to_allocate()
        if not to_allocate or data.allocator is None:
            # Allocated claims get reserved for the pod in PreBind.
            return None
        need_user_claims = any(not data.is_extended_resource_claim(i) for i, _ in to_allocate)
        node_allocation = data.node_allocations.get(node_name)
        if node_allocation is None or not node_allocation.results:
            if not need_user_claims:
                # Only the special claim, and the node's device plugins serve it all.
                return None
            return Status.error("claim allocation not found for node")
        allocations = node_allocation.results
        if len(allocations) != len(to_allocate):
            return Status.error(
                f"internal error, have {len(allocations)} allocations, {len(to_allocate)} "
                f"claims to allocate, want {len(to_allocate)} claims"
            )
        for (index, claim), allocation in zip(to_allocate, allocations, strict=True):
            data.allocations[index] = allocation
            if data.is_extended_resource_claim(index):
                claim = node_allocation.extended_resource_claim or claim
            # As it will be written (and the allocator sees it): finalizer and allocation.
            pending = with_finalizer(claim, True) if not has_finalizer(claim) else claim.deep_copy()
            pending.status.allocation = allocation
            self.in_flight.signal(pending)
        return None

    def unreserve(self, state: CycleState, pod: Pod, node_name: str) -> None:
        """Drops in-flight allocations and the pod's reservations, and deletes the special
        claim if PreBind created it; idempotent."""
        if not self.enabled:
            return
        data, _ = _read_state(state)
        if data is None or data.claims_empty():
            return
        cluster = self.handle.cluster()
        for claim in data.user_claims():
            self.in_flight.remove(claim.uid)
            if claim.status.allocation is not None and is_reserved_for_pod(pod, claim):
                current = cluster.get(RESOURCE_CLAIM_KIND, claim.name, claim.namespace)
                if current is None:
                    continue
                patched = current.deep_copy()
                patched.status.reserved_for = [
                    ref for ref in current.status.reserved_for if ref.uid != pod.uid
                ]
                # Like upstream's patch, a failure is only logged: the next attempt retries.
                with contextlib.suppress(Exception):
                    cluster.update(patched)
        self._unreserve_extended_resource_claim(data)

    def _unreserve_extended_resource_claim(self, data: _StateData) -> None:
        claim = data.extended_resource_claim()
        if claim is None:
            return
        self.in_flight.remove(data.initial_extended_resource_claim_uid)
        if is_special_claim_name(claim.name):
            return
        # Written to the cluster already: delete it, so that it is not left behind.
        with contextlib.suppress(Exception):
            self.handle.cluster().delete(claim)

    def pre_bind_pre_flight(
        self, state: CycleState, pod: Pod, node_name: str
    ) -> tuple[PreBindPreFlightResult | None, Status | None]:
        result = PreBindPreFlightResult(allow_parallel=True)
        if not self.enabled:
            return result, Status(Code.SKIP)
        data, status = _read_state(state)
        if data is None:
            return result, status
        if data.claims_empty():
            return result, Status(Code.SKIP)
        return result, None

    def pre_bind(self, state: CycleState, pod: Pod, node_name: str) -> Status | None:
        """Writes each claim's allocation (from Reserve) and the pod into ``reservedFor``,
        creating the special claim first; then waits for device binding conditions."""
        if not self.enabled:
            return None
        data, status = _read_state(state)
        if data is None:
            return status
        if data.claims_empty():
            return None
        for index, claim in enumerate(data.claims):
            if is_reserved_for_pod(pod, claim):
                continue
            try:
                data.claims[index] = self._bind_claim(data, index, pod, node_name)
            except _BindError as err:
                return Status.error(str(err))
        if not self.binding_conditions_enabled or not binding_conditions.has_binding_conditions(
            data.claims
        ):
            return None
        return self._wait_for_binding_conditions(data, pod, node_name)

    def _bind_claim(self, data: _StateData, index: int, pod: Pod, node_name: str) -> ResourceClaim:
        """Records the claim's allocation and reservation (``bindClaim``), creating the
        special claim first; the claim as written."""
        claim = data.claims[index]
        allocation = data.allocations[index]
        is_extended = data.is_extended_resource_claim(index)
        if is_extended and allocation is None and not claim.spec.requests:
            # The node's device plugins serve every extended resource.
            return claim
        in_flight_uid = claim.uid
        try:
            if is_extended and is_special_claim_name(claim.name):
                claim = self._create_extended_resource_claim(data, pod, node_name)
                # Unreserve deletes it again if binding fails from here on.
                data.claims[index] = claim
            claim = self._update_claim_status(claim, allocation, pod)
        finally:
            if allocation is not None:
                # Written or failed: either way the allocation is no longer in flight.
                self.in_flight.remove(in_flight_uid)
        if is_extended:
            self._patch_pod_extended_resource_claim_status(data, pod, claim, node_name)
        return claim

    def _update_claim_status(
        self, claim: ResourceClaim, allocation: AllocationResult | None, pod: Pod
    ) -> ResourceClaim:
        """Adds the allocation and the pod to the claim's latest status."""
        cluster = self.handle.cluster()
        current = cluster.get(RESOURCE_CLAIM_KIND, claim.name, claim.namespace)
        if current is None or current.metadata.deletion_timestamp is not None:
            raise _BindError(f"claim {klog_ref(claim)} got deleted in the meantime")
        updated = current.deep_copy()
        if allocation is not None:
            if current.status.allocation is not None:
                raise _BindError(f"claim {klog_ref(claim)} got allocated elsewhere in the meantime")
            if not has_finalizer(current):
                # Upstream adds it in an update of its own first; here both go in one.
                updated = with_finalizer(current, True)
            updated.status.allocation = allocation
        updated.status.reserved_for = [*current.status.reserved_for, pod_reference(pod)]
        if self.binding_conditions_enabled:
            if updated.status.allocation is None:
                raise _BindError(
                    f"claim {klog_ref(claim)} got deallocated elsewhere in the meantime"
                )
            if updated.status.allocation.allocation_timestamp is None:
                updated.status.allocation = _with_timestamp(updated.status.allocation, self._now())
        try:
            return cluster.update(updated)
        except Exception as err:
            verb = "add allocation and reservation to" if allocation else "add reservation to"
            raise _BindError(f"{verb} claim {klog_ref(claim)}: {err}") from None

    def _create_extended_resource_claim(
        self, data: _StateData, pod: Pod, node_name: str
    ) -> ResourceClaim:
        """Creates the node's variant of the special claim, named by its generateName."""
        node_allocation = data.node_allocations.get(node_name)
        if node_allocation is None or node_allocation.extended_resource_claim is None:
            raise _BindError(f"extended resource claim not found for node {node_name}")
        cluster = self.handle.cluster()
        base = node_allocation.extended_resource_claim
        name = generated_name(
            lookup.manifest_field(base, "metadata", "generateName") or "",
            f"{pod.uid}/extended-resources",
            lambda candidate: (
                cluster.get(RESOURCE_CLAIM_KIND, candidate, pod.namespace) is not None
            ),
        )
        try:
            created = cluster.create(for_creation(base, name))
        except Exception as err:
            self.handle.metrics.inc(RESOURCECLAIM_CREATES_TOTAL, status="failure")
            raise _BindError(
                f"create claim for extended resources {pod.namespace}/: {err}"
            ) from None
        self.handle.metrics.inc(RESOURCECLAIM_CREATES_TOTAL, status="success")
        return created

    def _patch_pod_extended_resource_claim_status(
        self, data: _StateData, pod: Pod, claim: ResourceClaim, node_name: str
    ) -> None:
        """Records the claim and which container and resource each request is for in the
        pod's ``status.extendedResourceClaimStatus``."""
        node_allocation = data.node_allocations.get(node_name)
        mappings = node_allocation.request_mappings if node_allocation is not None else []
        if not mappings:
            raise _BindError(
                f"nil or empty request mappings, no update of pod {pod.namespace}/{pod.name} "
                "ExtendedResourceClaimStatus"
            )
        cluster = self.handle.cluster()
        try:
            current = cluster.get("Pod", pod.name, pod.namespace) or pod
            manifest = current.to_dict()
            manifest.setdefault("status", {})["extendedResourceClaimStatus"] = {
                "requestMappings": [dict(m) for m in mappings],
                "resourceClaimName": claim.name,
            }
            cluster.update(Pod.from_dict(manifest))
        except Exception as err:
            raise _BindError(
                f"update pod {pod.namespace}/{pod.name} ExtendedResourceClaimStatus: {err}"
            ) from None

    # -- binding conditions --------------------------------------------------------------------

    def _is_claim_timeout(self, claim: ResourceClaim) -> bool:
        return binding_conditions.is_claim_timeout(claim, self.binding_timeout, self._now())

    def _wait_for_binding_conditions(
        self, data: _StateData, pod: Pod, node_name: str
    ) -> Status | None:
        """Upstream's wait for the devices to get ready, without blocking.

        PreBind runs on the scheduler's own thread here (inline in simulations, on the
        service's thread in the playground), where nothing can change a claim while it waits.
        So it reads the claims once and takes the outcome upstream's wait reaches if no
        driver acts meanwhile; conditions set later are seen at the pod's next attempt (see
        docs/dra.md).
        """
        self._record_binding_conditions_pending(pod, node_name)
        started = time.perf_counter()
        try:
            self._refresh_claims(data)
            error = binding_conditions.wait_outcome(data.claims, self.binding_timeout, self._now())
        except _BindError as err:
            error = str(err)
        binding_conditions.record_wait(
            self.handle.metrics,
            self.handle.profile_name(),
            data.claims,
            binding_conditions.wait_status(error),
            time.perf_counter() - started,
        )
        return Status.error(error) if error is not None else None

    def _record_binding_conditions_pending(self, pod: Pod, node_name: str) -> None:
        event_recorder = getattr(self.handle, "event_recorder", None)
        recorder = event_recorder() if event_recorder is not None else None
        if recorder is not None:
            recorder.eventf(
                pod,
                None,
                "Normal",
                "BindingConditionsPending",
                "Scheduling",
                f"waiting for binding conditions for device on node {node_name}",
            )

    def _refresh_claims(self, data: _StateData) -> None:
        """The claims as the cluster has them now (drivers write their device status)."""
        cluster = self.handle.cluster()
        for index, claim in enumerate(data.claims):
            current = cluster.get(RESOURCE_CLAIM_KIND, claim.name, claim.namespace)
            if current is None:
                raise _BindError(f'{RESOURCE_CLAIM_RESOURCE} "{claim.name}" not found')
            data.claims[index] = current

    def _now(self) -> float:
        clock = getattr(self.handle, "clock", None)
        return clock.now() if clock is not None else time.time()


class _BindError(Exception):
    """PreBind could not write a claim: the pod goes back to the queue after Unreserve."""


def _with_timestamp(allocation: AllocationResult, now: float) -> AllocationResult:
    """A copy of the allocation stamped with when it was written (whole seconds, as the
    API server stores it)."""
    stamped = AllocationResult(
        results=allocation.results,
        config=allocation.config,
        node_selector=allocation.node_selector,
        node_selector_dict=allocation.node_selector_dict,
    )
    stamped.allocation_timestamp = _dt.datetime.fromtimestamp(int(now), _dt.UTC)
    return stamped


def compute_score(
    claims: Sequence[ResourceClaim], allocations: Sequence[AllocationResult]
) -> tuple[int, Status | None]:
    """FIRST_AVAILABLE_DEVICE_REQUEST_MAX_SIZE - i for each allocated subrequest at position i."""
    score = 0
    unallocated = iter(allocations)
    for claim in claims:
        allocation = claim.status.allocation
        if allocation is None:
            allocation = next(unallocated, None)
            if allocation is None:
                return 0, Status.error(
                    f"number of allocations {len(allocations)} is smaller than number of "
                    "claims needing allocation"
                )
        allocated = {r.request for r in allocation.results if r.request.count("/") == 1}
        for request in claim.spec.requests:
            for position, sub in enumerate(request.first_available):
                if f"{request.name}/{sub.name}" in allocated:
                    score += FIRST_AVAILABLE_DEVICE_REQUEST_MAX_SIZE - position
    return score, None


def allocator_features(features: Features) -> StructuredFeatures:
    """The allocator's switches from the scheduler's gates (``AllocatorFeatures``)."""
    return StructuredFeatures(
        admin_access=features.enable_dra_admin_access,
        prioritized_list=features.enable_dra_prioritized_list,
        partitionable_devices=features.enable_dra_partitionable_devices,
        device_taints=features.enable_dra_device_taints,
        device_binding_and_status=features.enable_dra_device_binding_conditions
        and features.enable_dra_resource_claim_device_status,
        consumable_capacity=features.enable_dra_consumable_capacity,
    )


def _validate_device_class(cluster: Any, class_name: str, request_name: str) -> Status | None:
    if not class_name:
        return Status.error(f"request {request_name}: unsupported request type")
    if cluster is None or cluster.get(DEVICE_CLASS_KIND, class_name) is None:
        # The pod waits for a DeviceClass event.
        return Status(
            Code.UNSCHEDULABLE_AND_UNRESOLVABLE,
            f"request {request_name}: device class {class_name} does not exist",
        )
    return None


def _status_of(claim: ResourceClaim) -> Any:
    return claim.to_dict().get("status")


def _read_state(state: CycleState) -> tuple[_StateData | None, Status | None]:
    try:
        return state.read(STATE_KEY), None  # type: ignore[return-value]
    except NotFoundError as err:
        return None, Status.as_status(err)


def _of_kind(kind: str, obj: Any) -> Any:
    if obj is not None and getattr(obj, "kind", None) != kind:
        raise TypeError(f"expected {kind}, but got {type(obj).__name__}")
    return obj


class _Gates:
    """The feature gates args validation asks about, answered from the plugin's switches."""

    def __init__(self, features: Features) -> None:
        self._enabled = {
            "DRASchedulerFilterTimeout": features.enable_dra_scheduler_filter_timeout,
            "DRADeviceBindingConditions": features.enable_dra_device_binding_conditions,
            "DRAResourceClaimDeviceStatus": features.enable_dra_resource_claim_device_status,
        }

    def enabled(self, name: str) -> bool:
        return self._enabled[name]


def _type_name(args: Any) -> str:
    """How upstream's ``%T`` shows unexpected args."""
    return "<nil>" if args is None else f"*config.{type(args).__name__}"
