"""DynamicResources with ResourceClaims: cases of upstream's dynamicresources_test.go table.

Fixtures mirror upstream's: pod ``default/my-pod`` (UID 1234) with claim ``my-resource``,
claim ``my-pod-my-resource`` asking for one device of ``my-resource-class``, node ``worker``
with one ResourceSlice of driver ``some-driver`` holding device ``instance-1``. Each case
runs the extension points in the scheduler's order and compares every status, the in-flight
allocations and the claims written to the cluster.
"""

from __future__ import annotations

import copy
import dataclasses
from typing import Any

import pytest

from framework.api.device_class import DeviceClass
from framework.api.node import Node
from framework.api.pod import Pod
from framework.api.resource_claim import ResourceClaim
from framework.api.resource_slice import ResourceSlice
from framework.config.types import DynamicResourcesArgs
from framework.interface.cycle_state import CycleState
from framework.interface.node_info import NodeInfo
from framework.interface.status import Code, Status
from framework.interface.types import NodeToStatus
from framework.plugins.dynamicresources.dynamicresources import DynamicResources
from framework.plugins.feature import Features
from tests.framework.storage.builders import FakeHandle

NODE = "worker"
DRIVER = "some-driver"
CLASS = "my-resource-class"
CLAIM = "my-pod-my-resource"
POD_UID = "1234"
SKIP = Status(Code.SKIP)
FEATURES = Features.from_gates()
STILL = Status(Code.UNSCHEDULABLE, "still not schedulable")


def unresolvable(message: str) -> Status:
    return Status(Code.UNSCHEDULABLE_AND_UNRESOLVABLE, message)


def pod(template: bool = False, in_status: bool = True) -> Pod:
    source = {"resourceClaimTemplateName": CLAIM} if template else {"resourceClaimName": CLAIM}
    manifest: dict[str, Any] = {
        "kind": "Pod",
        "metadata": {"name": "my-pod", "namespace": "default", "uid": POD_UID},
        "spec": {
            "containers": [{"name": "c", "image": "busybox"}],
            "resourceClaims": [{"name": "my-resource", **source}],
        },
    }
    if template and in_status:
        manifest["status"] = {
            "resourceClaimStatuses": [{"name": "my-resource", "resourceClaimName": CLAIM}]
        }
    return Pod.from_dict(manifest)


ALLOCATION = {
    "devices": {
        "results": [{"request": "req-1", "driver": DRIVER, "pool": NODE, "device": "instance-1"}]
    },
    "nodeSelector": {
        "nodeSelectorTerms": [
            {"matchFields": [{"key": "metadata.name", "operator": "In", "values": [NODE]}]}
        ]
    },
}
RESERVED_FOR_POD = [{"resource": "pods", "name": "my-pod", "uid": POD_UID}]
STAMP = "2026-01-01T00:00:00Z"
"""The allocationTimestamp PreBind writes (FakeHandle's clock; upstream addAllocationTimestamp)."""


def stamped(allocation: dict[str, Any]) -> dict[str, Any]:
    return {**allocation, "allocationTimestamp": STAMP}


def selector_on(key: str, value: str) -> dict[str, Any]:
    expression = {"key": key, "operator": "In", "values": [value]}
    return {"nodeSelectorTerms": [{"matchExpressions": [expression]}]}


def claim_manifest(
    name: str = CLAIM,
    allocation: dict[str, Any] | None = None,
    reserved_for: list[dict[str, Any]] | None = None,
    owner_uid: str = POD_UID,
    deleting: bool = False,
) -> dict[str, Any]:
    metadata: dict[str, Any] = {"name": name, "namespace": "default"}
    if name == CLAIM:
        metadata["ownerReferences"] = [
            {
                "apiVersion": "v1",
                "kind": "Pod",
                "name": "my-pod",
                "uid": owner_uid,
                "controller": True,
            }
        ]
    if deleting:
        metadata["deletionTimestamp"] = "2026-01-01T00:00:00Z"
    status: dict[str, Any] = {}
    if allocation is not None:
        status["allocation"] = allocation
    if reserved_for is not None:
        status["reservedFor"] = reserved_for
    return {
        "kind": "ResourceClaim",
        "metadata": metadata,
        "spec": {
            "devices": {"requests": [{"name": "req-1", "exactly": {"deviceClassName": CLASS}}]}
        },
        "status": status,
    }


