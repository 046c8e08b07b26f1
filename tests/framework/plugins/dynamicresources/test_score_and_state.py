"""Upstream's Test_computesScore, TestGatherAllocatedState and TestNormalizeScore tables
(names kept)."""

from __future__ import annotations

from typing import Any

import pytest

from framework.api.quantity import Quantity
from framework.api.resource_claim import AllocationResult, ResourceClaim
from framework.config.types import DynamicResourcesArgs
from framework.interface.cycle_state import CycleState
from framework.interface.status import Status
from framework.interface.types import NodeScore
from framework.plugins.dynamicresources.dynamicresources import DynamicResources, compute_score
from framework.plugins.dynamicresources.in_flight import (
    InFlightAllocations,
    gather_allocated_state,
)
from framework.plugins.dynamicresources.structured.types import DeviceID
from framework.plugins.feature import Features
from tests.framework.plugins.dynamicresources.test_claims import ALLOCATION, claim
from tests.framework.storage.builders import FakeHandle


def prioritized_claim(*requests: tuple[str, int]) -> ResourceClaim:
    """``NamedRequestWithPrioritizedList(name, subreq-1 .. subreq-n)`` per request."""
    return ResourceClaim.from_dict(
        {
            "kind": "ResourceClaim",
            "metadata": {"name": "c", "namespace": "default"},
            "spec": {
                "devices": {
                    "requests": [
                        {
                            "name": name,
                            "firstAvailable": [
                                {"name": f"subreq-{i}", "deviceClassName": "my-resource-class"}
                                for i in range(1, count + 1)
                            ],
                        }
                        for name, count in requests
                    ]
                }
            },
        }
    )


def _allocation(*requests: str) -> AllocationResult:
    manifest = {
        "kind": "ResourceClaim",
        "metadata": {"name": "x"},
        "status": {
            "allocation": {
                "devices": {
                    "results": [
                        {"request": r, "driver": "d", "pool": "p", "device": "x"} for r in requests
                    ]
                }
            }
        },
    }
    return ResourceClaim.from_dict(manifest).status.allocation  # type: ignore[return-value]


@pytest.mark.parametrize(
    ("claims", "allocations", "expected"),
    [
        pytest.param(
            [prioritized_claim(("req-1", 1)), prioritized_claim(("req-2", 1))],
            [],
            None,
            id="more-claims-than-allocations",
        ),
        pytest.param(
            [claim(allocation=ALLOCATION), claim(name="my-pod-my-resource-2")],
            [_allocation("req-2")],
            0,
            id="mix-of-allocated-and-unallocated-claims",
        ),
        pytest.param(
            [prioritized_claim(("req-1", 1))],
            [_allocation("req-1/subreq-1")],
            8,
            id="single-request-only-subrequest-allocated",
        ),
        pytest.param(
            [prioritized_claim(("req-1", 8))],
            [_allocation("req-1/subreq-8")],
            1,
            id="single-request-last-subrequest-allocated",
        ),
        pytest.param(
            [prioritized_claim(("req-1", 4), ("req-2", 5))],
            [_allocation("req-1/subreq-4", "req-2/subreq-5")],
            9,
            id="multiple-requests-with-middle-subrequests-allocated",
        ),
        pytest.param(
            [prioritized_claim(("req-1", 8), ("req-2", 1))],
            [_allocation("req-1/subreq-8", "req-2/subreq-1")],
            9,
            id="multiple-requests-with-top-subrequests-allocated",
        ),
        pytest.param(
            [prioritized_claim(("req-1", 8)), prioritized_claim(("req-2", 8))],
            [_allocation("req-1/subreq-8"), _allocation("req-2/subreq-8")],
            2,
            id="multiple-claims-with-last-subrequests-allocated",
        ),
        pytest.param(
            [prioritized_claim(("req-1", 1)), prioritized_claim(("req-2", 1))],
            [_allocation("req-1/subreq-1"), _allocation("req-2/subreq-1")],
            16,
            id="multiple-claims-with-top-subrequests-allocated",
        ),
    ],
)
def test_compute_score(claims, allocations, expected):
    score, status = compute_score(claims, allocations)
    if expected is None:
        assert status == Status.error(
            "number of allocations 0 is smaller than number of claims needing allocation"
        )
    else:
        assert (score, status) == (expected, None)


DRIVER, NODE, SHARED = "some-driver", "worker", "shared-instance"


