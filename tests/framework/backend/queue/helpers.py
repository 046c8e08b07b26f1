"""Builders for queue tests: upstream's fixture pods, hint maps and PreEnqueue plugins."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from framework.api.pod import DEFAULT_SCHEDULER_NAME, Pod
from framework.backend.queue.queueing_hints import QueueingHintFunction, QueueingHintMap
from framework.backend.queue.scheduling_queue import PriorityQueue
from framework.config.types import KubeSchedulerProfile, Plugins, PluginSet
from framework.config.types import Plugin as PluginRef
from framework.interface.events import ActionType, ClusterEvent, EventResource, QueueingHint
from framework.interface.node_info import PodInfo
from framework.interface.plugins import Plugin, PreEnqueuePlugin
from framework.interface.status import Code, Status
from framework.interface.types import QueuedPodInfo
from framework.plugins.queuesort.priority_sort import PrioritySort
from framework.runtime.framework import Framework
from framework.runtime.registry import Registry
from framework.testing.fake_plugins import FakeBind
from framework.util.clock import FakeClock

PROFILE = DEFAULT_SCHEDULER_NAME
START = 1_700_000_000.0
"""A start time on a whole second, like the aligned fake clocks of upstream's tests."""

NODE_ADD = ClusterEvent(EventResource.NODE, ActionType.ADD)
PV_ADD = ClusterEvent(EventResource.PERSISTENT_VOLUME, ActionType.ADD)
PV_UPDATE = ClusterEvent(EventResource.PERSISTENT_VOLUME, ActionType.UPDATE)
PVC_ADD = ClusterEvent(EventResource.PERSISTENT_VOLUME_CLAIM, ActionType.ADD)
CSI_NODE_UPDATE = ClusterEvent(EventResource.CSI_NODE, ActionType.UPDATE)

LOW_PRIORITY, MID_PRIORITY, HIGH_PRIORITY = 0, 100, 1000
MEDIUM_PRIORITY = (LOW_PRIORITY + HIGH_PRIORITY) // 2


def make_pod(
    name: str,
    namespace: str = "default",
    *,
    uid: str | None = None,
    priority: int | None = None,
    nominated_node_name: str = "",
    node_name: str = "",
    labels: dict[str, str] | None = None,
    annotations: dict[str, str] | None = None,
    scheduler_name: str | None = None,
    status: dict[str, Any] | None = None,
    **spec: Any,
) -> Pod:
    """A pod from a manifest, with the fields queue tests vary."""
    metadata: dict[str, Any] = {"name": name, "namespace": namespace}
    if uid is not None:
        metadata["uid"] = uid
    if labels:
        metadata["labels"] = labels
    if annotations:
        metadata["annotations"] = annotations
    pod_spec: dict[str, Any] = {"containers": [{"name": "c", "image": "pause"}], **spec}
    if priority is not None:
        pod_spec["priority"] = priority
    if node_name:
        pod_spec["nodeName"] = node_name
    if scheduler_name is not None:
        pod_spec["schedulerName"] = scheduler_name
    pod_status = dict(status or {})
    if nominated_node_name:
        pod_status["nominatedNodeName"] = nominated_node_name
    manifest = {"apiVersion": "v1", "kind": "Pod", "metadata": metadata, "spec": pod_spec}
    if pod_status:
        manifest["status"] = pod_status
    return Pod.from_dict(manifest)


def updated(pod: Pod, **changes: Any) -> Pod:
    """A new version of ``pod``: same identity, the manifest fields changed as given."""
    manifest = pod.to_dict()
    for path, value in changes.items():
        section, _, key = path.partition("__")
        manifest.setdefault(section, {})[key] = value
    return Pod.from_dict(manifest)


UNSCHEDULABLE_CONDITION = {
    "conditions": [{"type": "PodScheduled", "status": "False", "reason": "Unschedulable"}]
}


def high_priority_pod() -> Pod:
    return make_pod("hpp", "ns1", uid="hppns1", priority=HIGH_PRIORITY)


def high_priority_nominated_pod() -> Pod:
    return make_pod("hpp", "ns1", uid="hppns1", priority=HIGH_PRIORITY, nominated_node_name="node1")


