"""Allocating a pod's claims on one node, as upstream's structured allocator.

This follows the "incubating" implementation, the one kube-scheduler v1.36 picks for its
default gates (admin access, prioritized lists, partitionable devices, device taints,
consumable capacity, binding conditions). The search is exhaustive and depth first: claims in
order, their requests in order (for ``firstAvailable``, the subrequests in order until one
works), one device after the other from the node's pools, in pool, slice and device order;
the first complete solution wins. Within a request, devices are tried as combinations (in
increasing position), never as permutations.

``allocate`` answers None when the claims cannot be allocated on the node, raises
:class:`AllocationError` for a problem that would fail every node (a CEL error, a missing
device class), and :class:`FailedAllocationOnNode` when only invalid pools could have served.
"""

from __future__ import annotations

import uuid
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from framework.api.device_class import DeviceClass, DeviceSelector
from framework.api.node_affinity import NodeSelector, NodeSelectorRequirement, NodeSelectorTerm
from framework.api.quantity import Quantity
from framework.api.resource_claim import (
    ALLOCATION_CONFIG_SOURCE_CLAIM,
    ALLOCATION_CONFIG_SOURCE_CLASS,
    DEVICE_ALLOCATION_MODE_ALL,
    DEVICE_ALLOCATION_MODE_EXACT_COUNT,
    AllocationResult,
    DeviceAllocationConfiguration,
    DeviceRequestAllocationResult,
    ExactDeviceRequest,
    ResourceClaim,
)
from framework.api.resource_slice import (
    DEVICE_TAINT_EFFECT_NO_EXECUTE,
    DEVICE_TAINT_EFFECT_NO_SCHEDULE,
    Device,
    ResourceSlice,
)
from framework.plugins.dynamicresources.cel import compile as cel
from framework.plugins.dynamicresources.cel import verdicts
from framework.plugins.dynamicresources.structured.constraints import (
    Constraint,
    DistinctAttributeConstraint,
    MatchAttributeConstraint,
)
from framework.plugins.dynamicresources.structured.consumable_capacity import (
    CapacityError,
    get_consumed_capacity_from_request,
    request_fits_capacity,
)
from framework.plugins.dynamicresources.structured.pools import (
    AllocationError,
    Pool,
    gather_pools,
    node_matches,
)
from framework.plugins.dynamicresources.structured.types import (
    AllocatedState,
    ConsumedCapacity,
    DeviceID,
    Features,
    insert_consumed_capacity,
    remove_consumed_capacity,
)

ALLOCATION_RESULTS_MAX_SIZE = 32
"""resourceapi.AllocationResultsMaxSize: devices one claim may get."""

DeviceClassLister = Callable[[str], DeviceClass | None]
"""The DeviceClass of a name, or None when there is none."""


class FailedAllocationOnNode(AllocationError):
    """Not fatal: allocation failed here, and only invalid pools could have served."""


class _AllocationResultMaxSizeExceeded(Exception):
    """Backtrack further: this path cannot stay within ALLOCATION_RESULTS_MAX_SIZE."""


@dataclass(frozen=True, slots=True)
class _Request:
    """A request or a subrequest, read alike (upstream ``requestAccessor``)."""

    name: str
    exactly: ExactDeviceRequest
    is_sub_request: bool = False

    @property
    def admin_access(self) -> bool:
        return not self.is_sub_request and bool(self.exactly.admin_access)

    @property
    def has_admin_access(self) -> bool:
        return not self.is_sub_request and self.exactly.admin_access is not None


@dataclass(frozen=True, slots=True)
class _Candidate:
    """A device with where it is (upstream ``deviceWithID``)."""

    id: DeviceID
    device: Device
    slice: ResourceSlice
    pool: Pool


@dataclass(slots=True)
class _RequestData:
    request: _Request
    parent_request: _Request | None
    device_class: DeviceClass | None = None
    num_devices: int = 0
    selected_sub_request_index: int = 0
    all_devices: list[_Candidate] = field(default_factory=list)

    def request_name(self) -> str:
        if self.parent_request is not None:
            return f"{self.parent_request.name}/{self.request.name}"
        return self.request.name


