"""NodeResourcesFit's registered events and queueing hints, ported from fit_test.go."""

from __future__ import annotations

from typing import Any

import pytest

from framework.api.meta import KubeObject, ObjectMeta
from framework.config.types import (
    LEAST_ALLOCATED,
    NodeResourcesFitArgs,
    ResourceSpec,
    ScoringStrategy,
)
from framework.interface.events import ActionType, ClusterEvent, EventResource, QueueingHint
from framework.plugins.feature import Features
from framework.plugins.noderesources.fit import (
    Fit,
    have_any_requested_resources_increased,
    is_fit,
)
from tests.framework.plugins.noderesources.builders import (
    EXTENDED_RESOURCE_A,
    EXTENDED_RESOURCE_B,
    HUGE_PAGE_RESOURCE_A,
    make_node,
    make_pod,
    req_pod,
    resource_pod,
)
from tests.framework.plugins.noderesources.builders import usage as U

QUEUE = QueueingHint.QUEUE
SKIP = QueueingHint.QUEUE_SKIP


def fit(**features: bool) -> Fit:
    strategy = ScoringStrategy(
        type=LEAST_ALLOCATED, resources=[ResourceSpec("cpu", 1), ResourceSpec("memory", 1)]
    )
    return Fit(NodeResourcesFitArgs(scoring_strategy=strategy), None, Features(**features))


def pod_level_pod(requests: dict[str, str], **kw: Any):
    return make_pod(pod_requests=requests, **kw)


NODE_EVENT_WITHOUT_HINTS = ClusterEvent(
    EventResource.NODE,
    ActionType.ADD
    | ActionType.UPDATE_NODE_ALLOCATABLE
    | ActionType.UPDATE_NODE_TAINT
    | ActionType.UPDATE_NODE_LABEL,
)

EVENTS_CASES = [
    (
        "Register events with InPlacePodVerticalScaling feature enabled",
        {"enable_in_place_pod_vertical_scaling": True},
        [
            ClusterEvent(EventResource.POD, ActionType.UPDATE_POD_SCALE_DOWN | ActionType.DELETE),
            NODE_EVENT_WITHOUT_HINTS,
        ],
    ),
    (
        "Register events with SchedulingQueueHint feature enabled",
        {"enable_scheduling_queue_hint": True},
        [
            ClusterEvent(EventResource.POD, ActionType.DELETE),
            ClusterEvent(EventResource.NODE, ActionType.ADD | ActionType.UPDATE_NODE_ALLOCATABLE),
        ],
    ),
    (
        "Register events with InPlacePodVerticalScaling feature disabled",
        {},
        [ClusterEvent(EventResource.POD, ActionType.DELETE), NODE_EVENT_WITHOUT_HINTS],
    ),
    (
        "Register events with DRAExtendedResource feature enabled",
        {"enable_dra_extended_resource": True},
        [
            ClusterEvent(EventResource.POD, ActionType.DELETE),
            NODE_EVENT_WITHOUT_HINTS,
            ClusterEvent(EventResource.DEVICE_CLASS, ActionType.ADD | ActionType.UPDATE),
        ],
    ),
]


@pytest.mark.parametrize(
    ("features", "want"),
    [case[1:] for case in EVENTS_CASES],
    ids=[case[0] for case in EVENTS_CASES],
)
def test_it_registers_the_events_that_can_free_resources(features, want):
    events = fit(**features).events_to_register()

    assert [e.event for e in events] == want
    assert all(e.queueing_hint_fn is not None for e in events)


CPU_1 = {"cpu": "1"}

