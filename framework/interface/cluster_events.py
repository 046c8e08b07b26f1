"""The cluster events the scheduling queue itself raises, and how object updates become events.

A pod or node update is translated into the most specific action types that describe it
(``UpdatePodLabel``, ``UpdateNodeTaint``...), so that only plugins registered for that kind
of change are asked whether it may help a rejected pod. The special labels name queue
moves that no object change caused (timeouts, backoff expiry, forced activation).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from typing import Any

from framework.api.node import Node
from framework.api.pod import Pod
from framework.api.resources import pod_request_list
from framework.features import DEFAULT_FEATURE_GATES, FeatureGates
from framework.interface.events import ActionType, ClusterEvent, EventResource

SCHEDULE_ATTEMPT_FAILURE = "ScheduleAttemptFailure"
"""A scheduling attempt failed and the pod came back to the queue."""
BACKOFF_COMPLETE = "BackoffComplete"
"""The pod finished its backoff and moved to the active queue."""
POP_FROM_BACKOFF_Q = "PopFromBackoffQ"
"""The active queue was empty, so the pod was taken from the backoff queue."""
FORCE_ACTIVATE = "ForceActivate"
"""Something (usually a plugin) asked for the pod to be tried again at once."""
UNSCHEDULABLE_TIMEOUT = "UnschedulableTimeout"
"""The pod stayed unschedulable longer than the maximum and was flushed out."""

EVENT_ASSIGNED_POD_ADD = ClusterEvent(EventResource.ASSIGNED_POD, ActionType.ADD)
EVENT_ASSIGNED_POD_UPDATE = ClusterEvent(EventResource.ASSIGNED_POD, ActionType.UPDATE)
EVENT_ASSIGNED_POD_DELETE = ClusterEvent(EventResource.ASSIGNED_POD, ActionType.DELETE)
EVENT_UNSCHEDULED_POD_ADD = ClusterEvent(EventResource.UNSCHEDULABLE_POD, ActionType.ADD)
EVENT_UNSCHEDULED_POD_UPDATE = ClusterEvent(EventResource.UNSCHEDULABLE_POD, ActionType.UPDATE)
EVENT_UNSCHEDULED_POD_DELETE = ClusterEvent(EventResource.UNSCHEDULABLE_POD, ActionType.DELETE)
EVENT_UNSCHEDULABLE_TIMEOUT = ClusterEvent(
    EventResource.WILDCARD, ActionType.ALL, UNSCHEDULABLE_TIMEOUT
)
EVENT_FORCE_ACTIVATE = ClusterEvent(EventResource.WILDCARD, ActionType.ALL, FORCE_ACTIVATE)


def match_any_cluster_event(event: ClusterEvent, registered: Iterable[ClusterEvent]) -> bool:
    """True if any registered event covers ``event``."""
    return any(candidate.matches(event) for candidate in registered)


# -- pod updates -------------------------------------------------------------------------------


def pod_scheduling_properties_change(
    new_pod: Pod, old_pod: Pod, features: FeatureGates = DEFAULT_FEATURE_GATES
) -> list[ClusterEvent]:
    """The update events a pod change amounts to; a plain Update when nothing specific changed.

    The resource is AssignedPod for a bound pod and UnschedulablePod for a pending one.
    """
    resource = (
        EventResource.ASSIGNED_POD if new_pod.spec.node_name else (EventResource.UNSCHEDULABLE_POD)
    )
    extractors: list[Callable[[Pod, Pod], ActionType]] = [
        _pod_labels_change,
        _pod_scale_down(features),
        _pod_scheduling_gates_eliminated,
        _pod_toleration_change,
    ]
    if features.enabled("DynamicResourceAllocation"):
        extractors.append(_pod_generated_resource_claim_change)
    events = [
        ClusterEvent(resource, action)
        for action in (extract(new_pod, old_pod) for extract in extractors)
        if action != ActionType.NONE
    ]
    return events or [ClusterEvent(resource, ActionType.UPDATE)]


pod_scheduling_property_changed = pod_scheduling_properties_change
"""Alias under the name the project's briefs use."""


def _pod_labels_change(new_pod: Pod, old_pod: Pod) -> ActionType:
    return ActionType.UPDATE_POD_LABEL if new_pod.labels != old_pod.labels else ActionType.NONE


