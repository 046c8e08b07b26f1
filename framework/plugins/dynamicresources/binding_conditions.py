"""Device binding conditions (DRADeviceBindingConditions): devices that must get ready first.

A device may carry ``bindingConditions`` (and ``bindingFailureConditions``) that the
allocator copies into the claim's allocation. The pod is bound only once the driver reports
every binding condition true in the claim's ``status.devices``; a failure condition true, or
``bindingTimeout`` passing since the allocation's ``allocationTimestamp``, makes the scheduler
give the devices up (PostFilter deallocates the claim on the next attempt).
"""

from __future__ import annotations

import datetime as _dt
from collections.abc import Iterable, Sequence

from framework.api.resource_claim import (
    AllocatedDeviceStatus,
    DeviceRequestAllocationResult,
    ResourceClaim,
)
from framework.metrics import (
    BINDING_CONDITIONS_STATUS_ERROR,
    BINDING_CONDITIONS_STATUS_FAILED,
    BINDING_CONDITIONS_STATUS_SUCCESS,
    BINDING_CONDITIONS_STATUS_TIMEOUT,
    DRA_BINDINGCONDITIONS_ALLOCATIONS_TOTAL,
    DRA_BINDINGCONDITIONS_WAIT_DURATION_SECONDS,
    Metrics,
)

ERR_DEVICE_BINDING_TIMEOUT = "device binding timeout"
ERR_DEVICE_BINDING_FAILED = "device binding failed"

POLL_INTERVAL = 5.0
"""Seconds between two looks at the binding conditions in upstream's PreBind wait."""


class BindingFailedError(Exception):
    """A binding failure condition is true (upstream wraps ``ErrDeviceBindingFailed``)."""


def is_claim_ready_for_binding(claim: ResourceClaim) -> bool:
    """True once every binding condition is true (also when there are none); False while
    some are pending; BindingFailedError when a failure condition is true."""
    allocation = claim.status.allocation
    if allocation is None:
        return False
    for result in allocation.results:
        if not result.binding_conditions:
            continue
        device_status = allocated_device_status(claim, result)
        if device_status is None:
            return False
        for condition_type in result.binding_failure_conditions:
            failed = device_status.condition(condition_type)
            if failed is not None and failed.status == "True":
                raise BindingFailedError(
                    f"{ERR_DEVICE_BINDING_FAILED}: claim={claim.name}, reason={failed.reason}, "
                    f'message="{failed.message}"'
                )
        for condition_type in result.binding_conditions:
            if not _is_true(device_status, condition_type):
                return False
    return True


def is_claim_timeout(claim: ResourceClaim, binding_timeout: _dt.timedelta, now: float) -> bool:
    """Whether ``binding_timeout`` has passed since the claim was allocated, for a claim with
    binding conditions."""
    allocation = claim.status.allocation
    if allocation is None or allocation.allocation_timestamp is None:
        return False
    if not any(result.binding_conditions for result in allocation.results):
        return False
    deadline = allocation.allocation_timestamp + binding_timeout
    return deadline.timestamp() < now


def wait_outcome(
    claims: Sequence[ResourceClaim], binding_timeout: _dt.timedelta, now: float
) -> str | None:
    """How upstream's PreBind wait ends if nothing changes the claims meanwhile: None when
    they are ready, else its error.

    Upstream looks every POLL_INTERVAL seconds, from ``now`` until ``binding_timeout`` has
    passed. Readiness and failures cannot change without a writer; only the claims' own
    timeouts do, so the looks are walked without waiting.
    """
    deadline = now + binding_timeout.total_seconds()
    look = now
    while True:
        try:
            if _ready_at(claims, binding_timeout, look):
                return None
        except BindingFailedError as err:
            return str(err)
        except _ClaimTimedOut as err:
            return f"{ERR_DEVICE_BINDING_TIMEOUT}: claim={err}"
        if look + POLL_INTERVAL >= deadline:
            return f"{ERR_DEVICE_BINDING_TIMEOUT}: context deadline exceeded"
        look += POLL_INTERVAL


class _ClaimTimedOut(Exception):
    """A claim waited for its binding conditions longer than ``bindingTimeout``."""


def _ready_at(claims: Sequence[ResourceClaim], binding_timeout: _dt.timedelta, now: float) -> bool:
    """``isPodReadyForBinding``: every claim ready; the first one not ready ends the look."""
    for claim in claims:
        if not is_claim_ready_for_binding(claim):
            if is_claim_timeout(claim, binding_timeout, now):
                raise _ClaimTimedOut(claim.name)
            return False
    return True


def has_binding_conditions(claims: Iterable[ResourceClaim]) -> bool:
    return any(
        result.binding_conditions
        for claim in claims
        if claim.status.allocation is not None
        for result in claim.status.allocation.results
    )


def allocated_device_status(
    claim: ResourceClaim, result: DeviceRequestAllocationResult
) -> AllocatedDeviceStatus | None:
    for device in claim.status.devices:
        if (device.driver, device.pool, device.device) == (
            result.driver,
            result.pool,
            result.device,
        ):
            return device
    return None


def _is_true(device_status: AllocatedDeviceStatus, condition_type: str) -> bool:
    condition = device_status.condition(condition_type)
    return condition is not None and condition.status == "True"


def wait_status(error: str | None) -> str:
    """The ``status`` label of the wait's metrics: how the wait ended."""
    if error is None:
        return BINDING_CONDITIONS_STATUS_SUCCESS
    if error.startswith(ERR_DEVICE_BINDING_TIMEOUT):
        return BINDING_CONDITIONS_STATUS_TIMEOUT
    if error.startswith(ERR_DEVICE_BINDING_FAILED):
        return BINDING_CONDITIONS_STATUS_FAILED
    return BINDING_CONDITIONS_STATUS_ERROR


def record_wait(
    metrics: Metrics, profile: str, claims: Iterable[ResourceClaim], status: str, seconds: float
) -> None:
    """The wait's duration once per allocated device, and one allocation per device that has
    binding conditions, each under its driver (upstream's PreBind records both so)."""
    for claim in claims:
        allocation = claim.status.allocation
        if allocation is None:
            continue
        for result in allocation.results:
            metrics.observe(
                DRA_BINDINGCONDITIONS_WAIT_DURATION_SECONDS,
                seconds,
                profile=profile,
                driver=result.driver,
                status=status,
            )
        for result in allocation.results:
            if result.binding_conditions:
                metrics.inc(
                    DRA_BINDINGCONDITIONS_ALLOCATIONS_TOTAL,
                    profile=profile,
                    driver=result.driver,
                    status=status,
                )
