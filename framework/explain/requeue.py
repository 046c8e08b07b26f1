"""What would requeue a rejected pod: the cluster events its rejecting plugins register.

kube-scheduler moves an unschedulable pod back to the active queue when an event arrives that
a plugin which rejected it registered (``EventsToRegister``) and whose queueing hint says
Queue. This reads the registrations of the profile's own plugin instances, so feature gates
(queueing hints on or off, in-place scaling...) shape the answer as they shape the queue, and
words each event as people would say it ("a Node added or its allocatable grown").
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from framework.explain.requeue_domains import DOMAIN_HINTS
from framework.interface.events import ActionType, ClusterEvent, EventResource
from framework.interface.plugins import EnqueueExtensions

if TYPE_CHECKING:
    from framework.explain.filter_run import FilterRun

NOUNS = {
    EventResource.POD: "a Pod",
    EventResource.ASSIGNED_POD: "a scheduled Pod",
    EventResource.UNSCHEDULABLE_POD: "a pending Pod",
    EventResource.NODE: "a Node",
    EventResource.PERSISTENT_VOLUME: "a PersistentVolume",
    EventResource.PERSISTENT_VOLUME_CLAIM: "a PersistentVolumeClaim",
    EventResource.CSI_NODE: "a CSINode",
    EventResource.CSI_DRIVER: "a CSIDriver",
    EventResource.VOLUME_ATTACHMENT: "a VolumeAttachment",
    EventResource.CSI_STORAGE_CAPACITY: "a CSIStorageCapacity",
    EventResource.STORAGE_CLASS: "a StorageClass",
    EventResource.RESOURCE_CLAIM: "a ResourceClaim",
    EventResource.RESOURCE_SLICE: "a ResourceSlice",
    EventResource.DEVICE_CLASS: "a DeviceClass",
    EventResource.POD_GROUP: "a PodGroup",
    EventResource.WILDCARD: "any object",
}

ACTIONS = (
    (ActionType.ADD, "added"),
    (ActionType.DELETE, "deleted"),
    (ActionType.UPDATE_NODE_ALLOCATABLE, "its allocatable changed"),
    (ActionType.UPDATE_NODE_LABEL, "its labels changed"),
    (ActionType.UPDATE_NODE_TAINT, "its taints changed"),
    (ActionType.UPDATE_NODE_CONDITION, "its conditions changed"),
    (ActionType.UPDATE_NODE_ANNOTATION, "its annotations changed"),
    (ActionType.UPDATE_NODE_DECLARED_FEATURE, "its declared features changed"),
    (ActionType.UPDATE_POD_LABEL, "its labels changed"),
    (ActionType.UPDATE_POD_SCALE_DOWN, "its requests scaled down"),
)

OWN_UPDATES = (
    (ActionType.UPDATE_POD_TOLERATION, "this pod's tolerations changed"),
    (ActionType.UPDATE_POD_SCHEDULING_GATES_ELIMINATED, "this pod's scheduling gates removed"),
    (ActionType.UPDATE_POD_GENERATED_RESOURCE_CLAIM, "this pod's generated ResourceClaim changed"),
)
"""Pod updates kube-scheduler only reports for unscheduled pods: changes of the pod itself."""

HINTED = {
    ("NodeResourcesFit", ActionType.UPDATE_NODE_ALLOCATABLE): "its allocatable grown",
    ("NodeResourcesFit", ActionType.DELETE): "deleted (freeing its requests)",
    ("TaintToleration", ActionType.UPDATE_NODE_TAINT): "its taints changed to ones tolerated",
    ("NodeAffinity", ActionType.UPDATE_NODE_LABEL): "its labels changed to match",
    ("NodeUnschedulable", ActionType.UPDATE_NODE_TAINT): "uncordoned",
}
"""Wordings that say what the plugin's queueing hint checks, beyond the bare action."""


@dataclass(frozen=True)
class Requeue:
    """The events one rejecting plugin registers, worded."""

    plugin: str
    events: list[str]

    def to_dict(self) -> dict[str, Any]:
        return {"plugin": self.plugin, "events": list(self.events)}


def requeue_events(run: FilterRun, plugins: list[str]) -> list[Requeue]:
    """For each rejecting plugin (in the given order), the events that may requeue the pod;
    for the topology plugins, the domains where a pod change would help come first."""
    out = []
    for name in plugins:
        plugin = run.framework.plugins_map.get(name)
        if not isinstance(plugin, EnqueueExtensions):
            if plugin is not None:
                out.append(Requeue(name, ["any change in the cluster"]))
            continue
        events = [describe_event(name, hinted.event) for hinted in plugin.events_to_register()]
        domains = DOMAIN_HINTS.get(name)
        if domains is not None:
            events = domains(run) + events
        out.append(Requeue(name, events or ["nothing: only a change of the pod itself"]))
    return out


def describe_event(plugin: str, event: ClusterEvent) -> str:
    """``a Node added or its allocatable grown`` for Node/Add|UpdateNodeAllocatable."""
    noun = NOUNS.get(event.resource, f"a {event.resource}")
    if event.action_type == ActionType.ALL:
        return f"{noun} added, changed or deleted"
    flags = event.action_type
    if flags & ActionType.UPDATE == ActionType.UPDATE:
        # Every kind of update: one word, not the list of all of them.
        actions = [
            HINTED.get((plugin, flag), words)
            for flag, words in ACTIONS
            if flags & flag and not flag & ActionType.UPDATE
        ]
        return f"{noun} {' or '.join([*actions, 'changed'])}"
    actions = [HINTED.get((plugin, flag), words) for flag, words in ACTIONS if flags & flag]
    own = [words for flag, words in OWN_UPDATES if flags & flag]
    phrases = []
    if actions:
        first = actions[0]
        if first.startswith("its "):
            first = f"whose {first.removeprefix('its ')}"
        phrases.append(" or ".join([f"{noun} {first}", *actions[1:]]))
    return " or ".join(phrases + own) or f"{noun} changed"