POD_EVENT_CASES = [
    (
        "queue on other pod deleted",
        req_pod(CPU_1, name="pod1"),
        req_pod(CPU_1, name="pod2", node_name="fake"),
        None,
        True,
        QUEUE,
    ),
    ("skip queue on unscheduled pod deleted", make_pod(), make_pod(), None, True, SKIP),
    (
        "queue on nominated pod deleted",
        req_pod(CPU_1, name="pod1", uid="uid0"),
        req_pod({"cpu": "2"}, name="pod2", uid="uid1", nominated_node_name="fake"),
        None,
        True,
        QUEUE,
    ),
    (
        "skip queue on disable inplace pod vertical scaling",
        req_pod(CPU_1, name="pod1"),
        req_pod({"cpu": "2"}, name="pod2", node_name="fake"),
        req_pod(CPU_1, name="pod2", node_name="fake"),
        False,
        SKIP,
    ),
    (
        "skip queue on other unscheduled pod",
        req_pod(CPU_1, name="pod1", uid="uid0"),
        req_pod({"cpu": "2"}, name="pod2", uid="uid1"),
        req_pod(CPU_1, name="pod2", uid="uid1"),
        True,
        SKIP,
    ),
    (
        "skip queue on other pod unrelated resource scaled down",
        req_pod(CPU_1, name="pod1", uid="pod1"),
        req_pod({"memory": "2"}, name="pod2", uid="pod2", node_name="fake"),
        req_pod({"memory": "1"}, name="pod2", uid="pod2", node_name="fake"),
        True,
        SKIP,
    ),
    (
        "skip queue on other pod unrelated pod-level resource scaled down",
        pod_level_pod(CPU_1, name="pod1", uid="pod1"),
        pod_level_pod({"memory": "2"}, name="pod2", uid="pod2", node_name="fake"),
        pod_level_pod({"memory": "1"}, name="pod2", uid="pod2", node_name="fake"),
        True,
        SKIP,
    ),
    (
        "queue on other pod some resource scale down",
        req_pod(CPU_1, name="pod1", uid="pod1"),
        req_pod({"cpu": "2"}, name="pod2", uid="pod2", node_name="fake"),
        req_pod(CPU_1, name="pod2", uid="pod2", node_name="fake"),
        True,
        QUEUE,
    ),
    (
        "queue on other pod some pod-level resource scale down",
        pod_level_pod(CPU_1, name="pod1", uid="pod1"),
        pod_level_pod({"cpu": "2"}, name="pod2", uid="pod2", node_name="fake"),
        pod_level_pod(CPU_1, name="pod2", uid="pod2", node_name="fake"),
        True,
        QUEUE,
    ),
    (
        "queue on target pod some resource scale down",
        req_pod(CPU_1, name="pod1", uid="pod1"),
        req_pod({"cpu": "2"}, name="pod1", uid="pod1"),
        req_pod(CPU_1, name="pod1", uid="pod1"),
        True,
        QUEUE,
    ),
    (
        "queue on target pod some pod-level resource scale down",
        pod_level_pod(CPU_1, name="pod1", uid="pod1"),
        pod_level_pod({"cpu": "2"}, name="pod1", uid="pod1"),
        pod_level_pod(CPU_1, name="pod1", uid="pod1"),
        True,
        QUEUE,
    ),
]


@pytest.mark.parametrize(
    ("pod", "old", "new", "in_place", "want"),
    [case[1:] for case in POD_EVENT_CASES],
    ids=[case[0] for case in POD_EVENT_CASES],
)
def test_it_requeues_after_pod_events_that_may_free_resources(pod, old, new, in_place, want):
    plugin = fit(enable_in_place_pod_vertical_scaling=in_place)

    assert plugin.is_schedulable_after_pod_event(pod, old, new) == want


@pytest.mark.parametrize(
    ("old", "new"),
    [("not-a-pod", None), (None, "not-a-pod")],
    ids=["a wrong old object is an error", "a wrong new object is an error"],
)
def test_it_raises_on_pod_events_that_carry_something_else(old, new):
    with pytest.raises(TypeError):
        fit(enable_in_place_pod_vertical_scaling=True).is_schedulable_after_pod_event(
            make_pod(), old, new
        )


EXT_A_2 = {EXTENDED_RESOURCE_A: 2}

NODE_EVENT_CASES = [
    (
        "skip queue on node add without sufficient resources",
        resource_pod(U(memory=2)),
        None,
        make_node(capacity={"memory": "1"}),
        SKIP,
    ),
    (
        "skip queue on node add without required resource type",
        resource_pod(U(scalars={EXTENDED_RESOURCE_A: 1})),
        None,
        make_node(capacity={EXTENDED_RESOURCE_B: "1"}),
        SKIP,
    ),
    (
        "queue on node add with sufficient resources",
        resource_pod(U(memory=2, scalars={EXTENDED_RESOURCE_A: 1})),
        None,
        make_node(capacity={"memory": "4", EXTENDED_RESOURCE_A: "2"}),
        QUEUE,
    ),
    (
        "skip queue on node unrelated changes",
        resource_pod(U(memory=2, scalars={EXTENDED_RESOURCE_A: 1})),
        make_node(capacity={"memory": "2", EXTENDED_RESOURCE_A: "2"}),
        make_node(capacity={"memory": "2", EXTENDED_RESOURCE_A: "1", EXTENDED_RESOURCE_B: "2"}),
        SKIP,
    ),
    (
        "queue on pod requested resources increase",
        resource_pod(U(memory=2, scalars={EXTENDED_RESOURCE_A: 1})),
        make_node(capacity={"memory": "2", EXTENDED_RESOURCE_A: "1"}),
        make_node(capacity={"memory": "2", EXTENDED_RESOURCE_A: "2"}),
        QUEUE,
    ),
    (
        "skip queue on node changes from suitable to unsuitable",
        resource_pod(U(memory=2, scalars={EXTENDED_RESOURCE_A: 1})),
        make_node(capacity={"memory": "4", EXTENDED_RESOURCE_A: "2"}),
        make_node(capacity={"memory": "1", EXTENDED_RESOURCE_A: "2"}),
        SKIP,
    ),
    (
        "queue on node changes from unsuitable to suitable",
        resource_pod(U(memory=2, scalars={EXTENDED_RESOURCE_A: 1})),
        make_node(capacity={"memory": "1", EXTENDED_RESOURCE_A: "2"}),
        make_node(capacity={"memory": "4", EXTENDED_RESOURCE_A: "2"}),
        QUEUE,
    ),
]


