"""Pod and node updates become the specific update events plugins register for."""

from __future__ import annotations

from typing import Any

import pytest

from framework.api.node import Node
from framework.features import FeatureGates
from framework.interface.cluster_events import (
    node_scheduling_properties_change,
    pod_scheduling_properties_change,
)
from framework.interface.events import ActionType, ClusterEvent, EventResource

from .helpers import make_pod


def node(
    *,
    labels: dict[str, str] | None = None,
    annotations: dict[str, str] | None = None,
    unschedulable: bool = False,
    taints: list[dict[str, Any]] | None = None,
    capacity: dict[str, str] | None = None,
    conditions: list[dict[str, Any]] | None = None,
    declared_features: list[str] | None = None,
) -> Node:
    status: dict[str, Any] = {}
    if capacity is not None:
        status["capacity"] = capacity
    if conditions is not None:
        status["conditions"] = conditions
    if declared_features is not None:
        status["declaredFeatures"] = declared_features
    metadata: dict[str, Any] = {"name": "n", "labels": labels or {}}
    if annotations:
        metadata["annotations"] = annotations
    return Node.from_dict(
        {
            "kind": "Node",
            "metadata": metadata,
            "spec": {"unschedulable": unschedulable, "taints": taints or []},
            "status": status,
        }
    )


def node_events(*actions: ActionType) -> list[ClusterEvent]:
    return [ClusterEvent(EventResource.NODE, action) for action in actions]


UNSCHEDULABLE_TAINT = {"key": "node.kubernetes.io/unschedulable", "effect": "NoSchedule"}
READY = {"type": "Ready", "status": "True", "reason": "Ready", "message": "Ready"}


@pytest.mark.parametrize(
    ("new", "old", "want"),
    [
        (node(), node(), []),
        (
            node(unschedulable=False),
            node(unschedulable=True),
            node_events(ActionType.UPDATE_NODE_TAINT),
        ),
        (node(unschedulable=True), node(unschedulable=False), []),
        (
            node(capacity={"cpu": "1000m", "memory": "100m", "example.com/foo": "1"}),
            node(capacity={"cpu": "1000m", "memory": "100m", "example.com/foo": "2"}),
            node_events(ActionType.UPDATE_NODE_ALLOCATABLE),
        ),
        (node(capacity={"memory": "1Ki"}), node(capacity={"memory": "1024"}), []),
        (
            node(labels={"foo": "bar"}),
            node(labels={"foo": "fuz"}),
            node_events(ActionType.UPDATE_NODE_LABEL),
        ),
        (
            node(taints=[{**UNSCHEDULABLE_TAINT, "value": ""}]),
            node(taints=[{**UNSCHEDULABLE_TAINT, "value": "foo"}]),
            node_events(ActionType.UPDATE_NODE_TAINT),
        ),
        (
            node(annotations={"foo": "bar"}),
            node(annotations={"foo": "fuz"}),
            node_events(ActionType.UPDATE_NODE_ANNOTATION),
        ),
        (node(), node(conditions=[READY]), node_events(ActionType.UPDATE_NODE_CONDITION)),
        (
            node(
                conditions=[
                    {
                        "type": "DiskPressure",
                        "status": "True",
                        "lastHeartbeatTime": "1970-01-01T00:00:02Z",
                    }
                ]
            ),
            node(
                conditions=[
                    {
                        "type": "DiskPressure",
                        "status": "True",
                        "lastHeartbeatTime": "1970-01-01T00:00:01Z",
                    }
                ]
            ),
            [],
        ),
        (
            node(conditions=[{"type": "Ready", "status": "True"}]),
            node(conditions=[{"type": "Ready", "status": "False"}]),
            node_events(ActionType.UPDATE_NODE_CONDITION),
        ),
        (
            node(labels={"foo": "bar"}, taints=[{**UNSCHEDULABLE_TAINT, "value": ""}]),
            node(taints=[{**UNSCHEDULABLE_TAINT, "value": "foo"}]),
            node_events(ActionType.UPDATE_NODE_LABEL, ActionType.UPDATE_NODE_TAINT),
        ),
    ],
    ids=[
        "no specific change gives no event",
        "a node becoming schedulable counts as a taint update",
        "a node becoming unschedulable gives no event",
        "an allocatable change is an allocatable update",
        "equal quantities written differently are no change",
        "a label change is a label update",
        "a taint change is a taint update",
        "an annotation change is an annotation update",
        "a condition change is a condition update",
        "a heartbeat alone is no condition change",
        "a condition status change is a condition update",
        "label and taint changes give both events in order",
    ],
)
def test_node_updates_become_specific_events(new, old, want):
    assert node_scheduling_properties_change(new, old) == want


@pytest.mark.parametrize(
    ("old", "new", "changed"),
    [
        (["featA", "featB"], ["featA", "featB"], False),
        (["featA"], ["featA", "featB"], True),
        (["featA", "featB"], ["featA"], True),
        (["featA"], ["featC"], True),
        (None, ["featA"], True),
        ([], ["featA"], True),
        (["featA"], None, True),
        (None, None, False),
    ],
    ids=[
        "no features changed",
        "features added",
        "features removed",
        "features different",
        "old features missing, new has features",
        "old features empty, new has features",
        "old has features, new has none",
        "both missing",
    ],
)
def test_declared_feature_changes_are_detected(old, new, changed):
    events = node_scheduling_properties_change(
        node(declared_features=new), node(declared_features=old)
    )
    assert events == (node_events(ActionType.UPDATE_NODE_DECLARED_FEATURE) if changed else [])