@dataclass(slots=True)
class _DeviceResult:
    request: _Request
    parent_request_name: str
    candidate: _Candidate
    share_id: str | None = None
    consumed_capacity: ConsumedCapacity | None = None

    def request_name(self) -> str:
        if not self.parent_request_name:
            return self.request.name
        return f"{self.parent_request_name}/{self.request.name}"


_RequestKey = tuple[int, int, int]
"""(claim index, request index, subrequest index)."""


class Allocator:
    """Allocates claims on a node from the cluster's slices; reusable for many nodes."""

    def __init__(
        self,
        features: Features,
        allocated_state: AllocatedState,
        device_classes: DeviceClassLister,
        slices: Sequence[ResourceSlice],
        new_share_id: Callable[[], str] = lambda: str(uuid.uuid4()),
    ) -> None:
        self.features = features
        self.allocated_state = allocated_state
        self.device_classes = device_classes
        self.all_slices = list(slices)
        self.slices_on_node: dict[str, list[ResourceSlice]] = {}
        self.slices_shared: list[ResourceSlice] = []
        for resource_slice in slices:
            node_name = resource_slice.spec.node_name or ""
            if not node_name or resource_slice.spec.shared_counters:
                self.slices_shared.append(resource_slice)
            else:
                self.slices_on_node.setdefault(node_name, []).append(resource_slice)
        self.new_share_id = new_share_id
        self.num_allocate_one_invocations = 0
        # Counters left in each pool by the claims allocated before (never changes).
        self._available_counters: dict[str, dict[str, dict[str, Quantity]]] = {}
        self._compiled: dict[str, cel.CompilationResult] = {}

    def allocate(self, node: Any, claims: Sequence[ResourceClaim]) -> list[AllocationResult] | None:
        """One allocation result per claim, in order; None when they do not fit the node."""
        return _Allocation(self, node, list(claims)).run()

    def compiled(self, expression: str) -> cel.CompilationResult:
        """The expression through the scheduler's compile cache, once per allocator: every
        node of the pod's cycle asks for the same few selectors, device after device."""
        result = self._compiled.get(expression)
        if result is None:
            result = self._compiled[expression] = cel.compile_cel_expression(expression)
        return result


