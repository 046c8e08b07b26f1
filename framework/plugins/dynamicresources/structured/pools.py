"""Which resource pools a node can use, gathered from ResourceSlices (upstream ``pools.go``).

A pool is all slices of one driver and pool name at the pool's newest generation. It is
complete when that many slices exist as ``resourceSliceCount`` says; an incomplete pool gives
no devices, an invalid one (duplicate devices or counter sets, counters that do not exist)
none either. Pools are ordered by driver, then pool name, with pools whose devices carry
binding conditions last, so that devices needing no binding wait are preferred.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, NamedTuple

from framework.api.node_affinity import NodeSelector
from framework.api.resource_slice import CounterSet, ResourceSlice
from framework.plugins.dynamicresources.structured.types import Features


class AllocationError(Exception):
    """A problem that stops allocation for the pod on every node (bad input, like CEL errors)."""


class PoolID(NamedTuple):
    driver: str
    pool: str

    def __str__(self) -> str:
        return f"{self.driver}/{self.pool}"


@dataclass(slots=True)
class Pool:
    pool_id: PoolID
    is_incomplete: bool = False
    is_invalid: bool = False
    invalid_reason: str = ""
    device_slices_targeting_node: list[ResourceSlice] = field(default_factory=list)
    device_slices_not_targeting_node: list[ResourceSlice] = field(default_factory=list)
    counter_sets: dict[str, CounterSet] = field(default_factory=dict)


def node_matches(
    node: Any, node_name_to_match: str, all_nodes_match: bool, node_selector: NodeSelector | None
) -> bool:
    """Whether a slice's (or device's) node selection includes the node."""
    if node_name_to_match:
        return node is not None and node.name == node_name_to_match
    if all_nodes_match:
        return True
    if node_selector is not None:
        errors = node_selector.parse_errors()
        if errors:
            raise AllocationError(f"failed to parse node selector: {errors[0]}")
        return node_selector.match(node)
    return False


def gather_pools(
    slices_for_node: Sequence[ResourceSlice],
    node: Any,
    features: Features,
    all_slices: Sequence[ResourceSlice],
) -> list[Pool]:
    """The pools with devices for the node, each usable or marked incomplete or invalid."""
    pools: dict[PoolID, list[ResourceSlice]] = {}
    for resource_slice in slices_for_node:
        spec = resource_slice.spec
        if not features.partitionable_devices and (
            spec.per_device_node_selection is not None or spec.shared_counters
        ):
            continue
        if _slice_is_relevant(resource_slice, node):
            _add_slice(pools, resource_slice)

    result: list[Pool] = []
    with_binding_conditions: list[Pool] = []
    for pool_id, slices in pools.items():
        pool = _pool_of(pool_id, slices, features, all_slices)
        if pool is None:
            continue
        if _has_binding_conditions(pool):
            with_binding_conditions.append(pool)
        else:
            result.append(pool)
    result.sort(key=lambda pool: pool.pool_id)
    with_binding_conditions.sort(key=lambda pool: pool.pool_id)
    return result + with_binding_conditions


def _slice_is_relevant(resource_slice: ResourceSlice, node: Any) -> bool:
    spec = resource_slice.spec
    if spec.shared_counters:
        # Counter sets matter to every node: devices elsewhere may consume them.
        return True
    node_name, all_nodes = spec.node_name or "", bool(spec.all_nodes)
    if node_name or all_nodes or spec.node_selector is not None:
        try:
            return node_matches(node, node_name, all_nodes, spec.node_selector)
        except AllocationError as err:
            raise AllocationError(
                f"failed to perform node selection for slice {resource_slice.name}: {err}"
            ) from None
    if spec.per_device_node_selection:
        return any(
            node_matches(node, d.node_name or "", bool(d.all_nodes), d.node_selector)
            for d in spec.devices
        )
    return False


def _add_slice(pools: dict[PoolID, list[ResourceSlice]], resource_slice: ResourceSlice) -> None:
    """Keeps only the slices of the newest generation seen for the pool."""
    spec = resource_slice.spec
    pool_id = PoolID(spec.driver, spec.pool.name)
    slices = pools.get(pool_id)
    if slices is None or spec.pool.generation > slices[0].spec.pool.generation:
        pools[pool_id] = [resource_slice]
    elif spec.pool.generation == slices[0].spec.pool.generation:
        slices.append(resource_slice)


def _pool_of(
    pool_id: PoolID,
    slices: list[ResourceSlice],
    features: Features,
    all_slices: Sequence[ResourceSlice],
) -> Pool | None:
    """The pool from the node's slices; None when a newer generation makes them obsolete."""
    pool_spec = slices[0].spec.pool
    if len(slices) == pool_spec.resource_slice_count:
        return _build_pool(pool_id, slices, features, None)
    # Slices for other nodes may complete the pool, or show it obsolete.
    all_for_pool: list[ResourceSlice] = []
    for resource_slice in all_slices:
        spec = resource_slice.spec
        if (spec.driver, spec.pool.name) != pool_id:
            continue
        if spec.pool.generation > pool_spec.generation:
            return None
        if spec.pool.generation == pool_spec.generation:
            all_for_pool.append(resource_slice)
    if len(all_for_pool) != pool_spec.resource_slice_count:
        return Pool(pool_id, is_incomplete=True)
    return _build_pool(pool_id, slices, features, all_for_pool)