def claim(**kwargs: Any) -> ResourceClaim:
    return ResourceClaim.from_dict(claim_manifest(**kwargs))


def other_allocated(device: str = "instance-1") -> ResourceClaim:
    allocation = copy.deepcopy(ALLOCATION)
    allocation["devices"]["results"][0]["device"] = device
    return claim(name="not-my-claim", allocation=allocation)


DEVICE_CLASS = DeviceClass.from_dict({"metadata": {"name": CLASS}, "spec": {}})
WORKER_SLICE = ResourceSlice.from_dict(
    {
        "metadata": {"name": f"{NODE}-{DRIVER}"},
        "spec": {
            "driver": DRIVER,
            "nodeName": NODE,
            "pool": {"name": NODE, "resourceSliceCount": 1},
            "devices": [{"name": "instance-1"}],
        },
    }
)


def worker() -> NodeInfo:
    node = Node.from_dict(
        {
            "kind": "Node",
            "metadata": {"name": NODE, "labels": {"kubernetes.io/hostname": NODE}},
            "status": {"allocatable": {"cpu": "4", "memory": "8Gi", "pods": "110"}},
        }
    )
    info = NodeInfo()
    info.set_node(node)
    return info


def plugin(objects: list[Any], in_flight: list[ResourceClaim] = ()) -> DynamicResources:  # type: ignore[assignment]
    pl = DynamicResources(DynamicResourcesArgs(), FakeHandle(objects), FEATURES)
    for pending in in_flight:
        pl.in_flight.signal(pending)
    return pl


def in_flight_names(pl: DynamicResources) -> list[str]:
    return sorted(c.name for c in pl.in_flight.claims())


def run(pl: DynamicResources, the_pod: Pod) -> dict[str, Any]:
    """Upstream's testPlugin flow: stop at the first failing point, PostFilter after Filter."""
    got: dict[str, Any] = {}
    status = pl.pre_enqueue(the_pod)
    if status is not None:
        got["pre_enqueue"] = status
        return got
    state = CycleState()
    _, status = pl.pre_filter(state, the_pod, [worker()])
    if status is not None:
        got["pre_filter"] = status
        if status.code != Code.SKIP:
            got["post_filter"] = pl.post_filter(state, the_pod, NodeToStatus())[1]
        return got
    status = pl.filter(state, the_pod, worker())
    if status is not None:
        got["filter"] = status
        got["post_filter"] = pl.post_filter(state, the_pod, NodeToStatus())[1]
        return got
    got["score"] = pl.score(state, the_pod, worker())
    got["reserve"] = pl.reserve(state, the_pod, NODE)
    got["in_flight_after_reserve"] = in_flight_names(pl)
    got["pre_bind"] = pl.pre_bind(state, the_pod, NODE)
    got["in_flight_after_pre_bind"] = in_flight_names(pl)
    return got


def success(in_flight: list[str], after: list[str]) -> dict[str, Any]:
    return {
        "score": (0, None),
        "reserve": None,
        "in_flight_after_reserve": in_flight,
        "pre_bind": None,
        "in_flight_after_pre_bind": after,
    }


def status_of(cluster: Any, name: str = CLAIM) -> dict[str, Any]:
    return cluster.get("ResourceClaim", name, "default").to_dict().get("status", {})


