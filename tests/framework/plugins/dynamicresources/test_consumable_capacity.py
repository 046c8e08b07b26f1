"""Consumable capacity's pieces: upstream's incubating consumable_capacity_test.go, case by case.

Amounts are written as strings; ``ONE``, ``TWO`` and ``THREE`` stand for upstream's ``one``,
``two`` and ``three``.
"""

from __future__ import annotations

import pytest

from framework.api.quantity import Quantity
from framework.api.resource_slice import (
    CapacityRequestPolicy,
    CapacityRequestPolicyRange,
    DeviceCapacity,
)
from framework.plugins.dynamicresources.structured.consumable_capacity import (
    calculate_consumed_capacity,
    get_consumed_capacity_from_request,
    violates_policy,
)
from framework.plugins.dynamicresources.structured.types import (
    ConsumedCapacity,
    DeviceID,
    add_capacity,
    capacity_empty,
    insert_consumed_capacity,
    remove_consumed_capacity,
    sub_capacity,
)

CAPACITY0, CAPACITY1 = "capacity-0", "capacity-1"
ONE, TWO, THREE = Quantity.parse("1"), Quantity.parse("2"), Quantity.parse("3")


def range_policy(
    minimum: Quantity, maximum: Quantity | None = None, step: Quantity | None = None
) -> CapacityRequestPolicy:
    """A policy with default ONE and the given range, as most of upstream's cases."""
    return CapacityRequestPolicy(
        default=ONE, valid_range=CapacityRequestPolicyRange(min=minimum, max=maximum, step=step)
    )


def values_policy(*values: Quantity) -> CapacityRequestPolicy:
    return CapacityRequestPolicy(default=ONE, valid_values=values)


def test_add_sub_allocating_consumed_capacity() -> None:
    allocated: ConsumedCapacity = {}
    assert capacity_empty(allocated)
    add_capacity(allocated, {CAPACITY0: ONE})
    assert not capacity_empty(allocated)
    sub_capacity(allocated, {CAPACITY0: ONE})
    assert capacity_empty(allocated)


def test_insert_remove_allocating_consumed_capacity_collection() -> None:
    device_id = DeviceID("driver-a", "pool-1", "device-1")
    aggregated: dict[DeviceID, ConsumedCapacity] = {}
    insert_consumed_capacity(aggregated, device_id, {CAPACITY0: ONE})
    insert_consumed_capacity(aggregated, device_id, {CAPACITY0: ONE})
    assert aggregated[device_id][CAPACITY0].cmp(TWO) == 0
    remove_consumed_capacity(aggregated, device_id, {CAPACITY0: ONE})
    assert aggregated[device_id][CAPACITY0].cmp(ONE) == 0
    # Back at zero, the device leaves the collection (it is no longer in use).
    remove_consumed_capacity(aggregated, device_id, {CAPACITY0: ONE})
    assert device_id not in aggregated


def test_get_consumed_capacity_from_request() -> None:
    requests = {CAPACITY0: ONE, "dummy": ONE}
    capacity = {
        # Requested, with a default: the request.
        CAPACITY0: DeviceCapacity(
            TWO,
            CapacityRequestPolicy(default=TWO, valid_range=CapacityRequestPolicyRange(min=ONE)),
        ),
        # Not requested, with a default: the default.
        CAPACITY1: DeviceCapacity(TWO, range_policy(ONE)),
        # Not requested, no policy: the whole capacity.
        "dummy": DeviceCapacity(ONE),
    }
    consumed = get_consumed_capacity_from_request(requests, capacity)
    assert sorted(consumed) == sorted([CAPACITY0, CAPACITY1, "dummy"])
    assert all(value.cmp(ONE) == 0 for value in consumed.values())


VIOLATES_POLICY_CASES = {
    "no constraint": (ONE, None, False),
    "less than maximum": (ONE, range_policy(ONE, maximum=TWO), False),
    "more than maximum": (TWO, range_policy(ONE, maximum=ONE), True),
    "in set": (ONE, values_policy(ONE), False),
    "not in set": (TWO, values_policy(ONE), True),
}


@pytest.mark.parametrize(
    ("requested", "policy", "expected"),
    VIOLATES_POLICY_CASES.values(),
    ids=VIOLATES_POLICY_CASES.keys(),
)
def test_violate_capacity_sharing(
    requested: Quantity, policy: CapacityRequestPolicy | None, expected: bool
) -> None:
    assert violates_policy(requested, policy) is expected


CALCULATE_CASES = {
    "empty": (None, ONE, CapacityRequestPolicy(), ONE),
    "min in range": (None, TWO, range_policy(ONE), ONE),
    "default in set": (None, TWO, values_policy(ONE), ONE),
    "more than min in range": (TWO, TWO, range_policy(ONE), TWO),
    "less than min in range": (ONE, TWO, range_policy(TWO), TWO),
    "with step (round up)": (TWO, THREE, range_policy(ONE, step=TWO), THREE),
    "with step (no remaining)": (TWO, TWO, range_policy(ONE, step=ONE), TWO),
    "valid value in set": (TWO, THREE, values_policy(ONE, TWO, THREE), TWO),
    "set (round up)": (TWO, THREE, values_policy(ONE, THREE), THREE),
    "larger than set": (THREE, THREE, values_policy(ONE, TWO), THREE),
}


@pytest.mark.parametrize(
    ("requested", "value", "policy", "expected"),
    CALCULATE_CASES.values(),
    ids=CALCULATE_CASES.keys(),
)
def test_calculate_consumed_capacity(
    requested: Quantity | None, value: Quantity, policy: CapacityRequestPolicy, expected: Quantity
) -> None:
    consumed = calculate_consumed_capacity(requested, DeviceCapacity(value, policy))
    assert consumed.cmp(expected) == 0