def shared_claim(share_id: str, capacity: str | None) -> ResourceClaim:
    """``allocatedClaimWithSharedDevice`` / ``...WithConsumedCapacity(2)``: a claim holding a
    share of the shared device. Upstream builds them from the pod's claim too, but its
    tracker counts every claim it is handed; here they get names (and UIDs) of their own."""
    result: dict[str, Any] = {
        "request": "req-1",
        "driver": DRIVER,
        "pool": NODE,
        "device": SHARED,
        "shareID": share_id,
    }
    if capacity is not None:
        result["consumedCapacity"] = {"my-cap": capacity}
    return claim(name=f"claim-{share_id}", allocation={"devices": {"results": [result]}})


ALLOCATED = claim(allocation=ALLOCATION)
WITH_SHARE = shared_claim("share-123", None)
WITH_CAPACITY = shared_claim("share-123", "1")
WITH_CAPACITY_2 = shared_claim("share-456", "1")


@pytest.mark.parametrize(
    ("claims", "in_flight", "consumable", "want_ids", "want_shared", "want_capacity"),
    [
        pytest.param([], [], False, 0, 0, None, id="no-claims"),
        pytest.param([ALLOCATED], [], False, 1, 0, None, id="single-allocated-claim"),
        pytest.param(
            [WITH_SHARE], [], True, 0, 1, None, id="single-allocated-claim-with-shared-device"
        ),
        pytest.param(
            [WITH_CAPACITY], [], True, 0, 1, "1", id="single-allocated-claim-with-capacity"
        ),
        pytest.param(
            [WITH_CAPACITY],
            [],
            False,
            1,
            0,
            None,
            id="disabled-single-allocated-claim-with-capacity",
        ),
        pytest.param([ALLOCATED, WITH_CAPACITY], [], True, 1, 1, "1", id="mixed-allocated-claim"),
        pytest.param(
            [ALLOCATED, WITH_CAPACITY],
            [WITH_CAPACITY_2],
            True,
            1,
            2,
            "2",
            id="add-inflight-allocated-claim-with-capacity",
        ),
        pytest.param(
            [ALLOCATED, WITH_CAPACITY],
            [WITH_CAPACITY_2],
            False,
            2,
            0,
            None,
            id="disabled-inflight-allocated-claim-with-capacity",
        ),
    ],
)
def test_gather_allocated_state(
    claims, in_flight, consumable, want_ids, want_shared, want_capacity
):
    pending = InFlightAllocations()
    for index, claim_in_flight in enumerate(in_flight):
        # Upstream keys these by "claim-2-uid", whatever the claim's own UID.
        copy = claim_in_flight.deep_copy()
        copy.metadata.uid = f"claim-{index + 2}-uid"
        pending.signal(copy)
    state = gather_allocated_state(claims, pending, consumable)
    assert len(state.allocated_devices) == want_ids
    assert len(state.allocated_shared_device_ids) == want_shared
    shared = DeviceID(DRIVER, NODE, SHARED)
    if want_capacity is None:
        assert state.aggregated_capacity == {}
    else:
        assert state.aggregated_capacity[shared]["my-cap"] == Quantity.parse(want_capacity)


MAX_INT32 = 2**31 - 1


@pytest.mark.parametrize(
    ("scores", "expected"),
    [
        pytest.param([], [], id="empty"),
        pytest.param([42], [100], id="single-score"),
        pytest.param([8, 8], [100, 100], id="all-same"),
        pytest.param([MAX_INT32, MAX_INT32], [100, 100], id="all-same-very-large"),
        pytest.param([MAX_INT32, 0], [100, 0], id="max-and-min-values"),
        pytest.param([99, 98, 97], [100, 98, 97], id="mid-value"),
        pytest.param(
            [MAX_INT32, MAX_INT32 - 1, 1, 0], [100, 99, 0, 0], id="large-spread-lost-precision"
        ),
    ],
)
def test_normalize_score(scores, expected):
    pl = DynamicResources(DynamicResourcesArgs(), FakeHandle([]), Features.from_gates())
    node_scores = [NodeScore(f"node-{i + 1}", score) for i, score in enumerate(scores)]
    assert pl.normalize_score(CycleState(), None, node_scores) is None  # type: ignore[arg-type]
    assert [s.score for s in node_scores] == expected
    values = list(scores)
    assert pl.normalize_score_values(CycleState(), None, values) is None  # type: ignore[arg-type]
    assert values == expected
