"""DRA extended resources: the extended-resource cases of upstream's dynamicresources_test.go.

Fixtures as upstream's: pod ``default/my-pod`` (UID 1234) whose container ``con0`` asks for
``example.com/gpu``, class ``my-resource-class`` with that ``extendedResourceName``, node
``worker`` and ResourceSlices of driver ``some-driver``. Upstream's fake API server names the
created claim ``my-pod-extended-resources-0``; ours gets the generated five characters.
"""

from __future__ import annotations

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
from framework.metrics import RESOURCECLAIM_CREATES_TOTAL
from framework.plugins.dynamicresources.dynamicresources import DynamicResources
from framework.plugins.dynamicresources.extended_resources import (
    DeviceClassResolver,
    create_requests_and_mappings,
)
from framework.plugins.feature import Features
from tests.framework.storage.builders import FakeHandle

NODE = "worker"
DRIVER = "some-driver"
CLASS = "my-resource-class"
GPU = "example.com/gpu"
GPU2 = "example.com/gpu2"
IMPLICIT = f"deviceclass.resource.kubernetes.io/{CLASS}"
POD_UID = "1234"
STAMP = "2026-01-01T00:00:00Z"
ANNOTATION = "resource.kubernetes.io/extended-resource-claim"
RESERVED_FOR_POD = [{"resource": "pods", "name": "my-pod", "uid": POD_UID}]
FEATURES = Features.from_gates()
SKIP = Status(Code.SKIP)


def unresolvable(message: str) -> Status:
    return Status(Code.UNSCHEDULABLE_AND_UNRESOLVABLE, message)


def pod(*containers: dict[str, str], init: list[dict[str, Any]] = ()) -> Pod:  # type: ignore[assignment]
    """One container ``con<i>`` per request map, as upstream's ``st.MakePod().Req(...)``."""
    spec: dict[str, Any] = {
        "containers": [
            {"name": f"con{i}", "image": "pause", "resources": {"requests": requests}}
            for i, requests in enumerate(containers)
        ]
    }
    if init:
        spec["initContainers"] = list(init)
    return Pod.from_dict(
        {
            "kind": "Pod",
            "metadata": {"name": "my-pod", "namespace": "default", "uid": POD_UID},
            "spec": spec,
        }
    )


def device_class(name: str = CLASS, extended_resource_name: str | None = GPU) -> DeviceClass:
    spec = {"extendedResourceName": extended_resource_name} if extended_resource_name else {}
    return DeviceClass.from_dict({"metadata": {"name": name}, "spec": spec})


def worker_slice(*devices: str) -> ResourceSlice:
    return ResourceSlice.from_dict(
        {
            "metadata": {"name": f"{NODE}-{DRIVER}"},
            "spec": {
                "driver": DRIVER,
                "nodeName": NODE,
                "pool": {"name": NODE, "resourceSliceCount": 1},
                "devices": [{"name": device} for device in devices],
            },
        }
    )


WORKER_SLICE = worker_slice("instance-1")
LARGE_WORKER_SLICE = worker_slice("instance-1", "instance-2", "instance-3", "instance-4")


def worker(**capacity: str) -> NodeInfo:
    node = Node.from_dict(
        {
            "kind": "Node",
            "metadata": {"name": NODE, "labels": {"kubernetes.io/hostname": NODE}},
            "status": {"capacity": capacity, "allocatable": capacity},
        }
    )
    info = NodeInfo()
    info.set_node(node)
    return info


ON_WORKER = {
    "nodeSelectorTerms": [
        {"matchFields": [{"key": "metadata.name", "operator": "In", "values": [NODE]}]}
    ]
}


def allocation(*results: tuple[str, str], node: str = NODE) -> dict[str, Any]:
    selector = {
        "nodeSelectorTerms": [
            {"matchFields": [{"key": "metadata.name", "operator": "In", "values": [node]}]}
        ]
    }
    return {
        "devices": {
            "results": [
                {"request": request, "driver": DRIVER, "pool": NODE, "device": device}
                for request, device in results
            ]
        },
        "nodeSelector": selector,
    }