def _build_pool(
    pool_id: PoolID,
    slices: list[ResourceSlice],
    features: Features,
    all_slices_for_pool: list[ResourceSlice] | None,
) -> Pool:
    slices = sorted(slices, key=lambda s: s.name)
    if not features.partitionable_devices:
        device_slices, counter_set_slices = slices, []
    else:
        device_slices = [s for s in slices if not s.spec.shared_counters]
        counter_set_slices = [s for s in slices if s.spec.shared_counters]
    problem = _duplicate_device_name(device_slices)
    if problem:
        return Pool(pool_id, is_invalid=True, invalid_reason=problem)
    if not features.partitionable_devices:
        return Pool(pool_id, device_slices_targeting_node=device_slices)
    counter_sets, problem = _counter_sets(counter_set_slices)
    problem = problem or _missing_counters(counter_sets, slices)
    if problem:
        return Pool(pool_id, is_invalid=True, invalid_reason=problem)
    if all_slices_for_pool is None or len(slices) == len(all_slices_for_pool):
        return Pool(pool_id, device_slices_targeting_node=device_slices, counter_sets=counter_sets)
    targeting = {s.name for s in slices}
    not_targeting = [s for s in all_slices_for_pool if s.name not in targeting]
    problem = _missing_counters(counter_sets, not_targeting)
    if problem:
        return Pool(pool_id, is_invalid=True, invalid_reason=problem)
    return Pool(
        pool_id,
        device_slices_targeting_node=device_slices,
        device_slices_not_targeting_node=not_targeting,
        counter_sets=counter_sets,
    )


def _duplicate_device_name(slices: list[ResourceSlice]) -> str:
    seen: set[str] = set()
    for resource_slice in slices:
        for device in resource_slice.spec.devices:
            if device.name in seen:
                return f"duplicate device name {device.name}"
            seen.add(device.name)
    return ""


def _counter_sets(slices: list[ResourceSlice]) -> tuple[dict[str, CounterSet], str]:
    counter_sets: dict[str, CounterSet] = {}
    for resource_slice in slices:
        for counter_set in resource_slice.spec.shared_counters:
            if counter_set.name in counter_sets:
                return {}, f"duplicate counter set name {counter_set.name}"
            counter_sets[counter_set.name] = counter_set
    return counter_sets, ""


def _missing_counters(counter_sets: dict[str, CounterSet], slices: list[ResourceSlice]) -> str:
    for resource_slice in slices:
        for device in resource_slice.spec.devices:
            for consumption in device.consumes_counters:
                counter_set = counter_sets.get(consumption.counter_set)
                if counter_set is None:
                    return f"counter set {consumption.counter_set} not found"
                for name in consumption.counters:
                    if name not in counter_set.counters:
                        return f"counter {name} not found in counter set {counter_set.name}"
    return ""


def _has_binding_conditions(pool: Pool) -> bool:
    return any(
        device.binding_conditions
        for resource_slice in pool.device_slices_targeting_node
        for device in resource_slice.spec.devices
    )
