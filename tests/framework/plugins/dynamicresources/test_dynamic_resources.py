"""DynamicResources for pods without claims, DRA extended resources, and queueing hints.

Cases named as in upstream's dynamicresources_test.go follow its expectations.
"""

from __future__ import annotations

from datetime import timedelta
from typing import Any, ClassVar

import pytest

from framework.api.meta import KubeObject
from framework.api.node import Node
from framework.api.resource_claim import ResourceClaim
from framework.config.types import DynamicResourcesArgs
from framework.interface.cycle_state import CycleState
from framework.interface.events import ActionType, ClusterEvent, EventResource, QueueingHint
from framework.interface.node_info import NodeInfo
from framework.interface.status import Code, Status
from framework.interface.types import NodeScore, NodeToStatus, PreBindPreFlightResult
from framework.plugins.dynamicresources.dynamicresources import DynamicResources
from framework.plugins.feature import Features
from tests.framework.builders import make_pod
from tests.framework.storage.builders import FakeHandle

GPU = "example.com/gpu"
SKIP = Status(Code.SKIP)
DEFAULTS = Features.from_gates()


class DeviceClass(KubeObject):
    __slots__ = ()
    KIND: ClassVar[str] = "DeviceClass"
    API_VERSION: ClassVar[str] = "resource.k8s.io/v1"
    NAMESPACED: ClassVar[bool] = False


def device_class(name: str, extended_resource_name: str | None = None) -> DeviceClass:
    spec = {"extendedResourceName": extended_resource_name} if extended_resource_name else {}
    return DeviceClass.from_dict({"kind": "DeviceClass", "metadata": {"name": name}, "spec": spec})


def claim(name: str, allocated: bool, owner_uid: str = "") -> ResourceClaim:
    status = {"allocation": {"devices": {"results": []}}} if allocated else {}
    metadata: dict[str, Any] = {"name": name, "namespace": "default"}
    if owner_uid:
        owner = {"apiVersion": "v1", "kind": "Pod", "name": "my-pod", "uid": owner_uid}
        metadata["ownerReferences"] = [{**owner, "controller": True}]
    return ResourceClaim.from_dict(
        {"kind": "ResourceClaim", "metadata": metadata, "spec": {}, "status": status}
    )


def gpu_pod(amount: str = "1") -> Any:
    return make_pod(
        "my-pod",
        containers=[
            {"name": "c", "resources": {"requests": {GPU: amount}, "limits": {GPU: amount}}}
        ],
    )


POD_WITH_CLAIM = make_pod(
    "my-pod", resourceClaims=[{"name": "my-resource", "resourceClaimName": "my-pod-my-resource"}]
)


def node_info(**allocatable: str) -> NodeInfo:
    capacity = {"cpu": "4", "memory": "8Gi", "pods": "110", **allocatable}
    node = Node.from_dict(
        {
            "kind": "Node",
            "metadata": {"name": "worker"},
            "status": {"capacity": capacity, "allocatable": capacity},
        }
    )
    info = NodeInfo()
    info.set_node(node)
    return info


def plugin(objects: list[Any] = (), features: Features = DEFAULTS) -> DynamicResources:  # type: ignore[assignment]
    return DynamicResources(DynamicResourcesArgs(), FakeHandle(objects), features)


def run(pl: DynamicResources, pod: Any, info: NodeInfo) -> dict[str, Any]:
    """Every extension point in order, as the scheduler would reach them."""
    state = CycleState()
    got: dict[str, Any] = {"pre_enqueue": pl.pre_enqueue(pod)}
    _, got["pre_filter"] = pl.pre_filter(state, pod, [info])
    got["filter"] = pl.filter(state, pod, info)
    got["post_filter"] = pl.post_filter(state, pod, NodeToStatus())[1]
    got["score"] = pl.score(state, pod, info)
    got["reserve"] = pl.reserve(state, pod, "worker")
    result, got["pre_bind_pre_flight"] = pl.pre_bind_pre_flight(state, pod, "worker")
    assert result == PreBindPreFlightResult(allow_parallel=True)
    got["pre_bind"] = pl.pre_bind(state, pod, "worker")
    return got


def want(**overrides: Any) -> dict[str, Any]:
    expected: dict[str, Any] = {
        "pre_enqueue": None,
        "pre_filter": SKIP,
        "filter": None,
        "post_filter": Status(Code.UNSCHEDULABLE, "no new claims to deallocate"),
        "score": (0, None),
        "reserve": None,
        "pre_bind_pre_flight": SKIP,
        "pre_bind": None,
    }
    expected.update(overrides)
    return expected