def test_declared_features_are_ignored_when_their_gate_is_off():
    gates = FeatureGates(
        {"NodeDeclaredFeatures": False, "InPlacePodLevelResourcesVerticalScaling": False}
    )
    assert node_scheduling_properties_change(node(declared_features=["a"]), node(), gates) == []


def app_pod(cpu: str, labels: dict[str, str] | None = None):
    return make_pod(
        "p",
        labels=labels,
        containers=[{"name": "app", "resources": {"requests": {"cpu": cpu}}}],
        status={"containerStatuses": [{"name": "app", "allocatedResources": {"cpu": cpu}}]},
    )


CLAIM_A = {"name": "my-claim", "resourceClaimName": "claim"}
CLAIM_B = {"name": "my-claim-2", "resourceClaimName": "claim-2"}
EXTENDED_A = {
    "requestMappings": [
        {"requestName": "request", "containerName": "c", "resourceName": "example.com/gpu"}
    ],
    "resourceClaimName": "claim",
}
EXTENDED_B = {**EXTENDED_A, "resourceClaimName": "claim-2"}


def pod_events(*actions: ActionType, resource: str = EventResource.UNSCHEDULABLE_POD):
    return [ClusterEvent(resource, action) for action in actions]


@pytest.mark.parametrize(
    ("new", "old", "want"),
    [
        (
            make_pod("p", labels={"foo": "bar"}, node_name="node"),
            make_pod("p", labels={"foo": "bar2"}, node_name="node"),
            pod_events(ActionType.UPDATE_POD_LABEL, resource=EventResource.ASSIGNED_POD),
        ),
        (
            make_pod("p", labels={"foo": "bar"}),
            make_pod("p", labels={"foo": "bar2"}),
            pod_events(ActionType.UPDATE_POD_LABEL),
        ),
        (app_pod("100m"), app_pod("101m"), pod_events(ActionType.UPDATE_POD_SCALE_DOWN)),
        (app_pod("101m"), app_pod("100m"), pod_events(ActionType.UPDATE)),
        (
            app_pod("100m", labels={"foo": "bar"}),
            app_pod("101m"),
            pod_events(ActionType.UPDATE_POD_LABEL, ActionType.UPDATE_POD_SCALE_DOWN),
        ),
        (
            make_pod("p", annotations={"foo": "bar"}),
            make_pod("p", annotations={"foo": "bar2"}),
            pod_events(ActionType.UPDATE),
        ),
        (
            make_pod("p", schedulingGates=[]),
            make_pod("p", schedulingGates=[{"name": "foo"}]),
            pod_events(ActionType.UPDATE_POD_SCHEDULING_GATES_ELIMINATED),
        ),
        (
            make_pod("p", schedulingGates=[{"name": "foo"}]),
            make_pod("p", schedulingGates=[{"name": "foo"}, {"name": "bar"}]),
            pod_events(ActionType.UPDATE),
        ),
        (
            make_pod("p", tolerations=[{"key": "key"}, {"key": "key2"}]),
            make_pod("p", tolerations=[{"key": "key"}]),
            pod_events(ActionType.UPDATE_POD_TOLERATION),
        ),
        (
            make_pod("p", status={"resourceClaimStatuses": [CLAIM_A]}),
            make_pod("p"),
            pod_events(ActionType.UPDATE_POD_GENERATED_RESOURCE_CLAIM),
        ),
        (
            make_pod("p", status={"resourceClaimStatuses": [CLAIM_A, CLAIM_B]}),
            make_pod("p", status={"resourceClaimStatuses": [CLAIM_B, CLAIM_A]}),
            pod_events(ActionType.UPDATE_POD_GENERATED_RESOURCE_CLAIM),
        ),
        (
            make_pod("p", status={"extendedResourceClaimStatus": EXTENDED_A}),
            make_pod("p"),
            pod_events(ActionType.UPDATE_POD_GENERATED_RESOURCE_CLAIM),
        ),
        (
            make_pod("p", status={"extendedResourceClaimStatus": EXTENDED_B}),
            make_pod("p", status={"extendedResourceClaimStatus": EXTENDED_A}),
            pod_events(ActionType.UPDATE_POD_GENERATED_RESOURCE_CLAIM),
        ),
    ],
    ids=[
        "an assigned pod's update is an AssignedPod event",
        "a label change is a label update",
        "a smaller request is a scale down",
        "a larger request is a plain update",
        "a label change and a scale down give both events in order",
        "an untracked change is a plain update",
        "removing the last scheduling gate is a gates-eliminated update",
        "removing one of several gates is a plain update",
        "an added toleration is a toleration update",
        "a new generated claim is a generated claim update",
        "swapped generated claims are a generated claim update",
        "a new extended resource claim is a generated claim update",
        "a changed extended resource claim is a generated claim update",
    ],
)
def test_pod_updates_become_specific_events(new, old, want):
    assert pod_scheduling_properties_change(new, old) == want
