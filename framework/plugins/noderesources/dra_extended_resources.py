"""Scoring extended resources backed by DRA: how many devices a node has for a DeviceClass.

With DRAExtendedResource on, a scored extended resource (one of a scoring strategy's
``resources``) that the node's allocatable lacks but a DeviceClass maps is counted from the
ResourceSlices instead: allocatable is the number of the node's devices the class selects,
allocated the number of those some claim holds (upstream ``resource_allocation.go``).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from framework.api.resource_slice import Device, ResourceSlice
from framework.api.resources import is_dra_extended_resource_name
from framework.config.types import ResourceSpec
from framework.plugins.dynamicresources.cel.compile import Device as CELDevice
from framework.plugins.dynamicresources.cel.compile import compile_cel_expression
from framework.plugins.dynamicresources.extended_resources import DeviceClassResolver
from framework.plugins.dynamicresources.in_flight import (
    InFlightAllocations,
    gather_allocated_state,
)
from framework.plugins.dynamicresources.structured.pools import AllocationError, node_matches
from framework.plugins.dynamicresources.structured.types import AllocatedState, DeviceID
from framework.storage import lookup


class DRAPreScoreState:
    """What PreScore gathers once when some scored resource is backed by DRA."""

    __slots__ = ("allocated_state", "resolver", "slices")

    def __init__(
        self,
        resolver: DeviceClassResolver,
        allocated_state: AllocatedState,
        slices: list[ResourceSlice],
    ) -> None:
        self.resolver = resolver
        self.allocated_state = allocated_state
        self.slices = slices


def dra_pre_score_state(
    cluster: Any, resources: Sequence[ResourceSpec], consumable_capacity: bool
) -> DRAPreScoreState | None:
    """The state for scoring, or None when no scored resource maps to a DeviceClass
    (``getDRAPreScoredParams``)."""
    if cluster is None:
        return None
    names = [spec.name for spec in resources if is_dra_extended_resource_name(spec.name)]
    if not names:
        return None
    resolver = DeviceClassResolver.of_cluster(cluster)
    if all(resolver.get_device_class(name) is None for name in names):
        return None
    # Allocations in flight (Reserve to PreBind) are the DynamicResources plugin's own.
    allocated_state = gather_allocated_state(
        lookup.list_objects(cluster, "ResourceClaim"), InFlightAllocations(), consumable_capacity
    )
    return DRAPreScoreState(
        resolver, allocated_state, lookup.list_objects(cluster, "ResourceSlice")
    )


def dra_allocatable_and_allocated(
    state: DRAPreScoreState, node: Any, resource: str
) -> tuple[int, int]:
    """The node's devices of the class mapping ``resource`` and how many are allocated; (0, 0)
    when no class maps it or a selector or node selector fails (upstream logs those)."""
    device_class = state.resolver.get_device_class(resource)
    if device_class is None:
        return 0, 0
    try:
        return _device_totals(state, node, device_class)
    except (AllocationError, _SelectorError):
        return 0, 0


def _device_totals(state: DRAPreScoreState, node: Any, device_class: Any) -> tuple[int, int]:
    capacity = allocated = 0
    for resource_slice in state.slices:
        spec = resource_slice.spec
        for device in _devices_on_node(resource_slice, node):
            if not _matches_class(device, device_class, spec.driver):
                continue
            capacity += 1
            device_id = DeviceID(spec.driver, spec.pool.name, device.name)
            if state.allocated_state.is_device_allocated(device_id):
                allocated += 1
    return capacity, allocated


def _devices_on_node(resource_slice: ResourceSlice, node: Any) -> list[Device]:
    """The slice's devices the node can reach, as upstream's scorer selects them.

    A slice naming no node, not for all nodes and without a node selector counts as the
    node's (upstream's shortcut; such a slice only exists with per-device selection).
    """
    spec = resource_slice.spec
    node_name = node.name
    if spec.per_device_node_selection:
        return [device for device in spec.devices if _device_on_node(device, node)]
    slice_node_name = spec.node_name or ""
    all_nodes = bool(spec.all_nodes)
    if not all_nodes and slice_node_name != node_name and spec.node_selector is not None:
        if not node_matches(node, slice_node_name, all_nodes, spec.node_selector):
            return []
    elif not all_nodes and slice_node_name and slice_node_name != node_name:
        return []
    return spec.devices


def _device_on_node(device: Device, node: Any) -> bool:
    if device.all_nodes or (device.node_name and device.node_name == node.name):
        return True
    return device.node_selector is not None and node_matches(
        node, device.node_name or "", bool(device.all_nodes), device.node_selector
    )


class _SelectorError(Exception):
    """A class selector does not compile or fails on a device."""


def _matches_class(device: Device, device_class: Any, driver: str) -> bool:
    """Every CEL selector of the class accepts the device."""
    for selector in device_class.spec.selectors:
        if selector.cel_expression is None:
            continue
        compiled = compile_cel_expression(selector.cel_expression)
        if compiled.error is not None:
            raise _SelectorError(compiled.error)
        matches, error = compiled.device_matches(
            CELDevice(driver, device.attributes, device.capacity)
        )
        if error is not None:
            raise _SelectorError(error)
        if not matches:
            return False
    return True
