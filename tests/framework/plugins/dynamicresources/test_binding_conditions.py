"""Device binding conditions: the binding-conditions cases of upstream's dynamicresources_test.go.

Fixtures are test_claims.py's (pod ``default/my-pod`` with claim ``my-pod-my-resource``,
node ``worker``). Upstream's ``fabricSlice`` device carries binding condition ``condition``
and failure condition ``failed``; ``boundClaim`` has its device reporting ``condition``
true. FakeHandle's clock stands at 2026-01-01T00:00:00Z.
"""

from __future__ import annotations

import copy
import dataclasses
from datetime import timedelta
from typing import Any

import pytest

from framework.api.pod import Pod
from framework.api.resource_claim import ResourceClaim
from framework.api.resource_slice import ResourceSlice
from framework.config.types import DynamicResourcesArgs
from framework.interface.cycle_state import CycleState
from framework.interface.status import Code, Status
from framework.plugins.dynamicresources.dynamicresources import DynamicResources
from framework.plugins.feature import Features
from tests.framework.plugins.dynamicresources.test_claims import (
    ALLOCATION,
    CLAIM,
    DEVICE_CLASS,
    DRIVER,
    NODE,
    POD_UID,
    RESERVED_FOR_POD,
    STAMP,
    WORKER_SLICE,
    claim_manifest,
    pod,
    run,
    status_of,
    unresolvable,
    worker,
)
from tests.framework.storage.builders import FakeHandle

CLAIM_2 = "my-pod-my-resource-2"
DRIVER_2 = "some-driver-2"
DEALLOCATED = Status(Code.UNSCHEDULABLE, "deallocation of ResourceClaim completed")
NOT_AVAILABLE = unresolvable("resourceclaim not available on the node")


def fabric_slice(driver: str = DRIVER, device: str = "instance-1") -> ResourceSlice:
    return ResourceSlice.from_dict(
        {
            "metadata": {"name": f"{NODE}-{driver}"},
            "spec": {
                "driver": driver,
                "nodeName": NODE,
                "pool": {"name": NODE, "resourceSliceCount": 1},
                "devices": [
                    {
                        "name": device,
                        "bindsToNode": True,
                        "bindingConditions": ["condition"],
                        "bindingFailureConditions": ["failed"],
                    }
                ],
            },
        }
    )


def allocation_with_binding_conditions(
    driver: str = DRIVER, device: str = "instance-1", request: str = "req-1", stamp: str = STAMP
) -> dict[str, Any]:
    allocation = copy.deepcopy(ALLOCATION)
    allocation["devices"]["results"] = [
        {
            "request": request,
            "driver": driver,
            "pool": NODE,
            "device": device,
            "bindingConditions": ["condition"],
            "bindingFailureConditions": ["failed"],
        }
    ]
    allocation["allocationTimestamp"] = stamp
    return allocation


def device_status(
    conditions: dict[str, str] | None, driver: str = DRIVER, device: str = "instance-1"
) -> dict[str, Any]:
    status: dict[str, Any] = {"driver": driver, "pool": NODE, "device": device}
    if conditions is not None:
        status["conditions"] = [
            {"type": t, "status": s, "reason": "", "message": ""} for t, s in conditions.items()
        ]
    return status


def claim_with(
    conditions: dict[str, str] | None,
    name: str = CLAIM,
    driver: str = DRIVER,
    device: str = "instance-1",
    request: str = "req-1",
    stamp: str = STAMP,
) -> ResourceClaim:
    manifest = claim_manifest(name=name)
    manifest["spec"]["devices"]["requests"][0]["name"] = request
    manifest["status"] = {
        "allocation": allocation_with_binding_conditions(driver, device, request, stamp),
        "devices": [device_status(conditions, driver, device)],
    }
    return ResourceClaim.from_dict(manifest)


def bound_claim(**kwargs: Any) -> ResourceClaim:
    return claim_with({"condition": "True", "failed": "False"}, **kwargs)


def failed_binding_claim(**kwargs: Any) -> ResourceClaim:
    return claim_with({"condition": "False", "failed": "True"}, **kwargs)


