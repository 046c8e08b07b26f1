"""Every Filter plugin on every node: what a node lacks beyond its first failure.

kube-scheduler stops at a node's first failing Filter plugin, so an attempt says which plugin
rejected a node first, not whether it is the only one. To find the nodes that fail exactly one
plugin, the pod's PreFilter and then every Filter plugin of its profile run on every node, on a
dry-run copy of the cluster built as a real scheduler is built (``what_if``'s scheduler), with
the engine's own plugins: the same rules and the same statuses as the attempt.

Nodes a PreFilter result leaves out fail the plugins that narrowed it, as in the attempt.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from framework.interface.cycle_state import CycleState
from framework.interface.status import Code, Status
from framework.what_if import close_scheduler, scheduler_over_snapshot

if TYPE_CHECKING:
    from framework.api.pod import Pod
    from framework.features import FeatureGates
    from framework.interface.node_info import NodeInfo
    from framework.runtime.framework import Framework
    from framework.runtime.registry import Registry
    from framework.util.clock import Clock
    from framework.what_if import WhatIfScheduler


@dataclass
class FilterRun:
    """The pod's PreFilter and every Filter plugin's verdict on every node."""

    framework: Framework
    state: CycleState
    pod: Pod
    nodes: list[NodeInfo]
    pre_filter_status: Status | None = None
    narrowed_by: set[str] = field(default_factory=set)
    allowed: set[str] | None = None
    """The nodes the PreFilter result leaves in (None: every node)."""
    failures: dict[str, dict[str, Status]] = field(default_factory=dict)
    """node -> plugin -> status, for every plugin that rejects the node (profile order)."""

    views: dict[str, NodeInfo] = field(default_factory=dict)
    """node -> the node as Filter saw it, when pods nominated to it were added."""

    states: dict[str, CycleState] = field(default_factory=dict)
    """node -> the cycle state Filter saw there, when pods nominated to it were added."""

    def state_for(self, node: NodeInfo) -> CycleState:
        return self.states.get(node.node_name, self.state)

    def view(self, node: NodeInfo) -> NodeInfo:
        """The node as the Filter plugins judged it (nominated pods included)."""
        return self.views.get(node.node_name, node)

    def failing_plugins(self, node: str) -> list[str]:
        return list(self.failures.get(node, {}))


@contextmanager
def filter_run(
    cfg: Any,
    objects: list[Any],
    pod: Pod,
    profile: str,
    *,
    registry: Registry | None = None,
    features: FeatureGates,
    clock: Clock | None = None,
) -> Iterator[tuple[FilterRun, WhatIfScheduler]]:
    """Runs the pod's PreFilter and Filter plugins over ``objects`` (read, never changed);
    yields the run and its scheduler, closed on exit."""
    pending = pod.deep_copy()
    pending.spec.node_name = ""
    scheduler, pending, _ = scheduler_over_snapshot(
        cfg, objects, pending, profile, registry=registry, features=features, clock=clock
    )
    try:
        scheduler.cache.update_snapshot(scheduler.snapshot)
        framework = scheduler.profiles[profile]
        run = FilterRun(
            framework, CycleState(), pending, scheduler.snapshot.list_nodes_in_placement()
        )
        _pre_filter(run)
        if run.pre_filter_status is None or run.pre_filter_status.is_success():
            _filter_every_node(run)
        yield run, scheduler
    finally:
        close_scheduler(scheduler)


def _pre_filter(run: FilterRun) -> None:
    result, status, narrowed_by = run.framework.run_pre_filter_plugins(run.state, run.pod)
    run.pre_filter_status = status
    run.narrowed_by = set(narrowed_by)
    if status is not None and not status.is_success():
        return
    if result is not None and not result.all_nodes():
        run.allowed = set(result.node_names)
        names = " ".join(sorted(narrowed_by))
        excluded = Status(
            Code.UNSCHEDULABLE_AND_UNRESOLVABLE, f"node(s) didn't satisfy plugin(s) [{names}]"
        )
        for node in run.nodes:
            if node.node_name not in result.node_names:
                for plugin in sorted(narrowed_by):
                    run.failures.setdefault(node.node_name, {})[plugin] = excluded


def _filter_every_node(run: FilterRun) -> None:
    """Each Filter plugin on each node, not stopping at the first failure.

    Pods nominated to a node with at least the pod's priority count there, as in the cycle's
    first pass (``run_filter_plugins_with_nominated_pods``): the pass that rejects more.
    """
    skip = run.state.skip_filter_plugins
    plugins = [p for p in run.framework.filter_plugins if p.name not in skip]
    for node in run.nodes:
        state, node_info = _with_nominated_pods(run, node)
        for plugin in plugins:
            status = plugin.filter(state, run.pod, node_info)
            if status is not None and status.code != Code.SUCCESS:
                status.plugin = plugin.name
                run.failures.setdefault(node.node_name, {})[plugin.name] = status


def _with_nominated_pods(run: FilterRun, node: NodeInfo) -> tuple[CycleState, NodeInfo]:
    nominated = run.framework.nominated_pods_for_node(node.node_name)
    if not nominated:
        return run.state, node
    added = run.framework.add_nominated_pods(run.state, run.pod, node, nominated)
    if isinstance(added, Status):
        return run.state, node
    _, state, node_info = added
    run.views[node.node_name] = node_info
    run.states[node.node_name] = state
    return state, node_info
