"""One case of upstream's allocatortesting table, and how it is run (``RunTestAllocator``).

Shared by the test modules that port the table, so every case runs the same way: a fresh
allocator over the case's allocated state, classes and slices; results normalized to the set
comparison upstream makes; share IDs fixed to ``SHARE_ID``.
"""

from __future__ import annotations

import copy
from dataclasses import dataclass, field
from typing import Any

import pytest

from framework.api.device_class import DeviceClass
from framework.api.node import Node
from framework.api.node_affinity import NodeSelector
from framework.api.quantity import Quantity
from framework.api.resource_claim import ResourceClaim
from framework.api.resource_slice import ResourceSlice
from framework.plugins.dynamicresources.structured.allocator import Allocator
from framework.plugins.dynamicresources.structured.pools import AllocationError
from framework.plugins.dynamicresources.structured.types import (
    AllocatedState,
    DeviceID,
    Features,
    SharedDeviceID,
)
from tests.framework.plugins.dynamicresources.allocator_builders import (
    NODE1,
    REGION1,
    SHARE_ID,
    node,
    normalized,
)


@dataclass
class Case:
    """upstream ``AllocatorTestCase``; ``allocated_capacity`` quantities are strings."""

    claims: list[ResourceClaim] = field(default_factory=list)
    classes: list[DeviceClass] = field(default_factory=list)
    slices: list[ResourceSlice] = field(default_factory=list)
    node: Node | None = None
    allocated_devices: list[DeviceID] = field(default_factory=list)
    allocated_shared_device_ids: list[SharedDeviceID] = field(default_factory=list)
    allocated_capacity: dict[DeviceID, dict[str, str]] = field(default_factory=dict)
    features: Features = field(default_factory=Features)
    expect_results: list[dict[str, Any]] | None = None
    expect_error: str = ""
    expect_num_allocate_one_invocations: int = 0


def new_allocator(case: Case) -> Allocator:
    classes = {c.name: c for c in case.classes}
    state = AllocatedState(
        allocated_devices=set(case.allocated_devices),
        allocated_shared_device_ids=set(case.allocated_shared_device_ids),
        aggregated_capacity={
            device_id: {name: Quantity.parse(value) for name, value in consumed.items()}
            for device_id, consumed in case.allocated_capacity.items()
        },
    )
    return Allocator(case.features, state, classes.get, case.slices, new_share_id=lambda: SHARE_ID)


def run(case: Case) -> list[dict[str, Any]] | None:
    return run_with(case, new_allocator(case))


def run_with(case: Case, allocator: Allocator) -> list[dict[str, Any]] | None:
    results = allocator.allocate(case.node or node(NODE1, REGION1), case.claims)
    if results is None:
        return None
    for result in results:
        # The parsed selector (what Filter matches nodes with) says what the written one says.
        if result.node_selector_dict is not None:
            assert result.node_selector == NodeSelector.from_dict(result.node_selector_dict)
        else:
            assert result.node_selector is None
    return [normalized(result.to_dict()) for result in results]


def check(case: Case) -> None:
    """Runs the case and compares error, results and search steps as upstream's runner."""
    inputs = _inputs(case)
    if case.expect_error:
        with pytest.raises(AllocationError) as raised:
            run(case)
        assert case.expect_error in str(raised.value)
        assert _inputs(case) == inputs
        return
    allocator = new_allocator(case)
    got = run_with(case, allocator)
    # The allocator only reads what it was given.
    assert _inputs(case) == inputs
    if not case.expect_results:
        # Upstream expects no results: nil, or (no claims) an empty list.
        assert not got
    else:
        assert got == case.expect_results
    if case.expect_num_allocate_one_invocations:
        # The search tries combinations, not permutations, of a request's devices.
        assert allocator.num_allocate_one_invocations == case.expect_num_allocate_one_invocations


def _inputs(case: Case) -> list[Any]:
    """A deep copy of everything the allocator is given, to compare after the run."""
    return copy.deepcopy(
        [
            [(claim.spec, claim.status) for claim in case.claims],
            [resource_slice.spec for resource_slice in case.slices],
            [device_class.spec for device_class in case.classes],
            case.allocated_devices,
            case.allocated_shared_device_ids,
            case.allocated_capacity,
        ]
    )