class _Allocation:
    """One ``allocate`` call: the search state (upstream's unexported ``allocator``)."""

    def __init__(self, allocator: Allocator, node: Any, claims: list[ResourceClaim]) -> None:
        self.a = allocator
        self.features = allocator.features
        self.node = node
        self.claims = claims
        self.pools: list[Pool] = []
        self.request_data: dict[_RequestKey, _RequestData] = {}
        self.constraints: list[list[Constraint]] = []
        self.device_matches_request: dict[tuple[DeviceID, _RequestKey], bool] = {}
        self.consumed_counters: dict[str, dict[str, dict[str, Quantity]]] = {}
        # Which of the pod's claims each device is being allocated for.
        self.allocating_devices: dict[DeviceID, set[int]] = {}
        self.allocating_capacity: dict[DeviceID, ConsumedCapacity] = {}
        self.results: list[list[_DeviceResult]] = [[] for _ in claims]

    # -- the search ----------------------------------------------------------------------------

    def run(self) -> list[AllocationResult] | None:
        slices_for_node = self.a.slices_on_node.get(self.node.name, []) + self.a.slices_shared
        try:
            self.pools = gather_pools(slices_for_node, self.node, self.features, self.a.all_slices)
        except AllocationError as err:
            raise AllocationError(f"gather pool information: {err}") from None
        for claim_index, claim in enumerate(self.claims):
            self._prepare_claim(claim_index, claim)
        try:
            done = self._allocate_one(0, 0, 0, 0, False, (0, 0, 0))
        except _AllocationResultMaxSizeExceeded:
            done = False
        if not done:
            if any(pool.is_invalid for pool in self.pools):
                raise FailedAllocationOnNode("invalid resource pools were encountered")
            return None
        return [self._allocation_result(i, claim) for i, claim in enumerate(self.claims)]

    def _prepare_claim(self, claim_index: int, claim: ResourceClaim) -> None:
        """Checks the claim's requests and constraints; notes what each request needs."""
        min_devices = 0
        for request_index, request in enumerate(claim.spec.requests):
            key = (claim_index, request_index, 0)
            if request.first_available:
                if not self.features.prioritized_list:
                    raise AllocationError(
                        f"claim {claim.key}, request {request.name}: has subrequests, but the"
                        " DRAPrioritizedList feature is disabled"
                    )
                self._check_capacity_requests(claim, request.name, request.first_available)
                fewest = None
                parent = _Request(request.name, request.exactly or ExactDeviceRequest())
                for sub_index, sub_request in enumerate(request.first_available):
                    data = self._validate_request(
                        _Request(sub_request.name, sub_request.exactly, True),
                        parent,
                        (claim_index, request_index, sub_index),
                    )
                    self.request_data[(claim_index, request_index, sub_index)] = data
                    fewest = data.num_devices if fewest is None else min(fewest, data.num_devices)
                min_devices += fewest or 0
            else:
                if request.exactly is None:
                    raise AllocationError(
                        f"claim {claim.key}, request {request.name}: missing device class name"
                        " (unsupported request type?)"
                    )
                self._check_capacity_requests(claim, request.name, [])
                if not self.features.consumable_capacity and request.exactly.capacity_requests:
                    raise AllocationError(
                        f"claim {claim.key}, request {request.name}: has capacity requests, but"
                        " the DRAConsumableCapacity feature is disabled"
                    )
                data = self._validate_request(_Request(request.name, request.exactly), None, key)
                self.request_data[key] = data
                min_devices += data.num_devices
        if min_devices > ALLOCATION_RESULTS_MAX_SIZE:
            raise AllocationError(
                f"claim {claim.key}: number of requested devices {min_devices} exceeds the"
                f" claim limit of {ALLOCATION_RESULTS_MAX_SIZE}"
            )
        constraints: list[Constraint] = []
        for index, constraint in enumerate(claim.spec.constraints):
            if constraint.match_attribute is not None:
                constraints.append(
                    MatchAttributeConstraint(constraint.requests, constraint.match_attribute)
                )
            elif constraint.distinct_attribute is not None:
                constraints.append(
                    DistinctAttributeConstraint(constraint.requests, constraint.distinct_attribute)
                )
            else:
                raise AllocationError(
                    f"claim {claim.key}, constraint #{index}: empty constraint (unsupported"
                    " constraint type?)"
                )
        self.constraints.append(constraints)

    def _check_capacity_requests(
        self, claim: ResourceClaim, request_name: str, sub_requests: Sequence[Any]
    ) -> None:
        if self.features.consumable_capacity:
            return
        for sub_request in sub_requests:
            if sub_request.exactly.capacity_requests:
                raise AllocationError(
                    f"claim {claim.key}, subrequest {sub_request.name}: has capacity requests,"
                    " but the DRAConsumableCapacity feature is disabled"
                )

    def _validate_request(
        self, request: _Request, parent: _Request | None, key: _RequestKey
    ) -> _RequestData:
        claim = self.claims[key[0]]
        data = _RequestData(request, parent)
        prefix = f"claim {claim.key}, request {request.name}"
        for index, selector in enumerate(request.exactly.selectors):
            if selector.cel_expression is None:
                raise AllocationError(
                    f"{prefix}, selector #{index}: CEL expression empty (unsupported selector"
                    " type?)"
                )
        if not self.features.admin_access and request.has_admin_access:
            raise AllocationError(
                f"{prefix}: admin access is requested, but the feature is disabled"
            )
        class_name = request.exactly.device_class_name
        if not class_name:
            raise AllocationError(
                f"{prefix}: missing device class name (unsupported request type?)"
            )
        device_class = self.a.device_classes(class_name)
        if device_class is None:
            raise AllocationError(
                f"{prefix}: could not retrieve device class {class_name}:"
                f' deviceclass.resource.k8s.io "{class_name}" not found'
            )
        data.device_class = device_class
        mode = request.exactly.allocation_mode
        if mode == DEVICE_ALLOCATION_MODE_EXACT_COUNT:
            data.num_devices = request.exactly.count
        elif mode == DEVICE_ALLOCATION_MODE_ALL:
            data.all_devices = self._all_devices(prefix, key, data)
            data.num_devices = len(data.all_devices)
        else:
            raise AllocationError(f"{prefix}: unsupported count mode {mode}")
        return data

    def _all_devices(self, prefix: str, key: _RequestKey, data: _RequestData) -> list[_Candidate]:
        """Every device the request may get; incomplete or invalid pools make "all" unknown."""
        devices: list[_Candidate] = []
        for pool in self.pools:
            if pool.is_incomplete:
                raise AllocationError(
                    f"{prefix}: asks for all devices, but resource pool {pool.pool_id} is"
                    " currently being updated"
                )
            if pool.is_invalid:
                raise AllocationError(
                    f"{prefix}: asks for all devices, but resource pool {pool.pool_id} is"
                    " currently invalid"
                )
            for resource_slice in pool.device_slices_targeting_node:
                for device in resource_slice.spec.devices:
                    if not self._is_selectable(key, data, resource_slice, device):
                        continue
                    candidate = _Candidate(
                        _device_id(resource_slice, device), device, resource_slice, pool
                    )
                    if self.features.consumable_capacity and not self._capacity_fits(
                        data.request, candidate
                    ):
                        continue
                    devices.append(candidate)
        return devices

    def _allocate_one(
        self,
        claim_index: int,
        request_index: int,
        sub_request_index: int,
        device_index: int,
        allocate_sub_request: bool,
        start: tuple[int, int, int],
    ) -> bool:
        """Allocates the next device and everything after it; True once all are allocated."""
        self.a.num_allocate_one_invocations += 1
        if claim_index >= len(self.claims):
            return True
        claim = self.claims[claim_index]
        if request_index >= len(claim.spec.requests):
            try:
                return self._allocate_one(claim_index + 1, 0, 0, 0, False, (0, 0, 0))
            except _AllocationResultMaxSizeExceeded:
                # A later claim may fit with other subrequests chosen for earlier ones.
                return False
        key = (claim_index, request_index, sub_request_index)
        data = self.request_data[key]
        if not allocate_sub_request and data.parent_request is not None:
            return self._allocate_sub_requests(claim_index, request_index, data)

        request = data.request
        all_devices = request.exactly.allocation_mode == DEVICE_ALLOCATION_MODE_ALL
        if all_devices and not data.all_devices:
            return False
        if device_index >= data.num_devices:
            return self._allocate_one(claim_index, request_index + 1, 0, 0, False, (0, 0, 0))
        if len(self.results[claim_index]) + data.num_devices - device_index > (
            ALLOCATION_RESULTS_MAX_SIZE
        ):
            raise _AllocationResultMaxSizeExceeded
        next_device = (claim_index, request_index, sub_request_index, device_index + 1)
        if all_devices:
            # The devices are known; the order they are taken in does not matter.
            undo = self._allocate_device(key, data.all_devices[device_index], must=True)
            if undo is None:
                return False
            try:
                done = self._allocate_one(*next_device, allocate_sub_request, (0, 0, 0))
            except _AllocationResultMaxSizeExceeded:
                undo()
                raise
            if not done:
                undo()
            return done
        for location, candidate in self._candidates(start):
            if request.admin_access and self._allocating_for_claim(candidate.id, claim_index):
                continue
            if not request.admin_access and self._device_in_use(candidate.id):
                continue
            if not self._is_selectable(key, data, candidate.slice, candidate.device):
                continue
            if self.features.consumable_capacity and not self._capacity_fits(request, candidate):
                continue
            undo = self._allocate_device(key, candidate, must=False)
            if undo is None:
                continue
            pool_index, slice_index, index = location
            try:
                if self._allocate_one(
                    *next_device, allocate_sub_request, (pool_index, slice_index, index + 1)
                ):
                    return True
            except _AllocationResultMaxSizeExceeded:
                undo()
                raise
            undo()
        return False

    def _allocate_sub_requests(
        self, claim_index: int, request_index: int, data: _RequestData
    ) -> bool:
        """The first subrequest that works; max-size failures of every one are passed on."""
        all_exceeded = True
        sub_index = 0
        while (claim_index, request_index, sub_index) in self.request_data:
            try:
                done = self._allocate_one(claim_index, request_index, sub_index, 0, True, (0, 0, 0))
            except _AllocationResultMaxSizeExceeded:
                sub_index += 1
                continue
            all_exceeded = False
            if done:
                data.selected_sub_request_index = sub_index
                return True
            sub_index += 1
        if all_exceeded:
            raise _AllocationResultMaxSizeExceeded
        return False

    def _candidates(
        self, start: tuple[int, int, int]
    ) -> Iterator[tuple[tuple[int, int, int], _Candidate]]:
        """Devices from ``start`` on, in pool, slice, device order, with their location."""
        start_pool, start_slice, start_device = start
        for pool_index in range(start_pool, len(self.pools)):
            pool = self.pools[pool_index]
            if pool.is_incomplete or pool.is_invalid:
                continue
            slices = pool.device_slices_targeting_node
            first_slice = start_slice if pool_index == start_pool else 0
            for slice_index in range(first_slice, len(slices)):
                resource_slice = slices[slice_index]
                devices = resource_slice.spec.devices
                first_device = (
                    start_device if (pool_index, slice_index) == (start_pool, start_slice) else 0
                )
                for device_index in range(first_device, len(devices)):
                    device = devices[device_index]
                    device_id = DeviceID(pool.pool_id.driver, pool.pool_id.pool, device.name)
                    yield (
                        (pool_index, slice_index, device_index),
                        _Candidate(device_id, device, resource_slice, pool),
                    )

    # -- one device ----------------------------------------------------------------------------

    def _is_selectable(
        self, key: _RequestKey, data: _RequestData, resource_slice: ResourceSlice, device: Device
    ) -> bool:
        """Class and request selectors, and per-device node selection (cached per pair)."""
        if not self.features.device_binding_and_status and device.binding_conditions:
            return False
        device_id = _device_id(resource_slice, device)
        cached = self.device_matches_request.get((device_id, key))
        if cached is not None:
            return cached
        matches = (
            data.device_class is None
            or self._selectors_match(key, device, device_id, data.device_class, None)
        ) and self._selectors_match(key, device, device_id, None, data.request.exactly.selectors)
        if matches and resource_slice.spec.per_device_node_selection:
            matches = node_matches(
                self.node, device.node_name or "", bool(device.all_nodes), device.node_selector
            )
        self.device_matches_request[(device_id, key)] = matches
        return matches

    def _selectors_match(
        self,
        key: _RequestKey,
        device: Device,
        device_id: DeviceID,
        device_class: DeviceClass | None,
        selectors: Sequence[DeviceSelector] | None,
    ) -> bool:
        if device_class is not None:
            selectors = device_class.spec.selectors
            owner = f"class {device_class.name}"
        else:
            owner = f"claim {self.claims[key[0]].key}"
        for index, selector in enumerate(selectors or ()):
            expression = self.a.compiled(selector.cel_expression or "")
            if expression.error is not None:
                raise AllocationError(
                    f"{owner}: selector #{index}: CEL compile error: {expression.error}"
                )
            matches, error = verdicts.device_matches(expression, device, device_id.driver)
            if error is not None:
                raise AllocationError(f"{owner}: selector #{index}: CEL runtime error: {error}")
            if not matches:
                return False
        return True

    def _capacity_fits(self, request: _Request, candidate: _Candidate) -> bool:
        consumed = self.a.allocated_state.aggregated_capacity.get(candidate.id, {})
        try:
            return request_fits_capacity(
                consumed,
                request.exactly.capacity_requests,
                candidate.device.capacity,
                self.allocating_capacity.get(candidate.id, {}),
            )
        except CapacityError:
            return False

    def _allocate_device(
        self, key: _RequestKey, candidate: _Candidate, must: bool
    ) -> Callable[[], None] | None:
        """Takes the device for the request if it may; the undo function, or None."""
        claim_index = key[0]
        data = self.request_data[key]
        request = data.request
        device, device_id = candidate.device, candidate.id
        multiple = self.features.consumable_capacity and bool(device.allow_multiple_allocations)
        if (
            not multiple
            and request.admin_access
            and self._allocating_for_claim(device_id, claim_index)
        ):
            return None
        if not request.admin_access and self._device_in_use(device_id):
            return None
        if not self.features.partitionable_devices and device.consumes_counters:
            return None
        # As upstream, counters taken here stay taken when a taint or a constraint refuses the
        # device below (until this allocate call ends).
        skip_counters = multiple and self._device_capacity_in_use(device_id)
        if not skip_counters and device.consumes_counters and not self._take_counters(candidate):
            return None
        if data.parent_request is None:
            base_name, sub_name, parent_name = request.name, "", ""
        else:
            base_name = parent_name = data.parent_request.name
            sub_name = request.name
        if self.features.device_taints and _taint_prevents_allocation(device, request):
            return None
        constraints = self.constraints[claim_index]
        for index, constraint in enumerate(constraints):
            if constraint.add(base_name, sub_name, device, device_id):
                continue
            if must:
                raise AllocationError(
                    f"claim {self.claims[claim_index].key}, request {request.name}: cannot add"
                    f" device {device_id} because a claim constraint would not be satisfied"
                )
            for earlier in constraints[:index]:
                earlier.remove(base_name, sub_name, device, device_id)
            return None

        self.allocating_devices.setdefault(device_id, set())
        if not multiple:
            self.allocating_devices[device_id].add(claim_index)
        result = _DeviceResult(request, parent_name, candidate)
        if self.features.consumable_capacity:
            if not self._capacity_fits(request, candidate):
                return None
            if multiple:
                result.consumed_capacity = get_consumed_capacity_from_request(
                    request.exactly.capacity_requests, device.capacity
                )
                result.share_id = self.a.new_share_id()
                insert_consumed_capacity(
                    self.allocating_capacity, device_id, result.consumed_capacity
                )
        results = self.results[claim_index]
        results.append(result)
        count_before = len(results) - 1

        def undo() -> None:
            for constraint in constraints:
                constraint.remove(base_name, sub_name, device, device_id)
            self.allocating_devices[device_id].discard(claim_index)
            if multiple:
                if result.consumed_capacity:
                    remove_consumed_capacity(
                        self.allocating_capacity, device_id, result.consumed_capacity
                    )
            elif self.features.partitionable_devices and device.consumes_counters:
                self._release_counters(candidate)
            del results[count_before:]

        return undo

    def _device_in_use(self, device_id: DeviceID) -> bool:
        return device_id in self.a.allocated_state.allocated_devices or bool(
            self.allocating_devices.get(device_id)
        )

    def _device_capacity_in_use(self, device_id: DeviceID) -> bool:
        return (
            device_id in self.a.allocated_state.aggregated_capacity
            or device_id in self.allocating_capacity
        )

    def _allocating_for_claim(self, device_id: DeviceID, claim_index: int) -> bool:
        return claim_index in self.allocating_devices.get(device_id, ())

    # -- shared counters (partitionable devices) -----------------------------------------------

    def _take_counters(self, candidate: _Candidate) -> bool:
        """Consumes the device's counters if every counter set still has enough."""
        pool_name = candidate.pool.pool_id.pool
        available = self._available_counters(candidate.pool)
        consumed = self.consumed_counters.setdefault(pool_name, {})
        for consumption in candidate.device.consumes_counters:
            counters = consumed.setdefault(consumption.counter_set, {})
            for name, value in consumption.counters.items():
                counters[name] = counters.get(name, Quantity()) + value
        for set_name, counters in available.items():
            used = consumed.get(set_name, {})
            for name, value in counters.items():
                if value.cmp(used.get(name, Quantity())) < 0:
                    self._release_counters(candidate)
                    return False
        return True

    def _release_counters(self, candidate: _Candidate) -> None:
        consumed = self.consumed_counters.get(candidate.pool.pool_id.pool, {})
        for consumption in candidate.device.consumes_counters:
            counters = consumed.setdefault(consumption.counter_set, {})
            for name, value in consumption.counters.items():
                counters[name] = counters.get(name, Quantity()) - value

    def _available_counters(self, pool: Pool) -> dict[str, dict[str, Quantity]]:
        """The pool's counters less what allocated devices consume (computed once per pool)."""
        cache = self.a._available_counters
        pool_name = pool.pool_id.pool
        if pool_name in cache:
            return cache[pool_name]
        available = {
            name: dict(counter_set.counters) for name, counter_set in pool.counter_sets.items()
        }
        for resource_slice in (
            pool.device_slices_targeting_node + pool.device_slices_not_targeting_node
        ):
            for device in resource_slice.spec.devices:
                if not self.a.allocated_state.is_device_allocated(
                    _device_id(resource_slice, device)
                ):
                    continue
                for consumption in device.consumes_counters:
                    counters = available.get(consumption.counter_set, {})
                    for name, value in consumption.counters.items():
                        if name in counters:
                            counters[name] = counters[name] - value
        cache[pool_name] = available
        return available

    # -- the result ----------------------------------------------------------------------------

    def _allocation_result(self, claim_index: int, claim: ResourceClaim) -> AllocationResult:
        results = self.results[claim_index]
        return AllocationResult(
            results=[self._device_result(r) for r in results],
            config=self._configs(claim_index, claim),
            **_node_selector_fields(self._node_selector(claim, results)),
        )

    def _device_result(self, result: _DeviceResult) -> DeviceRequestAllocationResult:
        candidate = result.candidate
        device = candidate.device
        binding = self.features.device_binding_and_status
        return DeviceRequestAllocationResult(
            request=result.request_name(),
            driver=candidate.id.driver,
            pool=candidate.id.pool,
            device=candidate.id.device,
            admin_access=True if result.request.admin_access else None,
            tolerations=list(result.request.exactly.tolerations),
            binding_conditions=list(device.binding_conditions) if binding else [],
            binding_failure_conditions=list(device.binding_failure_conditions) if binding else [],
            share_id=result.share_id,
            consumed_capacity=dict(result.consumed_capacity or {}),
        )

    def _configs(
        self, claim_index: int, claim: ResourceClaim
    ) -> list[DeviceAllocationConfiguration]:
        """The classes' configurations once each, then the claim's for the chosen requests."""
        configs: list[DeviceAllocationConfiguration] = []
        class_ranges: dict[str, tuple[int, int]] = {}
        chosen: list[_RequestData] = []
        for request_index in range(len(claim.spec.requests)):
            data = self.request_data[(claim_index, request_index, 0)]
            if data.parent_request is not None:
                data = self.request_data[
                    (claim_index, request_index, data.selected_sub_request_index)
                ]
            chosen.append(data)
            device_class = data.device_class
            if device_class is None:
                continue
            if device_class.name in class_ranges:
                start, end = class_ranges[device_class.name]
                for config in configs[start:end]:
                    config.requests.append(data.request_name())
                continue
            start = len(configs)
            for class_config in _class_configs(device_class):
                configs.append(
                    DeviceAllocationConfiguration(
                        ALLOCATION_CONFIG_SOURCE_CLASS, [data.request_name()], class_config
                    )
                )
            class_ranges[device_class.name] = (start, len(configs))
        for config in claim.spec.config:
            if not config.requests:
                configs.append(
                    DeviceAllocationConfiguration(ALLOCATION_CONFIG_SOURCE_CLAIM, [], config.opaque)
                )
                continue
            for request, data in zip(claim.spec.requests, chosen, strict=True):
                named = request.name in config.requests or (
                    data.parent_request is not None and data.request_name() in config.requests
                )
                if named:
                    configs.append(
                        DeviceAllocationConfiguration(
                            ALLOCATION_CONFIG_SOURCE_CLAIM, list(config.requests), config.opaque
                        )
                    )
        return configs

    def _node_selector(
        self, claim: ResourceClaim, results: list[_DeviceResult]
    ) -> dict[str, Any] | None:
        """Where the claim's devices are reachable: this node, some labels, or everywhere."""
        match_fields: list[dict[str, Any]] = []
        match_expressions: list[dict[str, Any]] = []
        for result in results:
            spec = result.candidate.slice.spec
            device = result.candidate.device
            if spec.per_device_node_selection:
                node_name, node_selector = device.node_name, device.node_selector
            else:
                node_name, node_selector = spec.node_name, spec.node_selector
            if node_name is not None or device.binds_to_node:
                return _local_node_selector(self.node.name)
            if node_selector is None or not node_selector.node_selector_terms:
                continue
            if len(node_selector.node_selector_terms) > 1:
                raise AllocationError(
                    f"create NodeSelector for claim {claim.name}: unsupported"
                    f" ResourceSlice.NodeSelector with {len(node_selector.node_selector_terms)}"
                    " terms"
                )
            term = node_selector.node_selector_terms[0]
            _add_requirements(term.match_fields, match_fields)
            _add_requirements(term.match_expressions, match_expressions)
        if not match_fields and not match_expressions:
            return None
        term_dict: dict[str, Any] = {}
        if match_expressions:
            term_dict["matchExpressions"] = match_expressions
        if match_fields:
            term_dict["matchFields"] = match_fields
        return {"nodeSelectorTerms": [term_dict]}