def request(name: str, class_name: str = CLASS, count: int = 1) -> dict[str, Any]:
    return {
        "name": name,
        "exactly": {"deviceClassName": class_name, "allocationMode": "ExactCount", "count": count},
    }


def mapping(container: str, resource: str, request_name: str) -> dict[str, str]:
    return {"containerName": container, "resourceName": resource, "requestName": request_name}


def existing_claim(node: str = NODE) -> ResourceClaim:
    """Upstream's ``extendedResourceClaim`` (or ``...Node2``): made by an earlier cycle."""
    return ResourceClaim.from_dict(
        {
            "kind": "ResourceClaim",
            "metadata": {
                "name": "my-pod-extended-resources-0",
                "generateName": "my-pod-extended-resources-",
                "namespace": "default",
                "annotations": {ANNOTATION: "true"},
                "ownerReferences": [
                    {
                        "apiVersion": "v1",
                        "kind": "Pod",
                        "name": "my-pod",
                        "uid": POD_UID,
                        "controller": True,
                    }
                ],
            },
            "spec": {"devices": {"requests": [request("container-0-request-0")]}},
            "status": {
                "allocation": allocation(("container-0-request-0", "instance-1"), node=node)
            },
        }
    )


def plugin(objects: list[Any]) -> DynamicResources:
    return DynamicResources(DynamicResourcesArgs(), FakeHandle(objects), FEATURES)


def run(pl: DynamicResources, the_pod: Pod, info: NodeInfo, stop: str = "") -> dict[str, Any]:
    """Upstream's testPlugin flow, stopping at the first failure (PostFilter after Filter)
    or, with ``stop``, calling Unreserve before PreBind ("skip-bind") or after it
    ("bind-failure")."""
    got: dict[str, Any] = {}
    state = CycleState()
    _, status = pl.pre_filter(state, the_pod, [info])
    if status is not None:
        got["pre_filter"] = status
        got["pre_bind_pre_flight"] = pl.pre_bind_pre_flight(state, the_pod, NODE)[1]
        return got
    status = pl.filter(state, the_pod, info)
    if status is not None:
        got["filter"] = status
        got["post_filter"] = pl.post_filter(state, the_pod, NodeToStatus())[1]
        return got
    got["reserve"] = pl.reserve(state, the_pod, NODE)
    got["in_flight"] = [
        (c.name, c.to_dict()["spec"], c.to_dict()["status"]["allocation"])
        for c in pl.in_flight.claims()
    ]
    if stop == "skip-bind":
        pl.unreserve(state, the_pod, NODE)
    else:
        got["pre_bind"] = pl.pre_bind(state, the_pod, NODE)
        if stop == "bind-failure":
            pl.unreserve(state, the_pod, NODE)
    got["in_flight_after"] = [c.name for c in pl.in_flight.claims()]
    return got


def created_claims(pl: DynamicResources) -> list[dict[str, Any]]:
    """The extended resource claims in the cluster, as stored."""
    cluster = pl.handle.cluster()
    return [
        c.to_dict()
        for c in cluster.list("ResourceClaim")
        if c.metadata.annotations.get(ANNOTATION) == "true"
    ]


def claim_status_of_pod(pl: DynamicResources) -> Any:
    stored = pl.handle.cluster().get("Pod", "my-pod", "default")
    return (stored.to_dict().get("status") or {}).get("extendedResourceClaimStatus")


def in_flight_entry(requests: list[dict[str, Any]], alloc: dict[str, Any]) -> list[Any]:
    return [("<extended-resources>", {"devices": {"requests": requests}}, alloc)]


def success(requests: list[dict[str, Any]], alloc: dict[str, Any]) -> dict[str, Any]:
    return {
        "reserve": None,
        "in_flight": in_flight_entry(requests, alloc),
        "pre_bind": None,
        "in_flight_after": [],
    }