def medium_priority_pod() -> Pod:
    return make_pod(
        "mpp",
        "ns2",
        uid="mppns2",
        annotations={"annot2": "val2"},
        priority=MEDIUM_PRIORITY,
        nominated_node_name="node1",
    )


def unschedulable_pod() -> Pod:
    return make_pod(
        "up",
        "ns1",
        uid="upns1",
        annotations={"annot2": "val2"},
        priority=LOW_PRIORITY,
        nominated_node_name="node1",
        status=UNSCHEDULABLE_CONDITION,
    )


def queued(pod: Pod, *unschedulable_plugins: str, **fields: Any) -> QueuedPodInfo:
    """A QueuedPodInfo for the pod, rejected by the given plugins (upstream's lookup info)."""
    return QueuedPodInfo(PodInfo(pod), unschedulable_plugins=set(unschedulable_plugins), **fields)


def queue_hint(hint: QueueingHint, calls: list[str] | None = None) -> Any:
    def hint_fn(pod: Any, old_obj: Any, new_obj: Any) -> QueueingHint:
        if calls is not None:
            calls.append(hint.name)
        return hint

    return hint_fn


def failing_hint(calls: list[str] | None = None) -> Any:
    def hint_fn(pod: Any, old_obj: Any, new_obj: Any) -> QueueingHint:
        if calls is not None:
            calls.append("error")
        raise RuntimeError("unexpected error")

    return hint_fn


QUEUE = queue_hint(QueueingHint.QUEUE)
SKIP = queue_hint(QueueingHint.QUEUE_SKIP)


def hint_map(entries: dict[ClusterEvent, list[tuple[str, Any]]]) -> dict[str, QueueingHintMap]:
    """``{event: [(plugin, hint_fn)]}`` for the default profile."""
    return {
        PROFILE: {
            event: [QueueingHintFunction(plugin, fn) for plugin, fn in hints]
            for event, hints in entries.items()
        }
    }


def less() -> Any:
    return PrioritySort(None, None, None).less


def new_queue(clock: FakeClock | None = None, **options: Any) -> tuple[PriorityQueue, FakeClock]:
    """A queue on a fake clock, ordered by PrioritySort."""
    clock = clock or FakeClock(START)
    return PriorityQueue(less(), clock=clock, **options), clock


class AllowlistPreEnqueue(PreEnqueuePlugin):
    """Lets a pod in when it carries one of the allowed label keys (upstream's test plugin)."""

    def __init__(self, *allowlist: str, name: str = "preEnqueuePlugin") -> None:
        self.name = name
        self.allowlist = list(allowlist)

    def pre_enqueue(self, pod: Pod) -> Status | None:
        if any(label in self.allowlist for label in pod.labels):
            return None
        return Status(Code.UNSCHEDULABLE_AND_UNRESOLVABLE, "pod name not in allowlists")


def framework_with(plugins: Iterable[Plugin], profile: str = PROFILE) -> Framework:
    """A real Framework for ``profile`` with PrioritySort, a binder and these PreEnqueue plugins."""
    plugins = list(plugins)
    registry = Registry()
    registry.register("PrioritySort", lambda args, handle: PrioritySort(args, handle, None))
    registry.register("Binder", FakeBind("Binder").factory())
    for plugin in plugins:
        registry.register(plugin.name, lambda args, handle, plugin=plugin: plugin)
    points = Plugins(
        queue_sort=PluginSet(enabled=[PluginRef(name="PrioritySort")]),
        bind=PluginSet(enabled=[PluginRef(name="Binder")]),
        pre_enqueue=PluginSet(enabled=[PluginRef(name=p.name) for p in plugins]),
    )
    return Framework(registry, KubeSchedulerProfile(scheduler_name=profile, plugins=points))


def gated_queue(*plugins: Plugin, **options: Any) -> tuple[PriorityQueue, FakeClock]:
    """A queue whose default profile runs these PreEnqueue plugins through a real Framework."""
    clock = options.pop("clock", None) or FakeClock(START)
    queue = PriorityQueue.from_frameworks([framework_with(plugins)], clock=clock, **options)
    return queue, clock


def names(pods: Iterable[Pod]) -> list[str]:
    return [pod.name for pod in pods]