CASES = [
    pytest.param(
        pod(template=True, in_status=False),
        [claim(allocation=ALLOCATION)],
        [],
        {"pre_enqueue": unresolvable('pod "default/my-pod": ResourceClaim not created yet')},
        None,
        id="missing-claim",
    ),
    pytest.param(
        pod(template=True),
        [claim(allocation=ALLOCATION, deleting=True)],
        [],
        {"pre_enqueue": unresolvable('resourceclaim "my-pod-my-resource" is being deleted')},
        None,
        id="deleted-claim",
    ),
    pytest.param(
        pod(template=True),
        [claim(allocation=ALLOCATION, owner_uid=POD_UID + "123")],
        [],
        {
            "pre_enqueue": unresolvable(
                "ResourceClaim default/my-pod-my-resource was not created for Pod "
                "default/my-pod (Pod is not owner)"
            )
        },
        None,
        id="wrong-claim",
    ),
    pytest.param(
        pod(),
        [],
        [],
        {
            "pre_enqueue": unresolvable(
                'resourceclaim.resource.k8s.io "my-pod-my-resource" not found'
            )
        },
        None,
        id="a claim that does not exist (the lister's NotFound)",
    ),
    pytest.param(
        pod(),
        [claim(), DEVICE_CLASS],
        [],
        {"filter": unresolvable("cannot allocate all claims"), "post_filter": STILL},
        None,
        id="no-resources",
    ),
    pytest.param(
        pod(),
        [claim(), DEVICE_CLASS, WORKER_SLICE],
        [],
        success([CLAIM], []),
        {"allocation": stamped(ALLOCATION), "reservedFor": RESERVED_FOR_POD},
        id="with-resources",
    ),
    pytest.param(
        pod(template=True),
        [claim(), DEVICE_CLASS, WORKER_SLICE],
        [],
        success([CLAIM], []),
        {"allocation": stamped(ALLOCATION), "reservedFor": RESERVED_FOR_POD},
        id="claim-template",
    ),
    pytest.param(
        pod(),
        [claim(), other_allocated(), DEVICE_CLASS, WORKER_SLICE],
        [],
        {"filter": unresolvable("cannot allocate all claims"), "post_filter": STILL},
        None,
        id="exhausted-resources-in-informer-cache",
    ),
    pytest.param(
        pod(),
        [claim(), claim(name="not-my-claim"), DEVICE_CLASS, WORKER_SLICE],
        [other_allocated()],
        {"filter": unresolvable("cannot allocate all claims"), "post_filter": STILL},
        None,
        id="exhausted-resources-in-flight-claim",
    ),
    pytest.param(
        pod(),
        [claim(), claim(name="not-my-claim"), DEVICE_CLASS, WORKER_SLICE],
        [other_allocated("instance-1-other")],
        success([CLAIM, "not-my-claim"], ["not-my-claim"]),
        {"allocation": stamped(ALLOCATION), "reservedFor": RESERVED_FOR_POD},
        id="other-resources-in-flight-claim",
    ),
    pytest.param(
        pod(),
        [claim()],
        [],
        {
            "pre_filter": unresolvable(f"request req-1: device class {CLASS} does not exist"),
            "post_filter": Status(Code.UNSCHEDULABLE, "no new claims to deallocate"),
        },
        None,
        id="missing-class",
    ),
    pytest.param(
        pod(),
        [claim(allocation={"nodeSelector": selector_on("no-such-label", "no-such-value")})],
        [],
        {
            "filter": unresolvable("resourceclaim not available on the node"),
            "post_filter": Status(Code.UNSCHEDULABLE, "deallocation of ResourceClaim completed"),
        },
        {},
        id="wrong-topology",
    ),
    pytest.param(
        pod(),
        [claim(allocation={"nodeSelector": selector_on("kubernetes.io/hostname", NODE)})],
        [],
        success([], []),
        {
            "allocation": stamped({"nodeSelector": selector_on("kubernetes.io/hostname", NODE)}),
            "reservedFor": RESERVED_FOR_POD,
        },
        id="good-topology",
    ),
    pytest.param(
        pod(),
        [
            claim(
                allocation={"nodeSelector": selector_on("kubernetes.io/hostname", NODE)},
                reserved_for=RESERVED_FOR_POD,
            )
        ],
        [],
        success([], []),
        {
            "allocation": {"nodeSelector": selector_on("kubernetes.io/hostname", NODE)},
            "reservedFor": RESERVED_FOR_POD,
        },
        id="reserved-okay",
    ),
    pytest.param(
        pod(),
        [claim()],
        [claim(allocation=ALLOCATION)],
        {
            "pre_filter": unresolvable(
                "resource claim default/my-pod-my-resource is in the process of being allocated"
            ),
            "post_filter": Status(Code.UNSCHEDULABLE, "no new claims to deallocate"),
        },
        None,
        id="a claim allocated in flight for another pod makes the pod wait",
    ),
]