def assert_created(pl: DynamicResources, requests: list[dict[str, Any]], alloc: dict[str, Any]):
    [created] = created_claims(pl)
    metadata = created["metadata"]
    assert metadata["name"].startswith("my-pod-extended-resources-")
    assert len(metadata["name"]) == len("my-pod-extended-resources-") + 5
    assert metadata["generateName"] == "my-pod-extended-resources-"
    assert metadata["annotations"] == {ANNOTATION: "true"}
    assert metadata["ownerReferences"] == [
        {"apiVersion": "v1", "kind": "Pod", "name": "my-pod", "uid": POD_UID, "controller": True}
    ]
    assert created["spec"] == {"devices": {"requests": requests}}
    assert created["status"] == {
        "allocation": {**alloc, "allocationTimestamp": STAMP},
        "reservedFor": RESERVED_FOR_POD,
    }
    return metadata["name"]


GPU_POD = pod({GPU: "1"})


def test_extended_resource_name_with_node_resource():
    """A device plugin serves the resource: nothing to allocate, nothing created."""
    pl = plugin([device_class(), GPU_POD])
    got = run(pl, GPU_POD, worker(**{GPU: "1"}))
    assert got == {"reserve": None, "in_flight": [], "pre_bind": None, "in_flight_after": []}
    assert created_claims(pl) == []
    assert claim_status_of_pod(pl) is None


def test_extended_resource_one_device_plugin_one_dra():
    the_pod = pod({GPU: "1", GPU2: "1"})
    classes = [device_class(), device_class(CLASS + "2", GPU2)]
    pl = plugin([*classes, WORKER_SLICE, the_pod])
    requests = [request("container-0-request-1", CLASS + "2")]
    alloc = allocation(("container-0-request-1", "instance-1"))
    assert run(pl, the_pod, worker(**{GPU: "1"})) == success(requests, alloc)
    name = assert_created(pl, requests, alloc)
    assert claim_status_of_pod(pl) == {
        "requestMappings": [mapping("con0", GPU2, "container-0-request-1")],
        "resourceClaimName": name,
    }


@pytest.mark.parametrize(
    "info",
    [worker(**{GPU: "0"}), worker()],
    ids=["extended-resource-name-with-zero-allocatable", "extended-resource-name-with-resources"],
)
def test_extended_resource_name_with_resources(info):
    pl = plugin([device_class(), WORKER_SLICE, GPU_POD])
    requests = [request("container-0-request-0")]
    alloc = allocation(("container-0-request-0", "instance-1"))
    assert run(pl, GPU_POD, info) == success(requests, alloc)
    name = assert_created(pl, requests, alloc)
    assert claim_status_of_pod(pl) == {
        "requestMappings": [mapping("con0", GPU, "container-0-request-0")],
        "resourceClaimName": name,
    }
    assert pl.handle.metrics.series(RESOURCECLAIM_CREATES_TOTAL) == {(("status", "success"),): 1}


def test_non_dra_extended_resource_name_with_zero_allocatable():
    pl = plugin([device_class(extended_resource_name=None), WORKER_SLICE, GPU_POD])
    assert run(pl, GPU_POD, worker(**{GPU: "0"})) == {
        "pre_filter": SKIP,
        "pre_bind_pre_flight": SKIP,
    }


def test_extended_resource_name_no_resource():
    pl = plugin([device_class(), GPU_POD])
    assert run(pl, GPU_POD, worker()) == {
        "filter": unresolvable("cannot allocate all claims"),
        "post_filter": Status(Code.UNSCHEDULABLE, "still not schedulable"),
    }