@pytest.mark.parametrize(
    ("pod", "objects", "info", "features", "expected"),
    [
        (make_pod("foo"), [], node_info(), DEFAULTS, want()),
        (gpu_pod(), [], node_info(), DEFAULTS, want()),
        (
            make_pod("foo"),
            [],
            node_info(),
            Features(enable_dynamic_resource_allocation=False),
            want(post_filter=Status(Code.UNSCHEDULABLE, "plugin disabled")),
        ),
        (gpu_pod(), [device_class("other")], node_info(), DEFAULTS, want()),
        (
            gpu_pod(),
            [device_class("gpu-class", GPU)],
            node_info(**{GPU: "2"}),
            DEFAULTS,
            want(
                pre_filter=None,
                post_filter=Status(Code.UNSCHEDULABLE, "still not schedulable"),
                pre_bind_pre_flight=None,
            ),
        ),
        (
            gpu_pod(),
            [device_class("gpu-class", GPU)],
            node_info(**{GPU: "0"}),
            DEFAULTS,
            want(
                pre_filter=None,
                filter=Status(Code.UNSCHEDULABLE_AND_UNRESOLVABLE, "cannot allocate all claims"),
                post_filter=Status(Code.UNSCHEDULABLE, "still not schedulable"),
                pre_bind_pre_flight=None,
            ),
        ),
        (
            gpu_pod(),
            [device_class("gpu-class", GPU)],
            node_info(),
            DEFAULTS,
            want(
                pre_filter=None,
                filter=Status(Code.UNSCHEDULABLE_AND_UNRESOLVABLE, "cannot allocate all claims"),
                post_filter=Status(Code.UNSCHEDULABLE, "still not schedulable"),
                pre_bind_pre_flight=None,
            ),
        ),
        (
            make_pod(
                "my-pod",
                containers=[
                    {
                        "name": "c",
                        "resources": {
                            "requests": {"deviceclass.resource.kubernetes.io/gpu-class": "1"},
                            "limits": {"deviceclass.resource.kubernetes.io/gpu-class": "1"},
                        },
                    }
                ],
            ),
            [device_class("gpu-class")],
            node_info(),
            DEFAULTS,
            want(
                pre_filter=None,
                filter=Status(Code.UNSCHEDULABLE_AND_UNRESOLVABLE, "cannot allocate all claims"),
                post_filter=Status(Code.UNSCHEDULABLE, "still not schedulable"),
                pre_bind_pre_flight=None,
            ),
        ),
        (
            make_pod(
                "my-pod",
                containers=[
                    {
                        "name": "c",
                        "resources": {
                            "requests": {GPU: "1", "example.com/fpga": "1"},
                            "limits": {GPU: "1", "example.com/fpga": "1"},
                        },
                    }
                ],
            ),
            [device_class("gpu-class", GPU)],
            node_info(**{GPU: "1"}),
            DEFAULTS,
            want(
                pre_filter=None,
                filter=Status(Code.UNSCHEDULABLE_AND_UNRESOLVABLE, "cannot fit resource"),
                post_filter=Status(Code.UNSCHEDULABLE, "still not schedulable"),
                pre_bind_pre_flight=None,
            ),
        ),
        (
            gpu_pod(),
            [device_class("gpu-class", GPU)],
            node_info(),
            Features(enable_dynamic_resource_allocation=True, enable_dra_extended_resource=False),
            want(),
        ),
    ],
    ids=[
        "empty",
        "extended resource without any device class",
        "DRA-disabled",
        "non-DRA-extended-resource-name-with-zero-allocatable (no class maps it)",
        "extended-resource-name-with-node-resource (a device plugin provides it)",
        "extended-resource-name-with-zero-allocatable, and no devices to allocate",
        "extended-resource-name-no-resource",
        "implicit-extended-resource-name, and no devices to allocate",
        "a second extended resource neither the node nor a class provides",
        "DRAExtendedResource disabled ignores the class",
    ],
)
def test_plugin(pod, objects, info, features, expected):
    assert run(plugin(objects, features), pod, info) == expected


def test_a_missing_state_is_an_error_where_upstream_reads_it():
    pl = plugin()
    state = CycleState()
    not_found = Status.error("not found")
    assert pl.post_filter(state, make_pod(), NodeToStatus())[1] == not_found
    assert pl.score(state, make_pod(), node_info()) == (0, not_found)
    assert pl.filter(state, make_pod(), node_info()) == not_found
    assert pl.pre_bind_pre_flight(state, make_pod(), "worker")[1] == not_found


def test_scores_stay_zero_after_normalization():
    scores = [NodeScore("a", 0), NodeScore("b", 0)]
    assert plugin().normalize_score(CycleState(), make_pod(), scores) is None
    assert [s.score for s in scores] == [0, 0]