@pytest.mark.parametrize(("the_pod", "objects", "in_flight", "expected", "written"), CASES)
def test_plugin_with_claims(the_pod, objects, in_flight, expected, written):
    pl = plugin(objects, in_flight)
    assert run(pl, the_pod) == expected
    if written is not None:
        assert status_of(pl.handle.cluster()) == written


def test_two_pods_in_a_row_do_not_get_the_same_device():
    """Reserve keeps the first allocation in flight: the second pod finds no free device."""
    second_claim = claim_manifest(name="second-claim")
    second_claim["metadata"]["ownerReferences"] = []
    second = Pod.from_dict(
        {
            "kind": "Pod",
            "metadata": {"name": "second", "namespace": "default", "uid": "5678"},
            "spec": {
                "containers": [{"name": "c", "image": "busybox"}],
                "resourceClaims": [{"name": "r", "resourceClaimName": "second-claim"}],
            },
        }
    )
    pl = plugin([claim(), ResourceClaim.from_dict(second_claim), DEVICE_CLASS, WORKER_SLICE])
    first_state = CycleState()
    pl.pre_filter(first_state, pod(), [worker()])
    assert pl.filter(first_state, pod(), worker()) is None
    assert pl.reserve(first_state, pod(), NODE) is None
    second_state = CycleState()
    assert pl.pre_filter(second_state, second, [worker()])[1] is None
    assert pl.filter(second_state, second, worker()) == unresolvable("cannot allocate all claims")
    # Unreserve drops the in-flight allocation: the device is free again.
    pl.unreserve(first_state, pod(), NODE)
    third_state = CycleState()
    pl.pre_filter(third_state, second, [worker()])
    assert pl.filter(third_state, second, worker()) is None


def test_pre_bind_fails_when_the_claim_got_allocated_elsewhere():
    pl = plugin([claim(), DEVICE_CLASS, WORKER_SLICE])
    state = CycleState()
    pl.pre_filter(state, pod(), [worker()])
    pl.filter(state, pod(), worker())
    pl.reserve(state, pod(), NODE)
    pl.handle.cluster().update(claim(allocation=ALLOCATION))
    assert pl.pre_bind(state, pod(), NODE) == Status.error(
        "claim default/my-pod-my-resource got allocated elsewhere in the meantime"
    )
    assert pl.in_flight.claims() == []


def test_unreserve_removes_the_pod_from_reserved_for():
    pl = plugin(
        [claim(allocation=ALLOCATION, reserved_for=RESERVED_FOR_POD), DEVICE_CLASS, WORKER_SLICE]
    )
    state = CycleState()
    pl.pre_filter(state, pod(), [worker()])
    pl.unreserve(state, pod(), NODE)
    assert "reservedFor" not in status_of(pl.handle.cluster())


def test_a_cel_runtime_error_aborts_the_pod():
    broken = DeviceClass.from_dict(
        {
            "metadata": {"name": CLASS},
            "spec": {"selectors": [{"cel": {"expression": 'device.attributes["x"].healthy'}}]},
        }
    )
    pl = plugin([claim(), broken, WORKER_SLICE])
    state = CycleState()
    pl.pre_filter(state, pod(), [worker()])
    status = pl.filter(state, pod(), worker())
    assert status.code == Code.ERROR
    assert str(status.err).startswith(f"class {CLASS}: selector #0: CEL runtime error")