def _pod_scale_down(features: FeatureGates) -> Callable[[Pod, Pod], ActionType]:
    use_status = features.enabled("InPlacePodVerticalScaling")
    pod_level_resize = features.enabled("InPlacePodLevelResourcesVerticalScaling")

    def extract(new_pod: Pod, old_pod: Pod) -> ActionType:
        options = {
            "use_status_resources": use_status,
            "in_place_pod_level_resources_vertical_scaling": pod_level_resize,
        }
        new_requests = pod_request_list(new_pod, **options)
        for name, old_request in pod_request_list(old_pod, **options).items():
            new_request = new_requests.get(name)
            if new_request is None or old_request.milli_value() > new_request.milli_value():
                return ActionType.UPDATE_POD_SCALE_DOWN
        return ActionType.NONE

    return extract


def _pod_toleration_change(new_pod: Pod, old_pod: Pod) -> ActionType:
    # The API only allows adding tolerations, so a different count means a change.
    if len(new_pod.spec.tolerations) != len(old_pod.spec.tolerations):
        return ActionType.UPDATE_POD_TOLERATION
    return ActionType.NONE


def _pod_scheduling_gates_eliminated(new_pod: Pod, old_pod: Pod) -> ActionType:
    if not new_pod.spec.scheduling_gates and old_pod.spec.scheduling_gates:
        return ActionType.UPDATE_POD_SCHEDULING_GATES_ELIMINATED
    return ActionType.NONE


def _pod_generated_resource_claim_change(new_pod: Pod, old_pod: Pod) -> ActionType:
    if _resource_claim_statuses(new_pod) != _resource_claim_statuses(old_pod):
        return ActionType.UPDATE_POD_GENERATED_RESOURCE_CLAIM
    return ActionType.NONE


def _resource_claim_statuses(pod: Pod) -> tuple[Any, Any]:
    """The generated-claim status fields, read from the manifest (the Pod model omits them)."""
    status = pod.manifest.get("status") or {}
    claims = tuple(
        (entry.get("name", ""), entry.get("resourceClaimName"))
        for entry in status.get("resourceClaimStatuses") or ()
        if isinstance(entry, Mapping)
    )
    return claims, status.get("extendedResourceClaimStatus") or None


# -- node updates ------------------------------------------------------------------------------


def node_scheduling_properties_change(
    new_node: Node, old_node: Node, features: FeatureGates = DEFAULT_FEATURE_GATES
) -> list[ClusterEvent]:
    """The Node update events a node change amounts to (empty when nothing relevant changed)."""
    extractors: list[Callable[[Node, Node], ActionType]] = [
        _node_spec_unschedulable_change,
        _node_allocatable_change,
        _node_labels_change,
        _node_taints_change,
        _node_conditions_change,
        _node_annotations_change,
    ]
    if features.enabled("NodeDeclaredFeatures"):
        extractors.append(_node_features_change)
    return [
        ClusterEvent(EventResource.NODE, action)
        for action in (extract(new_node, old_node) for extract in extractors)
        if action != ActionType.NONE
    ]


def _node_spec_unschedulable_change(new_node: Node, old_node: Node) -> ActionType:
    # Only becoming schedulable can help a pod; upstream reports it as a taint change.
    if new_node.spec.unschedulable != old_node.spec.unschedulable and (
        not new_node.spec.unschedulable
    ):
        return ActionType.UPDATE_NODE_TAINT
    return ActionType.NONE


def _node_allocatable_change(new_node: Node, old_node: Node) -> ActionType:
    if new_node.status.allocatable != old_node.status.allocatable:
        return ActionType.UPDATE_NODE_ALLOCATABLE
    return ActionType.NONE


def _node_labels_change(new_node: Node, old_node: Node) -> ActionType:
    return ActionType.UPDATE_NODE_LABEL if new_node.labels != old_node.labels else ActionType.NONE


def _node_taints_change(new_node: Node, old_node: Node) -> ActionType:
    if new_node.spec.taints != old_node.spec.taints:
        return ActionType.UPDATE_NODE_TAINT
    return ActionType.NONE


def _node_conditions_change(new_node: Node, old_node: Node) -> ActionType:
    # Only the status of each condition type matters, not reasons, messages or timestamps.
    def statuses(node: Node) -> dict[str, str]:
        return {condition.type: condition.status for condition in node.status.conditions}

    if statuses(new_node) != statuses(old_node):
        return ActionType.UPDATE_NODE_CONDITION
    return ActionType.NONE


def _node_annotations_change(new_node: Node, old_node: Node) -> ActionType:
    if new_node.metadata.annotations != old_node.metadata.annotations:
        return ActionType.UPDATE_NODE_ANNOTATION
    return ActionType.NONE


def _node_features_change(new_node: Node, old_node: Node) -> ActionType:
    if new_node.status.declared_features != old_node.status.declared_features:
        return ActionType.UPDATE_NODE_DECLARED_FEATURE
    return ActionType.NONE
