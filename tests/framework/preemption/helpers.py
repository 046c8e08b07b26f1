"""Frameworks for preemption tests, registered the way upstream's tables register plugins.

``new_framework`` builds a Framework over a snapshot of the given pods and nodes, with the
listed plugins at the listed extension points (plus a queue sort and a binder), an in-memory
cluster holding every object, and an event recorder writing into that cluster.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any

from framework.api.node import Node
from framework.api.pod import Pod
from framework.backend.cache.snapshot import new_snapshot
from framework.cluster.memory import InMemoryCluster
from framework.config.defaults import set_plugin_args_defaults
from framework.config.types import (
    DefaultPreemptionArgs,
    InterPodAffinityArgs,
    NodeResourcesFitArgs,
    PodTopologySpreadArgs,
)
from framework.interface.cycle_state import CycleState
from framework.interface.node_info import PodInfo
from framework.interface.plugins import FilterPlugin, Plugin, PreFilterExtensions, PreFilterPlugin
from framework.interface.status import Code, Status
from framework.interface.types import PreFilterResult
from framework.plugins.feature import Features
from framework.plugins.interpodaffinity.plugin import InterPodAffinity
from framework.plugins.noderesources.fit import Fit
from framework.plugins.podtopologyspread.plugin import PodTopologySpread
from framework.runtime.framework import Framework
from framework.runtime.registry import Registry
from framework.scheduler.events import EventRecorder
from framework.testing.fake_plugins import FakeBind, FakeQueueSort
from framework.util.clock import FakeClock
from tests.framework.runtime.helpers import minimal, profile


@dataclass
class Registered:
    """A plugin to register, the extension points it serves and its args."""

    name: str
    factory: Callable[[Any, Any], Plugin]
    points: tuple[str, ...]
    args: Any = None


def in_tree(cls: type, args: Any, *points: str) -> Registered:
    """An in-tree plugin built with all feature switches off (upstream's ``feature.Features{}``)."""
    if args is not None:
        set_plugin_args_defaults(args)
    return Registered(cls.name, lambda a, h: cls(a, h, Features()), points, args)


def fit() -> Registered:
    return in_tree(Fit, NodeResourcesFitArgs(), "pre_filter", "filter")


def pod_topology_spread() -> Registered:
    return in_tree(PodTopologySpread, PodTopologySpreadArgs(), "pre_filter", "filter")


def inter_pod_affinity() -> Registered:
    return in_tree(InterPodAffinity, InterPodAffinityArgs(), "pre_filter", "filter")


def instance(plugin: Plugin, *points: str) -> Registered:
    """A ready-made plugin instance (fakes), returned as is by its factory."""
    return Registered(plugin.name, lambda a, h: plugin, points)


def default_preemption_args() -> DefaultPreemptionArgs:
    args = DefaultPreemptionArgs()
    set_plugin_args_defaults(args)
    return args


class RecordingCluster(InMemoryCluster):
    """An in-memory cluster that logs the writes preemption makes, in order."""

    def __init__(self, objects: Iterable[Any] = ()) -> None:
        super().__init__(objects)
        self.writes: list[tuple[str, str, Any]] = []

    def update_pod_status(
        self,
        namespace: str,
        name: str,
        condition: dict[str, str] | None = None,
        nominated_node_name: str | None = None,
    ) -> None:
        change = condition if condition is not None else {"nominatedNodeName": nominated_node_name}
        self.writes.append(("patch", name, change))
        super().update_pod_status(namespace, name, condition, nominated_node_name)

    def delete(self, obj: Any) -> None:
        self.writes.append(("delete", obj.name, None))
        super().delete(obj)

    def deleted(self) -> list[str]:
        return [name for op, name, _ in self.writes if op == "delete"]


class Nominator:
    """Pods nominated per node (the scheduling queue's nominator in upstream's tests)."""

    def __init__(self, nominated: dict[str, list[Pod]] | None = None) -> None:
        self.nominated = nominated or {}

    def nominated_pods_for_node(self, node_name: str) -> list[PodInfo]:
        return [PodInfo(p) for p in self.nominated.get(node_name, [])]


def new_framework(
    pods: Iterable[Pod],
    nodes: Iterable[Node],
    plugins: Iterable[Registered] = (),
    *,
    objects: Iterable[Any] = (),
    extenders: Iterable[Any] = (),
    nominator: Nominator | None = None,
    parallelism: int = 16,
    clock: FakeClock | None = None,
    cluster: RecordingCluster | None = None,
    pod_activator: Any = None,
) -> Framework:
    """A framework over a snapshot of ``pods`` on ``nodes``; the cluster also holds ``objects``."""
    pods, nodes = list(pods), list(nodes)
    registry = Registry()
    registry.register("QS", FakeQueueSort("QS").factory())
    registry.register("Binder", FakeBind("Binder").factory())
    points: dict[str, list[str]] = {}
    plugin_config: dict[str, Any] = {}
    for plugin in plugins:
        registry.register(plugin.name, plugin.factory)
        for point in plugin.points:
            points.setdefault(point, []).append(plugin.name)
        if plugin.args is not None:
            plugin_config[plugin.name] = plugin.args
    clock = clock or FakeClock(1_700_000_000.0)
    if cluster is None:
        cluster = RecordingCluster()
    for obj in [*nodes, *pods, *objects]:
        cluster.add(obj)
    return Framework(
        registry,
        profile(plugin_config=plugin_config, **minimal(**points)),
        snapshot_shared_lister=new_snapshot(pods, nodes),
        pod_nominator=nominator or Nominator(),
        pod_activator=pod_activator,
        extenders=extenders,
        parallelism=parallelism,
        clock=clock,
        cluster=cluster,
        event_recorder=EventRecorder(cluster, clock),
    )


def run_pre_filter(fwk: Framework, pod: Pod) -> CycleState:
    """A cycle state filled by PreFilter, as the scheduling cycle leaves it before PostFilter."""
    state = CycleState()
    _, status, _ = fwk.run_pre_filter_plugins(state, pod)
    assert status is None or status.is_success(), status
    return state


# -- fake plugins from upstream's tables ---------------------------------------------------------


class TrueFilter(FilterPlugin):
    name = "TrueFilter"

    def filter(self, state: CycleState, pod: Pod, node_info: Any) -> Status | None:
        return None


class FalseFilter(FilterPlugin):
    name = "FalseFilter"

    def filter(self, state: CycleState, pod: Pod, node_info: Any) -> Status | None:
        return Status(Code.UNSCHEDULABLE, "injecting failure for pod test-filter")


class MatchFilter(FilterPlugin):
    """Fits only the node named like the pod."""

    name = "MatchFilter"

    def filter(self, state: CycleState, pod: Pod, node_info: Any) -> Status | None:
        if pod.name == node_info.node_name:
            return None
        return Status(Code.UNSCHEDULABLE, "injecting failure for pod test-filter")


class ErrorOnLabelPlugin(PreFilterPlugin, FilterPlugin, PreFilterExtensions):
    """Upstream's TestPlugin: AddPod / RemovePod fail on nodes labelled ``error=true``."""

    name = "test-plugin"

    def pre_filter(
        self, state: CycleState, pod: Pod, nodes: list[Any]
    ) -> tuple[PreFilterResult | None, Status | None]:
        return None, None

    def pre_filter_extensions(self) -> PreFilterExtensions:
        return self

    def filter(self, state: CycleState, pod: Pod, node_info: Any) -> Status | None:
        return None

    def add_pod(self, state: CycleState, pod: Pod, pod_info: Any, node_info: Any) -> Status | None:
        if node_info.node.labels.get("error") == "true":
            return Status.error(f"failed to add pod: {pod.name}")
        return None

    def remove_pod(
        self, state: CycleState, pod: Pod, pod_info: Any, node_info: Any
    ) -> Status | None:
        if node_info.node.labels.get("error") == "true":
            return Status.error(f"failed to remove pod: {pod.name}")
        return None


class FakeExtender:
    """An extender that preempts by running its predicates on each candidate node (upstream's
    FakeExtender without a node cache): a node that fails them is dropped."""

    def __init__(
        self,
        name: str,
        predicates: list[Callable[[Pod, Any], Status | None]],
        *,
        ignorable: bool = False,
        interested: bool = True,
    ) -> None:
        self._name = name
        self.predicates = predicates
        self.ignorable = ignorable
        self.interested = interested

    def name(self) -> str:
        return self._name

    def is_ignorable(self) -> bool:
        return self.ignorable

    def is_interested(self, pod: Pod) -> bool:
        return self.interested

    def supports_preemption(self) -> bool:
        return True

    def is_filter(self) -> bool:
        return True

    def is_prioritizer(self) -> bool:
        return False

    def is_binder(self) -> bool:
        return False

    def process_preemption(self, pod: Pod, victims_map: dict[str, Any], node_lister: Any) -> Any:
        result = dict(victims_map)
        for node_name in list(result):
            status = self._run_predicates(pod, node_lister.get(node_name))
            if status is not None and status.code == Code.ERROR:
                raise status.as_error()
            if status is not None:
                del result[node_name]
        return result

    def _run_predicates(self, pod: Pod, node_info: Any) -> Status | None:
        for predicate in self.predicates:
            status = predicate(pod, node_info)
            if status is not None and not status.is_success():
                return status
        return None


def true_predicate(pod: Pod, node_info: Any) -> Status | None:
    return None


def false_predicate(pod: Pod, node_info: Any) -> Status | None:
    return Status(Code.UNSCHEDULABLE, f'pod is unschedulable on the node "{node_info.node_name}"')


def error_predicate(pod: Pod, node_info: Any) -> Status | None:
    return Status.error("some error")


def node1_predicate(pod: Pod, node_info: Any) -> Status | None:
    if node_info.node_name == "node1":
        return None
    return Status(Code.UNSCHEDULABLE, f'node "{node_info.node_name}" is not allowed')