def slice_on(node: str, healthy: bool) -> ResourceSlice:
    return ResourceSlice.from_dict(
        {
            "metadata": {"name": f"{node}-{DRIVER}"},
            "spec": {
                "driver": DRIVER,
                "nodeName": node,
                "pool": {"name": node, "resourceSliceCount": 1},
                "devices": [{"name": "instance-1", "attributes": {"healthy": {"bool": healthy}}}],
            },
        }
    )


def node_named(name: str) -> NodeInfo:
    info = NodeInfo()
    info.set_node(Node.from_dict({"kind": "Node", "metadata": {"name": name}}))
    return info


def test_the_batch_scores_of_a_pod_without_claims_are_its_scores_node_by_node():
    """``score_nodes`` answers a pod without claims at once; the answer is ``score``'s."""
    plain = Pod.from_dict(
        {"kind": "Pod", "metadata": {"name": "plain", "namespace": "default", "uid": "u-plain"}}
    )
    pl = plugin([DEVICE_CLASS])
    nodes = [node_named(NODE), node_named("worker-2")]
    state = CycleState()
    assert pl.pre_filter(state, plain, nodes)[1].code == Code.SKIP

    assert pl.score_nodes(state, plain, nodes) == ([0, 0], None)
    assert [pl.score(state, plain, n) for n in nodes] == [(0, None), (0, None)]
    # Without PreFilter's state, the same error the first node gets.
    scores, status = pl.score_nodes(CycleState(), plain, nodes)
    assert scores == []
    assert status.reasons == pl.score(CycleState(), plain, nodes[0])[1].reasons


def test_single_claim_prioritized_list_scoring():
    """Upstream's case: subrequest 1 (healthy devices) scores 8, subrequest 2 scores 7."""
    manifest = claim_manifest()
    manifest["spec"]["devices"]["requests"] = [
        {
            "name": "req-1",
            "firstAvailable": [
                {
                    "name": "subreq-1",
                    "deviceClassName": CLASS,
                    "selectors": [
                        {"cel": {"expression": f'device.attributes["{DRIVER}"].healthy'}}
                    ],
                },
                {"name": "subreq-2", "deviceClassName": CLASS},
            ],
        }
    ]
    objects = [
        ResourceClaim.from_dict(manifest),
        DEVICE_CLASS,
        slice_on(NODE, True),
        slice_on("worker-2", False),
    ]
    pl = plugin(objects)
    nodes = [node_named(NODE), node_named("worker-2")]
    state = CycleState()
    assert pl.pre_filter(state, pod(), nodes)[1] is None
    assert [pl.filter(state, pod(), n) for n in nodes] == [None, None]
    scores, status = pl.score_nodes(state, pod(), nodes)
    assert (scores, status) == ([8, 7], None)
    assert pl.normalize_score_values(state, pod(), scores) is None
    assert scores == [100, 87]
    assert pl.reserve(state, pod(), NODE) is None
    assert pl.pre_bind(state, pod(), NODE) is None
    [result] = status_of(pl.handle.cluster())["allocation"]["devices"]["results"]
    assert result == {
        "request": "req-1/subreq-1",
        "driver": DRIVER,
        "pool": NODE,
        "device": "instance-1",
    }


GOOD_TOPOLOGY = {"nodeSelector": selector_on("kubernetes.io/hostname", NODE)}


def test_bind_failure_unreserve_after_pre_bind_removes_the_reservation():
    """Upstream's bind-failure: PreBind reserved the claim, binding failed, Unreserve undoes
    the reservation and keeps the allocation."""
    pl = plugin([claim(allocation=GOOD_TOPOLOGY)])
    state = CycleState()
    pl.pre_filter(state, pod(), [worker()])
    assert pl.filter(state, pod(), worker()) is None
    assert pl.reserve(state, pod(), NODE) is None
    assert pl.pre_bind(state, pod(), NODE) is None
    assert status_of(pl.handle.cluster())["reservedFor"] == RESERVED_FOR_POD
    pl.unreserve(state, pod(), NODE)
    assert status_of(pl.handle.cluster()) == {"allocation": stamped(GOOD_TOPOLOGY)}