@pytest.mark.parametrize(
    ("the_pod", "requests", "results", "mappings"),
    [
        pytest.param(
            pod({IMPLICIT: "1", GPU: "2"}),
            [request("container-0-request-0"), request("container-0-request-1", count=2)],
            [
                ("container-0-request-0", "instance-1"),
                ("container-0-request-1", "instance-2"),
                ("container-0-request-1", "instance-3"),
            ],
            [
                mapping("con0", IMPLICIT, "container-0-request-0"),
                mapping("con0", GPU, "container-0-request-1"),
            ],
            id="implicit-extended-resource-name-with-resources",
        ),
        pytest.param(
            pod({IMPLICIT: "1"}, {GPU: "2"}),
            [request("container-0-request-0"), request("container-1-request-0", count=2)],
            [
                ("container-0-request-0", "instance-1"),
                ("container-1-request-0", "instance-2"),
                ("container-1-request-0", "instance-3"),
            ],
            [
                mapping("con0", IMPLICIT, "container-0-request-0"),
                mapping("con1", GPU, "container-1-request-0"),
            ],
            id="implicit-extended-resource-name-two-containers-with-resources",
        ),
    ],
)
def test_implicit_extended_resource_name(the_pod, requests, results, mappings):
    pl = plugin([device_class(), LARGE_WORKER_SLICE, the_pod])
    alloc = allocation(*results)
    assert run(pl, the_pod, worker()) == success(requests, alloc)
    name = assert_created(pl, requests, alloc)
    assert claim_status_of_pod(pl) == {"requestMappings": mappings, "resourceClaimName": name}


def test_extended_resource_name_with_resources_fail_patch():
    """The claim is created and bound, but the pod's status cannot be written."""
    pl = plugin([device_class(), WORKER_SLICE, GPU_POD])
    pl.handle.cluster().refuse.add("default/my-pod")
    got = run(pl, GPU_POD, worker())
    assert got["pre_bind"] == Status.error(
        "update pod default/my-pod ExtendedResourceClaimStatus: update of default/my-pod refused"
    )
    assert len(created_claims(pl)) == 1


@pytest.mark.parametrize(
    "node",
    [NODE, "worker-2"],
    ids=[
        "extended-resource-name-with-resources-has-claim",
        "extended-resource-name-with-resources-delete-claim",
    ],
)
def test_a_claim_left_by_an_earlier_cycle_is_deleted(node):
    pl = plugin([device_class(), WORKER_SLICE, GPU_POD, existing_claim(node)])
    assert run(pl, GPU_POD, worker()) == {
        "filter": unresolvable("cannot schedule extended resource claim"),
        "post_filter": Status(Code.UNSCHEDULABLE, "deletion of ResourceClaim completed"),
    }
    assert [c.name for c in pl.handle.cluster().deleted] == ["my-pod-extended-resources-0"]
    assert created_claims(pl) == []


def test_extended_resource_name_bind_failure():
    """Unreserve after PreBind deletes the claim PreBind created."""
    pl = plugin([device_class(), WORKER_SLICE, GPU_POD])
    got = run(pl, GPU_POD, worker(), stop="bind-failure")
    assert got["pre_bind"] is None
    [deleted] = pl.handle.cluster().deleted
    assert deleted.name.startswith("my-pod-extended-resources-")
    assert created_claims(pl) == []
    assert got["in_flight_after"] == []


def test_extended_resource_name_skip_bind():
    pl = plugin([device_class(), WORKER_SLICE, GPU_POD])
    got = run(pl, GPU_POD, worker(), stop="skip-bind")
    assert got["in_flight"] != []
    assert got["in_flight_after"] == []
    assert created_claims(pl) == []


def test_extended_resource_name_claim_creation_failure():
    pl = plugin([device_class(), WORKER_SLICE, GPU_POD])
    pl.handle.cluster().refuse_creates.add("ResourceClaim")
    got = run(pl, GPU_POD, worker(), stop="bind-failure")
    assert got["pre_bind"] == Status.error(
        "create claim for extended resources default/: create of ResourceClaim refused"
    )
    assert got["in_flight_after"] == []
    assert pl.handle.cluster().deleted == []
    assert pl.handle.metrics.series(RESOURCECLAIM_CREATES_TOTAL) == {(("status", "failure"),): 1}