def two_claims_pod() -> Pod:
    return Pod.from_dict(
        {
            "kind": "Pod",
            "metadata": {"name": "my-pod", "namespace": "default", "uid": POD_UID},
            "spec": {
                "containers": [{"name": "c", "image": "busybox"}],
                "resourceClaims": [
                    {"name": "my-resource", "resourceClaimName": CLAIM},
                    {"name": "my-resource-2", "resourceClaimName": CLAIM_2},
                ],
            },
        }
    )


def plugin(objects: list[Any], timeout: timedelta | None = None) -> DynamicResources:
    args = DynamicResourcesArgs(binding_timeout=timeout)
    return DynamicResources(args, FakeHandle(objects), Features.from_gates())


def prebind_failure(status: Status) -> dict[str, Any]:
    return {
        "score": (0, None),
        "reserve": None,
        "in_flight_after_reserve": [],
        "pre_bind": status,
        "in_flight_after_pre_bind": [],
    }


@pytest.mark.parametrize(
    "name", ["bind-claim-with-binding-conditions", "bind-failure-concurrent-deallocation"]
)
def test_bind_claim_with_binding_conditions(name):
    """No driver sets the conditions: PreBind writes the allocation, then times out."""
    pl = plugin([ResourceClaim.from_dict(claim_manifest()), DEVICE_CLASS, fabric_slice()])
    got = run(pl, pod())
    assert got["in_flight_after_reserve"] == [CLAIM]
    assert got["pre_bind"] == Status.error("device binding timeout: context deadline exceeded")
    assert status_of(pl.handle.cluster()) == {
        "allocation": allocation_with_binding_conditions(),
        "reservedFor": RESERVED_FOR_POD,
    }


def test_bound_claim_with_succeeded_binding_conditions():
    pl = plugin([bound_claim()])
    got = run(pl, pod())
    assert got["pre_bind"] is None
    assert status_of(pl.handle.cluster())["reservedFor"] == RESERVED_FOR_POD


@pytest.mark.parametrize(
    "the_claim",
    [
        pytest.param(failed_binding_claim(), id="bound-claim-with-failed-binding"),
        pytest.param(
            claim_with({}, stamp="2025-12-31T23:49:59Z"), id="bound-claim-with-timed-out-binding"
        ),
        pytest.param(
            claim_with({"condition1": "True", "condition2": "False"}, stamp="2025-12-31T23:49:59Z"),
            id="bound-claim-with-mixed-binding-conditions",
        ),
    ],
)
def test_a_claim_that_failed_or_timed_out_is_deallocated(the_claim):
    pl = plugin([the_claim])
    assert run(pl, pod()) == {"filter": NOT_AVAILABLE, "post_filter": DEALLOCATED}
    assert status_of(pl.handle.cluster()) == {}


def test_a_claim_not_timed_out_yet_is_still_usable():
    """Allocated 9 minutes 59 seconds ago: within the 600 seconds, Filter passes."""
    pl = plugin([claim_with({}, stamp="2025-12-31T23:50:01Z")])
    state = CycleState()
    pl.pre_filter(state, pod(), [])
    assert pl.filter(state, pod(), worker()) is None


def test_prebind_fail_with_binding_timeout():
    """Allocated 590 seconds before PreBind: the claim's own timeout has passed at the look
    15 seconds on (every 5 seconds), long before the wait's end."""
    the_claim = claim_with({}, stamp="2025-12-31T23:50:10Z")
    pl = plugin([the_claim], timeout=timedelta(seconds=600))
    got = run(pl, pod())
    assert got["pre_bind"] == Status.error(f"device binding timeout: claim={CLAIM}")
    assert status_of(pl.handle.cluster())["reservedFor"] == RESERVED_FOR_POD


def test_bound_claim_without_binding_conditions():
    """With the gates on, a claim without binding conditions binds at once."""
    pl = plugin([ResourceClaim.from_dict(claim_manifest(allocation=ALLOCATION))])
    got = run(pl, pod(template=True))
    assert got["pre_bind"] is None
    assert status_of(pl.handle.cluster()) == {
        "allocation": {**ALLOCATION, "allocationTimestamp": STAMP},
        "reservedFor": RESERVED_FOR_POD,
    }


def second_claim(make: Any) -> ResourceClaim:
    return make(name=CLAIM_2, driver=DRIVER_2, device="instance-2", request="req-2")