def test_a_refused_status_update_fails_pre_bind_with_an_error():
    pl = plugin([claim(allocation=GOOD_TOPOLOGY)])
    pl.handle.cluster().refuse.add(f"default/{CLAIM}")
    state = CycleState()
    pl.pre_filter(state, pod(), [worker()])
    pl.filter(state, pod(), worker())
    pl.reserve(state, pod(), NODE)
    assert pl.pre_bind(state, pod(), NODE) == Status.error(
        f"add reservation to claim default/{CLAIM}: update of default/{CLAIM} refused"
    )


# -- more of upstream's table: features, CEL errors, prioritized lists ---------------------------


def claim_requesting(request: dict[str, Any], **kwargs: Any) -> ResourceClaim:
    manifest = claim_manifest(**kwargs)
    manifest["spec"]["devices"]["requests"] = [{"name": "req-1", **request}]
    return ResourceClaim.from_dict(manifest)


def admin_access(allocation: dict[str, Any] | None = None, **kwargs: Any) -> ResourceClaim:
    """Upstream's ``adminAccess``: every request and result with admin access."""
    request = {"exactly": {"deviceClassName": CLASS, "adminAccess": True}}
    if allocation is not None:
        allocation = copy.deepcopy(allocation)
        for result in allocation["devices"]["results"]:
            result["adminAccess"] = True
    return claim_requesting(request, allocation=allocation, **kwargs)


BROKEN_SELECTOR = {"cel": {"expression": f'device.attributes["{DRIVER}"].healthy'}}
"""Upstream's ``brokenSelector``: the attribute exists only on other nodes' devices."""

BROKEN_CLAIM = claim_requesting(
    {"exactly": {"deviceClassName": CLASS, "selectors": [BROKEN_SELECTOR]}}
)
BROKEN_CLASS = DeviceClass.from_dict(
    {"metadata": {"name": CLASS}, "spec": {"selectors": [BROKEN_SELECTOR]}}
)
CEL_ERROR = "selector #0: CEL runtime error: no such key: healthy"

TAINTED_SLICE = ResourceSlice.from_dict(
    {
        "metadata": {"name": f"{NODE}-{DRIVER}"},
        "spec": {
            "driver": DRIVER,
            "nodeName": NODE,
            "pool": {"name": NODE, "resourceSliceCount": 1},
            "devices": [
                {
                    "name": "instance-1",
                    "taints": [
                        {"key": "taint-key", "value": "taint-value", "effect": "NoSchedule"}
                    ],
                }
            ],
        },
    }
)


def prioritized(class_name: str = CLASS) -> ResourceClaim:
    """Upstream's ``claimWithPrioritzedList``: one subrequest, one device of the class."""
    return claim_requesting(
        {"firstAvailable": [{"name": "subreq-1", "deviceClassName": class_name, "count": 1}]}
    )


def gates(**overrides: bool) -> Features:
    return dataclasses.replace(FEATURES, **overrides)


PRIORITIZED_ALLOCATION = copy.deepcopy(ALLOCATION)
PRIORITIZED_ALLOCATION["devices"]["results"][0]["request"] = "req-1/subreq-1"
ADMIN_ALLOCATION = copy.deepcopy(ALLOCATION)
ADMIN_ALLOCATION["devices"]["results"][0]["adminAccess"] = True
NO_NEW_CLAIMS = Status(Code.UNSCHEDULABLE, "no new claims to deallocate")