def test_the_next_pod_does_not_get_the_device_in_flight():
    """Reserve keeps the special claim's allocation in flight, as for any claim."""
    other = Pod.from_dict(
        {
            "kind": "Pod",
            "metadata": {"name": "other", "namespace": "default", "uid": "5678"},
            "spec": {"containers": [{"name": "c", "resources": {"requests": {GPU: "1"}}}]},
        }
    )
    pl = plugin([device_class(), WORKER_SLICE, GPU_POD, other])
    first = CycleState()
    pl.pre_filter(first, GPU_POD, [worker()])
    assert pl.filter(first, GPU_POD, worker()) is None
    assert pl.reserve(first, GPU_POD, NODE) is None
    second = CycleState()
    assert pl.pre_filter(second, other, [worker()])[1] is None
    assert pl.filter(second, other, worker()) == unresolvable("cannot allocate all claims")


# -- requests and mappings: extendeddynamicresources_test.go ------------------------------------

ER = "example.com/gpu"
ER1 = ER + "1"
ER_INIT = ER + "init"
IMPLICIT_INIT = "deviceclass.resource.kubernetes.io/classInit"


def table_pod(*containers: tuple[str, dict[str, str]]) -> Pod:
    """Containers in order as upstream's wrappers add them: ``("res", ...)`` a container
    ``con<i>``, ``("init", ...)`` ``init-con<i>``, ``("sidecar", ...)`` ``sidecar-con<i>``."""
    regular: list[dict[str, Any]] = []
    init: list[dict[str, Any]] = []
    for kind, requests in containers:
        resources = {"requests": requests}
        if kind == "res":
            regular.append({"name": f"con{len(regular)}", "resources": resources})
        elif kind == "init":
            init.append({"name": f"init-con{len(init)}", "resources": resources})
        else:
            init.append(
                {
                    "name": f"sidecar-con{len(init)}",
                    "resources": resources,
                    "restartPolicy": "Always",
                }
            )
    spec: dict[str, Any] = {"containers": regular}
    if init:
        spec["initContainers"] = init
    return Pod.from_dict(
        {"kind": "Pod", "metadata": {"name": "my-pod", "uid": POD_UID}, "spec": spec}
    )


def resolver(mapping: dict[str, str]) -> DeviceClassResolver:
    """Upstream's mockDeviceClassResolver: resource name -> class name."""

    class Mock(DeviceClassResolver):
        def __init__(self) -> None:
            self._classes = {name: device_class(cls, None) for name, cls in mapping.items()}

    return Mock()


POD_1 = table_pod(("res", {ER: "1", ER1: "2"}))
POD_2 = table_pod(("res", {ER: "1"}), ("res", {ER1: "2"}))
POD_INIT = table_pod(("res", {ER: "1"}), ("init", {ER_INIT: "2"}))
POD_INIT_2 = table_pod(("res", {ER: "1"}), ("init", {ER_INIT: "1"}), ("init", {ER_INIT: "2"}))
POD_INIT_3 = table_pod(
    ("res", {ER: "1"}),
    ("init", {ER_INIT: "1"}),
    ("sidecar", {ER_INIT: "1"}),
    ("init", {ER_INIT: "2"}),
)
POD_1_INIT_IMPLICIT = table_pod(("init", {ER_INIT: "1", IMPLICIT_INIT: "2"}))
POD_INIT_IMPLICIT = table_pod(
    ("res", {ER: "1"}), ("init", {ER_INIT: "1"}), ("init", {IMPLICIT_INIT: "2"})
)
RES = {ER: 1}
RES_2 = {ER: 1, ER1: 2}
RES_INIT = {ER: 1, ER_INIT: 2}
RES_INIT_IMPLICIT = {ER: 1, ER_INIT: 2, IMPLICIT_INIT: 2}
DEV_MAP = {ER: "class"}
DEV_MAP_2 = {ER: "class", ER1: "class1"}
DEV_MAP_INIT = {ER: "class", ER_INIT: "classInit", IMPLICIT_INIT: "classInit"}


