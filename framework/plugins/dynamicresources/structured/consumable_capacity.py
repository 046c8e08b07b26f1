"""Consumable capacity (DRAConsumableCapacity): how much of a device one allocation takes.

A request's ``capacity.requests`` names amounts of the device's capacities; an amount left out
takes the policy's default, or the whole capacity. Policies round a request up to the next
valid value or range step, and refuse amounts they do not allow. A device fits while what is
allocated, what this attempt allocates and the new request stay within each capacity.
"""

from __future__ import annotations

from collections.abc import Mapping

from framework.api.quantity import Quantity
from framework.api.resource_slice import (
    CapacityRequestPolicy,
    CapacityRequestPolicyRange,
    DeviceCapacity,
)
from framework.plugins.dynamicresources.structured.types import ConsumedCapacity


class CapacityError(Exception):
    """The request names a capacity the device does not have."""


def request_fits_capacity(
    consumed: ConsumedCapacity,
    requests: Mapping[str, Quantity],
    capacity: Mapping[str, DeviceCapacity],
    allocating: ConsumedCapacity,
) -> bool:
    """Upstream ``CmpRequestOverCapacity``: raises CapacityError for an unknown capacity."""
    if any(name not in capacity for name in requests):
        raise CapacityError("some requested capacity has not been defined")
    for name, device_capacity in capacity.items():
        amount = calculate_consumed_capacity(requests.get(name), device_capacity)
        if violates_policy(amount, device_capacity.request_policy):
            return False
        total = consumed.get(name, Quantity()) + amount + allocating.get(name, Quantity())
        if total.cmp(device_capacity.value) > 0:
            return False
    return True


def get_consumed_capacity_from_request(
    requests: Mapping[str, Quantity], capacity: Mapping[str, DeviceCapacity]
) -> ConsumedCapacity:
    """What an allocation of the device for the request consumes, capacity by capacity."""
    return {
        name: calculate_consumed_capacity(requests.get(name), cap) for name, cap in capacity.items()
    }


def calculate_consumed_capacity(requested: Quantity | None, capacity: DeviceCapacity) -> Quantity:
    """What one allocation takes of a capacity: the request rounded up to what the policy
    allows, else the policy's default, else all of it."""
    policy = capacity.request_policy
    if requested is None:
        if policy is not None and policy.default is not None:
            return policy.default
        return capacity.value
    if policy is None:
        return requested
    if policy.valid_range is not None and policy.valid_range.min is not None:
        return _round_up_range(requested, policy.valid_range)
    if policy.valid_values:
        return next((v for v in policy.valid_values if requested.cmp(v) <= 0), requested)
    return requested


def _round_up_range(requested: Quantity, valid_range: CapacityRequestPolicyRange) -> Quantity:
    minimum = valid_range.min
    assert minimum is not None
    if requested.cmp(minimum) < 0:
        return minimum
    if valid_range.step is None:
        return requested
    step = valid_range.step.value()
    steps = -(-(requested.value() - minimum.value()) // step)
    return Quantity.from_value(minimum.value() + step * steps, Quantity.BINARY_SI)


def violates_policy(amount: Quantity, policy: CapacityRequestPolicy | None) -> bool:
    """True when the policy does not allow the amount (its default is always allowed)."""
    if policy is None:
        return False
    if policy.default is not None and amount == policy.default:
        return False
    if policy.valid_range is not None:
        valid_range = policy.valid_range
        if valid_range.max is not None and amount.cmp(valid_range.max) > 0:
            return True
        if valid_range.step is not None:
            minimum = valid_range.min.value() if valid_range.min is not None else 0
            return (amount.value() - minimum) % valid_range.step.value() != 0
        return False
    if policy.valid_values:
        return not any(amount.cmp(v) == 0 for v in policy.valid_values)
    return False