MORE_CASES = [
    pytest.param(
        pod(),
        [claim(allocation=ALLOCATION), claim(name="not-my-claim")],
        FEATURES,
        success([], []),
        {"allocation": stamped(ALLOCATION), "reservedFor": RESERVED_FOR_POD},
        id="claim-reference",
    ),
    pytest.param(
        pod(),
        [claim(), DEVICE_CLASS, TAINTED_SLICE],
        gates(enable_dra_device_taints=False),
        success([CLAIM], []),
        {"allocation": stamped(ALLOCATION), "reservedFor": RESERVED_FOR_POD},
        id="tainted-device-disabled",
    ),
    pytest.param(
        pod(),
        [claim(), DEVICE_CLASS, TAINTED_SLICE],
        gates(enable_dra_device_taints=True),
        {"filter": unresolvable("cannot allocate all claims"), "post_filter": STILL},
        None,
        id="tainted-device-enabled",
    ),
    pytest.param(
        pod(),
        [admin_access(), other_allocated(), DEVICE_CLASS, WORKER_SLICE],
        FEATURES,
        success([CLAIM], []),
        {"allocation": stamped(ADMIN_ALLOCATION), "reservedFor": RESERVED_FOR_POD},
        id="request-admin-access-with-DRAAdminAccess-featuregate",
    ),
    pytest.param(
        pod(),
        [admin_access(), other_allocated(), DEVICE_CLASS, WORKER_SLICE],
        gates(enable_dra_admin_access=False),
        {
            # An allocator error: upstream's table compares Error statuses by message only.
            "filter": Status.error(
                f"claim default/{CLAIM}, request req-1: admin access is requested, but the "
                "feature is disabled"
            ),
            "post_filter": STILL,
        },
        None,
        id="request-admin-access-without-DRAAdminAccess-featuregate",
    ),
    pytest.param(
        pod(),
        [claim(), admin_access(ALLOCATION, name="not-my-claim"), DEVICE_CLASS, WORKER_SLICE],
        FEATURES,
        success([CLAIM], []),
        {"allocation": stamped(ALLOCATION), "reservedFor": RESERVED_FOR_POD},
        id="structured-ignore-allocated-admin-access",
    ),
    pytest.param(
        pod(),
        [BROKEN_CLAIM, DEVICE_CLASS, WORKER_SLICE],
        FEATURES,
        {"filter": Status.error(f"claim default/{CLAIM}: {CEL_ERROR}"), "post_filter": STILL},
        None,
        id="claim-parameters-CEL-runtime-error",
    ),
    pytest.param(
        pod(),
        [claim(), BROKEN_CLASS, WORKER_SLICE],
        FEATURES,
        {"filter": Status.error(f"class {CLASS}: {CEL_ERROR}"), "post_filter": STILL},
        None,
        id="class-parameters-CEL-runtime-error",
    ),
    pytest.param(
        pod(),
        [claim_requesting({"exactly": {"deviceClassName": "does-not-exist"}})],
        FEATURES,
        {
            "pre_filter": unresolvable("request req-1: device class does-not-exist does not exist"),
            "post_filter": NO_NEW_CLAIMS,
        },
        None,
        id="claim-with-request-with-unknown-device-class",
    ),
    pytest.param(
        pod(),
        [prioritized(), DEVICE_CLASS],
        gates(enable_dra_prioritized_list=False),
        {
            "pre_filter": unresolvable(
                f"resource claim default/{CLAIM}, request req-1: has subrequests, but the "
                "DRAPrioritizedList feature is disabled"
            ),
            "post_filter": NO_NEW_CLAIMS,
        },
        None,
        id="claim-with-prioritized-list-feature-disabled",
    ),
    pytest.param(
        pod(),
        [prioritized("does-not-exist")],
        FEATURES,
        {
            "pre_filter": unresolvable(
                "request req-1/subreq-1: device class does-not-exist does not exist"
            ),
            "post_filter": NO_NEW_CLAIMS,
        },
        None,
        id="claim-with-prioritized-list-unknown-device-class",
    ),
    pytest.param(
        pod(),
        [prioritized(), DEVICE_CLASS, WORKER_SLICE],
        FEATURES,
        {**success([CLAIM], []), "score": (8, None)},
        {"allocation": stamped(PRIORITIZED_ALLOCATION), "reservedFor": RESERVED_FOR_POD},
        id="claim-with-prioritized-list",
    ),
]


@pytest.mark.parametrize(("the_pod", "objects", "features", "expected", "written"), MORE_CASES)
def test_more_of_upstreams_table(the_pod, objects, features, expected, written):
    pl = DynamicResources(DynamicResourcesArgs(), FakeHandle(objects), features)
    assert run(pl, the_pod) == expected
    if written is not None:
        assert status_of(pl.handle.cluster()) == written