@pytest.mark.parametrize(
    ("args", "features", "message"),
    [
        (None, DEFAULTS, "got args of type <nil>, want *DynamicResourcesArgs"),
        (
            DynamicResourcesArgs(filter_timeout=timedelta(seconds=-1)),
            DEFAULTS,
            "filterTimeout: Invalid value",
        ),
    ],
    ids=["args of another type are refused", "a negative filter timeout is refused"],
)
def test_construction_checks_args_as_upstreams_new(args, features, message):
    with pytest.raises(ValueError) as raised:
        DynamicResources(args, FakeHandle(), features)
    assert str(raised.value).startswith(message)


def test_a_disabled_plugin_needs_no_args_and_registers_no_events():
    pl = DynamicResources(None, FakeHandle(), Features(enable_dynamic_resource_allocation=False))
    assert pl.events_to_register() == []


@pytest.mark.parametrize(
    ("queueing_hints", "node_actions"),
    [
        (True, ActionType.ADD | ActionType.UPDATE_NODE_LABEL | ActionType.UPDATE_NODE_ALLOCATABLE),
        (
            False,
            ActionType.ADD
            | ActionType.UPDATE_NODE_LABEL
            | ActionType.UPDATE_NODE_ALLOCATABLE
            | ActionType.UPDATE_NODE_TAINT,
        ),
    ],
    ids=["with queueing hints", "without queueing hints taint updates too"],
)
def test_it_registers_upstreams_events(queueing_hints, node_actions):
    features = Features(
        enable_dynamic_resource_allocation=True, enable_scheduling_queue_hint=queueing_hints
    )
    add_or_update = ActionType.ADD | ActionType.UPDATE
    assert [
        (e.event, e.queueing_hint_fn is not None)
        for e in plugin(features=features).events_to_register()
    ] == [
        (ClusterEvent(EventResource.NODE, node_actions), False),
        (ClusterEvent(EventResource.RESOURCE_CLAIM, add_or_update), True),
        (ClusterEvent(EventResource.POD, ActionType.UPDATE_POD_GENERATED_RESOURCE_CLAIM), True),
        (ClusterEvent(EventResource.DEVICE_CLASS, add_or_update), False),
        (ClusterEvent(EventResource.RESOURCE_SLICE, add_or_update), False),
    ]


@pytest.mark.parametrize(
    ("pod", "old", "new", "want_hint"),
    [
        (make_pod("foo"), None, claim("c", False), QueueingHint.QUEUE_SKIP),
        (make_pod("foo"), claim("c", True), claim("c", False), QueueingHint.QUEUE),
        (make_pod("foo"), claim("c", False), claim("c", True), QueueingHint.QUEUE_SKIP),
        (POD_WITH_CLAIM, None, claim("my-pod-my-resource", False), QueueingHint.QUEUE_SKIP),
        (POD_WITH_CLAIM, None, claim("other", False), QueueingHint.QUEUE_SKIP),
    ],
    ids=[
        "a claim another pod uses was created: skip",
        "a claim got deallocated, freeing devices: queue",
        "a claim got allocated: skip",
        "skip-wrong-claim: the pod's claim is not in the cluster yet, so it still waits",
        "skip-unrelated-claim",
    ],
)
def test_claim_hint(pod, old, new, want_hint):
    assert plugin().is_schedulable_after_claim_change(pod, old, new) == want_hint


MY_CLAIM = claim("my-pod-my-resource", False)
MY_CLAIM_ALLOCATED = claim("my-pod-my-resource", True)


@pytest.mark.parametrize(
    ("old", "new", "want_hint"),
    [
        (None, MY_CLAIM, QueueingHint.QUEUE),
        (MY_CLAIM, MY_CLAIM_ALLOCATED, QueueingHint.QUEUE),
        (MY_CLAIM, MY_CLAIM, QueueingHint.QUEUE_SKIP),
    ],
    ids=["queue-on-add", "queue-on-status-change", "skip-unchanged-status"],
)
def test_claim_hint_for_the_pods_own_claim(old, new, want_hint):
    pl = plugin([MY_CLAIM])
    assert pl.is_schedulable_after_claim_change(POD_WITH_CLAIM, old, new) == want_hint


def test_hints_refuse_other_objects():
    with pytest.raises(TypeError):
        plugin().is_schedulable_after_claim_change(make_pod(), None, "not-a-claim")
    with pytest.raises(TypeError):
        plugin().is_schedulable_after_pod_change(make_pod(), None, "not-a-pod")


def test_pod_hint_only_cares_about_the_pod_itself():
    pod = make_pod("foo")
    other = make_pod("foo2")
    assert plugin().is_schedulable_after_pod_change(POD_WITH_CLAIM, None, POD_WITH_CLAIM) == (
        QueueingHint.QUEUE_SKIP
    )
    assert plugin().is_schedulable_after_pod_change(pod, None, pod) == QueueingHint.QUEUE
    assert plugin().is_schedulable_after_pod_change(pod, None, other) == QueueingHint.QUEUE_SKIP
