"""Identifiers and state the allocator shares with its caller (upstream ``schedulerapi``)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import NamedTuple

from framework.api.quantity import Quantity


class DeviceID(NamedTuple):
    """A device, unique in the cluster: driver, pool and device name."""

    driver: str
    pool: str
    device: str

    def __str__(self) -> str:
        return f"{self.driver}/{self.pool}/{self.device}"


class SharedDeviceID(NamedTuple):
    """One allocation of a device that allows several (``allowMultipleAllocations``)."""

    device_id: DeviceID
    share_id: str | None

    def __str__(self) -> str:
        return str(self.device_id) if self.share_id is None else f"{self.device_id}/{self.share_id}"


ConsumedCapacity = dict[str, Quantity]
"""Capacity name to the amount consumed of it."""


def add_capacity(into: ConsumedCapacity, added: ConsumedCapacity) -> None:
    """Upstream ``ConsumedCapacity.Add``: sums per capacity, new names start at the amount."""
    for name, value in added.items():
        into[name] = into[name] + value if name in into else value


def sub_capacity(into: ConsumedCapacity, subtracted: ConsumedCapacity) -> None:
    """Upstream ``ConsumedCapacity.Sub``: names not in ``into`` are ignored."""
    for name, value in subtracted.items():
        if name in into:
            into[name] = into[name] - value


def capacity_empty(consumed: ConsumedCapacity) -> bool:
    """Upstream ``ConsumedCapacity.Empty``: every amount is zero."""
    return all(value.is_zero() for value in consumed.values())


def insert_consumed_capacity(
    collection: dict[DeviceID, ConsumedCapacity], device_id: DeviceID, consumed: ConsumedCapacity
) -> None:
    """Upstream ``ConsumedCapacityCollection.Insert``: adds what one allocation consumes."""
    add_capacity(collection.setdefault(device_id, {}), consumed)


def remove_consumed_capacity(
    collection: dict[DeviceID, ConsumedCapacity], device_id: DeviceID, consumed: ConsumedCapacity
) -> None:
    """Upstream ``ConsumedCapacityCollection.Remove``: a device back at zero leaves."""
    totals = collection.get(device_id)
    if totals is None:
        return
    sub_capacity(totals, consumed)
    if capacity_empty(totals):
        del collection[device_id]


@dataclass(slots=True)
class AllocatedState:
    """What claims already allocated hold: whole devices, shares, consumed capacity."""

    allocated_devices: set[DeviceID] = field(default_factory=set)
    allocated_shared_device_ids: set[SharedDeviceID] = field(default_factory=set)
    aggregated_capacity: dict[DeviceID, ConsumedCapacity] = field(default_factory=dict)

    def is_device_allocated(self, device_id: DeviceID) -> bool:
        """Allocated whole, as a share, or with capacity taken (upstream ``IsDeviceAllocated``)."""
        return (
            device_id in self.allocated_devices
            or any(shared.device_id == device_id for shared in self.allocated_shared_device_ids)
            or device_id in self.aggregated_capacity
        )


@dataclass(frozen=True, slots=True)
class Features:
    """The allocator's switches, one per control-flow change (upstream ``Features``)."""

    admin_access: bool = False
    consumable_capacity: bool = False
    device_binding_and_status: bool = False
    device_taints: bool = False
    list_type_attributes: bool = False
    partitionable_devices: bool = False
    prioritized_list: bool = False


V1_36_DEFAULT_FEATURES = Features(
    admin_access=True,
    consumable_capacity=True,
    device_binding_and_status=True,
    device_taints=True,
    list_type_attributes=False,
    partitionable_devices=True,
    prioritized_list=True,
)
"""kube-scheduler v1.36 with its default feature gates."""