def test_skip_bind():
    """Unreserve before PreBind drops the allocation in flight; nothing is written."""
    pl = plugin([claim(), DEVICE_CLASS, WORKER_SLICE])
    state = CycleState()
    pl.pre_filter(state, pod(), [worker()])
    assert pl.filter(state, pod(), worker()) is None
    assert pl.reserve(state, pod(), NODE) is None
    assert in_flight_names(pl) == [CLAIM]
    pl.unreserve(state, pod(), NODE)
    assert in_flight_names(pl) == []
    assert status_of(pl.handle.cluster()) == {}


def test_cel_runtime_error_for_one_of_two_nodes():
    """A selector failing on one node stops the pod, though another node would do."""
    pl = plugin([BROKEN_CLAIM, DEVICE_CLASS, WORKER_SLICE, slice_on("worker-2", True)])
    state = CycleState()
    nodes = [worker(), node_named("worker-2")]
    pl.pre_filter(state, pod(), nodes)
    assert pl.filter(state, pod(), nodes[0]) == Status.error(f"claim default/{CLAIM}: {CEL_ERROR}")


def test_a_claim_reserved_for_too_many_consumers_is_in_use():
    """``CanBeReserved``: at most 256 consumers; another pod has to wait."""
    others = [{"resource": "pods", "name": f"p{i}", "uid": f"uid-{i}"} for i in range(256)]
    pl = plugin([claim(allocation=GOOD_TOPOLOGY, reserved_for=others)])
    assert run(pl, pod()) == {
        "pre_filter": unresolvable("resourceclaim in use"),
        "post_filter": NO_NEW_CLAIMS,
    }


FINALIZER = "resource.kubernetes.io/delete-protection"


def finalizers_of(cluster: Any, name: str = CLAIM) -> list[str]:
    metadata = cluster.get("ResourceClaim", name, "default").to_dict()["metadata"]
    return metadata.get("finalizers", [])


def with_finalizers(the_claim: ResourceClaim, finalizers: list[str]) -> ResourceClaim:
    manifest = the_claim.to_dict()
    manifest["metadata"]["finalizers"] = finalizers
    return ResourceClaim.from_dict(manifest)


@pytest.mark.parametrize(
    ("initial", "before_pre_bind"),
    [
        ([], None),
        ([FINALIZER], None),
        ([FINALIZER], []),
        ([], [FINALIZER]),
    ],
    ids=[
        "with-resources",
        "with-resources-has-finalizer",
        "with-resources-finalizer-gets-removed",
        "with-resources-finalizer-gets-added",
    ],
)
def test_allocating_adds_the_finalizer_once(initial, before_pre_bind):
    """PreBind adds the scheduler's finalizer with the allocation unless it is there."""
    pl = plugin([with_finalizers(claim(), initial), DEVICE_CLASS, WORKER_SLICE])
    cluster = pl.handle.cluster()
    state = CycleState()
    pl.pre_filter(state, pod(), [worker()])
    assert pl.filter(state, pod(), worker()) is None
    assert pl.reserve(state, pod(), NODE) is None
    [pending] = pl.in_flight.claims()
    assert pending.to_dict()["metadata"]["finalizers"] == [FINALIZER]
    if before_pre_bind is not None:
        cluster.update(
            with_finalizers(cluster.get("ResourceClaim", CLAIM, "default"), before_pre_bind)
        )
    assert pl.pre_bind(state, pod(), NODE) is None
    assert finalizers_of(cluster) == [FINALIZER]
    assert status_of(cluster) == {
        "allocation": stamped(ALLOCATION),
        "reservedFor": RESERVED_FOR_POD,
    }


def test_reserving_an_allocated_claim_leaves_its_finalizers_alone():
    pl = plugin([claim(allocation=GOOD_TOPOLOGY)])
    assert run(pl, pod())["pre_bind"] is None
    assert finalizers_of(pl.handle.cluster()) == []
