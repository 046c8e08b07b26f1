"""Devices already taken: allocated claims plus allocations made in Reserve, not yet written.

Between Reserve and PreBind an allocation lives only in the scheduler. Upstream's DRA manager
keeps such claims "in flight" so that the next pod's PreFilter counts their devices as
allocated (two pods in a row never get the same device), and so that a pod sharing the claim
waits until the allocation is written.
"""

from __future__ import annotations

from collections.abc import Iterable

from framework.api.resource_claim import ResourceClaim
from framework.plugins.dynamicresources.structured.types import (
    AllocatedState,
    DeviceID,
    SharedDeviceID,
)


class InFlightAllocations:
    """Claims (by UID) with the allocation Reserve chose for them."""

    def __init__(self) -> None:
        self._claims: dict[str, ResourceClaim] = {}

    def get(self, uid: str) -> ResourceClaim | None:
        return self._claims.get(uid)

    def signal(self, claim: ResourceClaim) -> None:
        """Reserve chose ``claim.status.allocation`` (``SignalClaimPendingAllocation``)."""
        self._claims[claim.uid] = claim

    def remove(self, uid: str) -> bool:
        """The allocation got written or dropped; True when it was in flight."""
        return self._claims.pop(uid, None) is not None

    def claims(self) -> list[ResourceClaim]:
        return list(self._claims.values())


def gather_allocated_state(
    claims: Iterable[ResourceClaim], in_flight: InFlightAllocations, consumable_capacity: bool
) -> AllocatedState:
    """What every allocated or in-flight claim holds (``GatherAllocatedState``).

    Admin access does not take a device. With consumable capacity, a shared allocation
    (``shareID``) takes a share and its capacity instead of the whole device.
    """
    state = AllocatedState()
    seen: set[str] = set()
    for claim in [*in_flight.claims(), *claims]:
        if claim.uid in seen or claim.status.allocation is None:
            continue
        seen.add(claim.uid)
        for result in claim.status.allocation.results:
            if result.admin_access:
                continue
            device_id = DeviceID(result.driver, result.pool, result.device)
            if consumable_capacity and result.share_id is not None:
                state.allocated_shared_device_ids.add(SharedDeviceID(device_id, result.share_id))
                if result.consumed_capacity:
                    _add_capacity(state, device_id, result.consumed_capacity)
                continue
            state.allocated_devices.add(device_id)
    return state


def _add_capacity(state: AllocatedState, device_id: DeviceID, consumed: dict) -> None:
    total = state.aggregated_capacity.setdefault(device_id, {})
    for name, quantity in consumed.items():
        total[name] = total[name] + quantity if name in total else quantity