def test_multi_claims_binding_conditions_all_success():
    objects = [bound_claim(), second_claim(bound_claim), fabric_slice(), fabric_slice(DRIVER_2)]
    pl = plugin([*objects, DEVICE_CLASS])
    assert run(pl, two_claims_pod())["pre_bind"] is None
    for name in (CLAIM, CLAIM_2):
        assert status_of(pl.handle.cluster(), name)["reservedFor"] == RESERVED_FOR_POD


def test_multi_claims_binding_conditions_one_fail():
    objects = [bound_claim(), second_claim(failed_binding_claim), fabric_slice()]
    pl = plugin([*objects, fabric_slice(DRIVER_2, "instance-2"), DEVICE_CLASS])
    assert run(pl, two_claims_pod()) == {"filter": NOT_AVAILABLE, "post_filter": DEALLOCATED}
    assert status_of(pl.handle.cluster(), CLAIM_2) == {}
    assert "allocation" in status_of(pl.handle.cluster(), CLAIM)


def test_a_failure_condition_fails_pre_bind_with_upstreams_message():
    """The driver reports the failure while PreBind waits (here: before it looks)."""
    pl = plugin([ResourceClaim.from_dict(claim_manifest()), DEVICE_CLASS, fabric_slice()])
    cluster = pl.handle.cluster()
    state = CycleState()
    pl.pre_filter(state, pod(), [worker()])
    assert pl.filter(state, pod(), worker()) is None
    assert pl.reserve(state, pod(), NODE) is None
    original_update = cluster.update

    def driver_reports_failure(obj: Any) -> Any:
        written = original_update(obj)
        if written.kind == "ResourceClaim" and written.status.allocation is not None:
            manifest = written.to_dict()
            manifest["status"]["devices"] = [
                {
                    "driver": DRIVER,
                    "pool": NODE,
                    "device": "instance-1",
                    "conditions": [
                        {"type": "failed", "status": "True", "reason": "Broken", "message": "gone"}
                    ],
                }
            ]
            written = original_update(ResourceClaim.from_dict(manifest))
        return written

    cluster.update = driver_reports_failure
    assert pl.pre_bind(state, pod(), NODE) == Status.error(
        f'device binding failed: claim={CLAIM}, reason=Broken, message="gone"'
    )


def test_dont_add_allocation_timestamp():
    """DRADeviceBindingConditions off: PreBind writes no allocationTimestamp."""
    features = dataclasses.replace(
        Features.from_gates(), enable_dra_device_binding_conditions=False
    )
    objects = [ResourceClaim.from_dict(claim_manifest()), DEVICE_CLASS, WORKER_SLICE]
    pl = DynamicResources(DynamicResourcesArgs(), FakeHandle(objects), features)
    assert run(pl, pod())["pre_bind"] is None
    assert status_of(pl.handle.cluster()) == {
        "allocation": ALLOCATION,
        "reservedFor": RESERVED_FOR_POD,
    }


def attempt(pl: DynamicResources) -> Status | None:
    """One scheduling attempt on the worker, Unreserve after a failed PreBind."""
    state = CycleState()
    assert pl.pre_filter(state, pod(), [worker()])[1] is None
    assert pl.filter(state, pod(), worker()) is None
    assert pl.reserve(state, pod(), NODE) is None
    status = pl.pre_bind(state, pod(), NODE)
    if status is not None:
        pl.unreserve(state, pod(), NODE)
    return status


def test_conditions_set_after_a_timeout_bind_the_pod_at_its_next_attempt():
    """PreBind does not block: the first attempt ends with the timeout, a driver (or a
    user editing the claim) then reports the device ready, and the next attempt binds on the
    allocation already made."""
    pl = plugin([ResourceClaim.from_dict(claim_manifest()), DEVICE_CLASS, fabric_slice()])
    cluster = pl.handle.cluster()
    assert attempt(pl) == Status.error("device binding timeout: context deadline exceeded")
    assert status_of(cluster) == {"allocation": allocation_with_binding_conditions()}
    ready = cluster.get("ResourceClaim", CLAIM, "default").to_dict()
    ready["status"]["devices"] = [device_status({"condition": "True", "failed": "False"})]
    cluster.update(ResourceClaim.from_dict(ready))
    assert attempt(pl) is None
    assert status_of(cluster)["reservedFor"] == RESERVED_FOR_POD