@pytest.mark.parametrize(
    ("pod", "old", "new", "want"),
    [case[1:] for case in NODE_EVENT_CASES],
    ids=[case[0] for case in NODE_EVENT_CASES],
)
def test_it_requeues_after_node_events_that_make_the_pod_fit(pod, old, new, want):
    assert fit().is_schedulable_after_node_change(pod, old, new) == want


@pytest.mark.parametrize(
    ("old", "new"),
    [(None, "not-a-node"), ("not-a-node", make_node())],
    ids=["a wrong new object is an error", "a wrong old object is an error"],
)
def test_it_raises_on_node_events_that_carry_something_else(old, new):
    with pytest.raises(TypeError):
        fit().is_schedulable_after_node_change(make_pod(), old, new)


IS_FIT_CASES = [
    ("nil node", make_pod(), None, False),
    (
        "insufficient resource",
        req_pod({"cpu": "2"}),
        make_node(capacity={"cpu": "1"}),
        False,
    ),
    ("sufficient resource", req_pod({"cpu": "1"}), make_node(capacity={"cpu": "2"}), True),
    (
        "insufficient pod-level resource",
        pod_level_pod({"cpu": "2"}),
        make_node(capacity={"cpu": "1"}),
        False,
    ),
    (
        "sufficient pod-level resource",
        pod_level_pod({"cpu": "2"}),
        make_node(capacity={"cpu": "2"}),
        True,
    ),
    (
        "sufficient pod-level resource hugepages",
        pod_level_pod({HUGE_PAGE_RESOURCE_A: "2Mi"}),
        make_node(capacity={HUGE_PAGE_RESOURCE_A: "2Mi"}),
        True,
    ),
    (
        "insufficient pod-level resource hugepages",
        pod_level_pod({HUGE_PAGE_RESOURCE_A: "4Mi"}),
        make_node(capacity={HUGE_PAGE_RESOURCE_A: "2Mi"}),
        False,
    ),
]


@pytest.mark.parametrize(
    ("pod", "node", "want"),
    [case[1:] for case in IS_FIT_CASES],
    ids=[case[0] for case in IS_FIT_CASES],
)
def test_it_queues_an_added_node_only_if_the_pod_fits_it(pod, node, want):
    plugin = fit(enable_pod_level_resources=True)

    if node is None:
        assert is_fit(pod, None, True) is False
    else:
        assert plugin.is_schedulable_after_node_change(pod, None, node) == (QUEUE if want else SKIP)


ALL_ONES = {"pods": "1", "cpu": "1", "memory": "1", "ephemeral-storage": "1"}

INCREASED_CASES = [
    (
        "no requested resources",
        resource_pod(U()),
        make_node(capacity={**ALL_ONES, EXTENDED_RESOURCE_A: "1"}),
        make_node(
            capacity={
                "pods": "1",
                "cpu": "2",
                "memory": "2",
                "ephemeral-storage": "2",
                EXTENDED_RESOURCE_A: "2",
            }
        ),
        False,
    ),
    (
        "no requested resources pods increased",
        resource_pod(U()),
        make_node(capacity={**ALL_ONES, EXTENDED_RESOURCE_A: "1"}),
        make_node(capacity={**ALL_ONES, "pods": "2", EXTENDED_RESOURCE_A: "1"}),
        True,
    ),
    (
        "scalar resources not in node",
        resource_pod(U(2, 2, 2, scalars=EXT_A_2)),
        make_node(capacity={"cpu": "1", "memory": "2", "ephemeral-storage": "3"}),
        make_node(capacity={"cpu": "1", "memory": "2", "ephemeral-storage": "1"}),
        False,
    ),
    (
        "requested resources decreased",
        resource_pod(U(2, 2, 2, scalars=EXT_A_2)),
        make_node(
            capacity={"cpu": "1", "memory": "2", "ephemeral-storage": "3", EXTENDED_RESOURCE_A: "4"}
        ),
        make_node(
            capacity={"cpu": "1", "memory": "2", "ephemeral-storage": "1", EXTENDED_RESOURCE_A: "1"}
        ),
        False,
    ),
    (
        "requested resources increased",
        resource_pod(U(2, 2, 2, scalars=EXT_A_2)),
        make_node(
            capacity={"cpu": "1", "memory": "2", "ephemeral-storage": "3", EXTENDED_RESOURCE_A: "4"}
        ),
        make_node(
            capacity={"cpu": "3", "memory": "4", "ephemeral-storage": "3", EXTENDED_RESOURCE_A: "4"}
        ),
        True,
    ),
    (
        "non requested resources decreased",
        resource_pod(U(2, 2)),
        make_node(
            capacity={"cpu": "1", "memory": "2", "ephemeral-storage": "3", EXTENDED_RESOURCE_A: "4"}
        ),
        make_node(
            capacity={"cpu": "1", "memory": "2", "ephemeral-storage": "1", EXTENDED_RESOURCE_A: "1"}
        ),
        False,
    ),
    (
        "non requested resources increased",
        resource_pod(U(2, 2)),
        make_node(
            capacity={"cpu": "1", "memory": "2", "ephemeral-storage": "3", EXTENDED_RESOURCE_A: "4"}
        ),
        make_node(
            capacity={"cpu": "1", "memory": "2", "ephemeral-storage": "5", EXTENDED_RESOURCE_A: "6"}
        ),
        False,
    ),
]