@pytest.mark.parametrize(
    ("the_pod", "resources", "mapping", "want"),
    [
        pytest.param(POD_1, {}, {}, [], id="nil"),
        pytest.param(
            POD_1, RES, DEV_MAP, [("container-0-request-0", "class", 1)], id="one resource match"
        ),
        pytest.param(
            POD_1,
            RES_2,
            DEV_MAP,
            [("container-0-request-0", "class", 1)],
            id="one resource match, one resource not match",
        ),
        pytest.param(
            POD_1,
            RES_2,
            DEV_MAP_2,
            [("container-0-request-0", "class", 1), ("container-0-request-1", "class1", 2)],
            id="two resources match",
        ),
        pytest.param(
            POD_2,
            RES_2,
            DEV_MAP_2,
            [("container-0-request-0", "class", 1), ("container-1-request-0", "class1", 2)],
            id="two containers match",
        ),
        pytest.param(
            POD_INIT,
            RES_INIT,
            DEV_MAP_INIT,
            [("container-0-request-0", "classInit", 2), ("container-1-request-0", "class", 1)],
            id="one init container, one regular container",
        ),
        pytest.param(
            POD_INIT_2,
            RES_INIT,
            DEV_MAP_INIT,
            [("container-1-request-0", "classInit", 2), ("container-2-request-0", "class", 1)],
            id="two init containers, one regular container",
        ),
        pytest.param(
            POD_INIT_3,
            RES_INIT,
            DEV_MAP_INIT,
            [
                ("container-1-request-0", "classInit", 1),
                ("container-2-request-0", "classInit", 2),
                ("container-3-request-0", "class", 1),
            ],
            id="three init containers, one sidecar, one regular container",
        ),
    ],
)
def test_create_requests_and_mappings_requests(the_pod, resources, mapping, want):
    requests, _ = create_requests_and_mappings(the_pod, resources, resolver(mapping))
    assert requests == [request(name, class_name, count) for name, class_name, count in want]


@pytest.mark.parametrize(
    ("the_pod", "resources", "want"),
    [
        pytest.param(
            POD_1,
            RES_2,
            [("con0", ER, "container-0-request-0"), ("con0", ER1, "container-0-request-1")],
            id="one container, two requests",
        ),
        pytest.param(
            POD_1_INIT_IMPLICIT,
            RES_INIT_IMPLICIT,
            [
                ("init-con0", IMPLICIT_INIT, "container-0-request-0"),
                ("init-con0", ER_INIT, "container-0-request-1"),
            ],
            id="one container, one explicit and one implicit request",
        ),
        pytest.param(
            POD_2,
            RES_2,
            [("con0", ER, "container-0-request-0"), ("con1", ER1, "container-1-request-0")],
            id="two containers, two requests",
        ),
        pytest.param(
            POD_INIT,
            RES_INIT,
            [
                ("init-con0", ER_INIT, "container-0-request-0"),
                ("con0", ER, "container-1-request-0"),
            ],
            id="one init container, one regular container, one request",
        ),
        pytest.param(
            POD_INIT_2,
            RES_INIT,
            [
                ("init-con0", ER_INIT, "container-1-request-0"),
                ("init-con1", ER_INIT, "container-1-request-0"),
                ("con0", ER, "container-2-request-0"),
            ],
            id="three containers (two are init container), two requests",
        ),
        pytest.param(
            POD_INIT_IMPLICIT,
            RES_INIT_IMPLICIT,
            [
                ("init-con0", ER_INIT, "container-0-request-0"),
                ("init-con1", IMPLICIT_INIT, "container-1-request-0"),
                ("con0", ER, "container-2-request-0"),
            ],
            id="three containers (two are init container), both explicit and implicit resources",
        ),
        pytest.param(
            POD_INIT_3,
            RES_INIT,
            [
                ("init-con0", ER_INIT, "container-1-request-0"),
                ("sidecar-con1", ER_INIT, "container-1-request-0"),
                ("init-con2", ER_INIT, "container-2-request-0"),
                ("con0", ER, "container-3-request-0"),
            ],
            id="four containers (two are init container, one sidecar), three requests",
        ),
    ],
)
def test_create_requests_and_mappings_mappings(the_pod, resources, want):
    _, mappings = create_requests_and_mappings(
        the_pod, resources, resolver(DEV_MAP_INIT | DEV_MAP_2)
    )
    got = sorted((m["requestName"], m["containerName"], m["resourceName"]) for m in mappings)
    assert got == [(request_name, c, r) for c, r, request_name in want]