def _device_id(resource_slice: ResourceSlice, device: Device) -> DeviceID:
    return DeviceID(resource_slice.spec.driver, resource_slice.spec.pool.name, device.name)


def _taint_prevents_allocation(device: Device, request: _Request) -> bool:
    """A NoSchedule or NoExecute taint no toleration of the request tolerates."""
    for taint in device.taints:
        if taint.effect not in (DEVICE_TAINT_EFFECT_NO_SCHEDULE, DEVICE_TAINT_EFFECT_NO_EXECUTE):
            continue
        if not any(t.tolerates(taint) for t in request.exactly.tolerations):
            return True
    return False


def _class_configs(device_class: DeviceClass) -> list[dict[str, Any] | None]:
    """The class's ``spec.config[].opaque`` entries (read from the manifest)."""
    spec = device_class.manifest.get("spec") or {}
    return [
        dict(entry["opaque"]) if isinstance(entry, Mapping) and entry.get("opaque") else None
        for entry in spec.get("config") or []
    ]


def _local_node_selector(node_name: str) -> dict[str, Any]:
    return {
        "nodeSelectorTerms": [
            {"matchFields": [{"key": "metadata.name", "operator": "In", "values": [node_name]}]}
        ]
    }


def _add_requirements(requirements: Sequence[Any], into: list[dict[str, Any]]) -> None:
    """Appends the requirements not present yet (same key, operator and set of values)."""
    for requirement in requirements:
        values = set(requirement.values)
        if any(
            r["key"] == requirement.key
            and r["operator"] == requirement.operator
            and set(r.get("values", [])) == values
            for r in into
        ):
            continue
        entry: dict[str, Any] = {"key": requirement.key, "operator": requirement.operator}
        if requirement.values:
            entry["values"] = list(requirement.values)
        into.append(entry)


def _node_selector_fields(selector: dict[str, Any] | None) -> dict[str, Any]:
    """The selector both as written and parsed. Built here directly, as the dict is ours and
    well formed: reading it as a manifest cost as much as the rest of a Filter call."""
    if selector is None:
        return {}
    parsed = NodeSelector(
        [
            NodeSelectorTerm(
                match_expressions=_requirements(term.get("matchExpressions", ())),
                match_fields=_requirements(term.get("matchFields", ())),
            )
            for term in selector["nodeSelectorTerms"]
        ]
    )
    return {"node_selector": parsed, "node_selector_dict": selector}


def _requirements(entries: Sequence[dict[str, Any]]) -> list[NodeSelectorRequirement]:
    return [
        NodeSelectorRequirement(entry["key"], entry["operator"], tuple(entry.get("values", ())))
        for entry in entries
    ]