@pytest.mark.parametrize(
    ("pod", "original", "modified", "want"),
    [case[1:] for case in INCREASED_CASES],
    ids=[case[0] for case in INCREASED_CASES],
)
def test_it_notices_when_a_node_grows_in_what_the_pod_requests(pod, original, modified, want):
    assert have_any_requested_resources_increased(pod, original, modified) == want


class DeviceClass(KubeObject):
    """Just enough of resource.k8s.io DeviceClass for the hint (the engine has no such kind)."""

    KIND = "DeviceClass"
    NAMESPACED = False


def device_class(name: str = "class", extended_resource_name: str | None = None) -> DeviceClass:
    spec = (
        {} if extended_resource_name is None else {"extendedResourceName": extended_resource_name}
    )
    return DeviceClass(ObjectMeta(name=name), manifest={"metadata": {"name": name}, "spec": spec})


GPU = "example.com/gpu"

DEVICE_CLASS_CASES = [
    (
        "skip queue on class nil extended resource name pointer",
        resource_pod(U(memory=2)),
        device_class(),
        device_class(),
        SKIP,
    ),
    (
        "skip queue on class same extended resource name",
        resource_pod(U(memory=2)),
        device_class(extended_resource_name=GPU),
        device_class(extended_resource_name=GPU),
        SKIP,
    ),
    (
        "queue on class add with implicit extended resource name",
        resource_pod(U(scalars={"deviceclass.resource.kubernetes.io/gpuclass": 1})),
        None,
        device_class("gpuclass", GPU),
        QUEUE,
    ),
    (
        "skip on class add with implicit extended resource name not matching",
        resource_pod(U(scalars={"deviceclass.resource.kubernetes.io/gpuclass": 1})),
        None,
        device_class("myclass", GPU),
        SKIP,
    ),
    (
        "skip on class add with explicit extended resource name not matching",
        resource_pod(U(scalars={"example.com/othergpu": 1})),
        None,
        device_class("myclass", GPU),
        SKIP,
    ),
    (
        "skip on class update with implicit extended resource name",
        resource_pod(U(scalars={"deviceclass.resource.kubernetes.io/gpuclass": 1})),
        device_class("gpuclass"),
        device_class("gpuclass", GPU),
        SKIP,
    ),
    (
        "queue on class add with extended resource name",
        resource_pod(U(scalars={GPU: 1})),
        None,
        device_class(extended_resource_name=GPU),
        QUEUE,
    ),
    (
        "queue on class update with extended resource name",
        resource_pod(U(scalars={GPU: 1})),
        device_class(extended_resource_name="example.com/gpu1"),
        device_class(extended_resource_name=GPU),
        QUEUE,
    ),
]


@pytest.mark.parametrize(
    ("pod", "old", "new", "want"),
    [case[1:] for case in DEVICE_CLASS_CASES],
    ids=[case[0] for case in DEVICE_CLASS_CASES],
)
def test_it_requeues_when_a_device_class_starts_providing_a_requested_resource(pod, old, new, want):
    assert fit().is_schedulable_after_device_class_event(pod, old, new) == want


@pytest.mark.parametrize(
    ("old", "new"),
    [(None, "not-a-class"), ("not-a-class", device_class())],
    ids=["a wrong new object is an error", "a wrong old object is an error"],
)
def test_it_raises_on_device_class_events_that_carry_something_else(old, new):
    with pytest.raises(TypeError):
        fit().is_schedulable_after_device_class_event(make_pod(), old, new)
