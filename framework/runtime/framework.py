"""The Framework: a profile's plugins, built from the registry, with one run method per point.

Every public ``run_*`` method loops over the configured plugins in order, honours the skip sets
and wraps unexpected codes with the plugin's name, exactly as kube-scheduler's frameworkImpl.
``_call`` (one node) and ``_call_batch`` (a plugin's batch form over many nodes) are the only
places that time a plugin call and report it to the observer.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Collection, Iterable, Sequence
from operator import attrgetter
from time import perf_counter
from typing import TYPE_CHECKING, Any

from framework.features import DEFAULT_FEATURE_GATES, FeatureGates
from framework.interface.cycle_state import CycleState
from framework.interface.placement import (
    Placement,
    PlacementPluginScores,
    PlacementScore,
    PodGroupAssignments,
)
from framework.interface.plugins import (
    BatchFilterPlugin,
    BatchScoreExtensions,
    BatchScorePlugin,
    BindPlugin,
    EnqueueExtensions,
    FilterPlugin,
    PermitPlugin,
    PlacementGeneratePlugin,
    PlacementScorePlugin,
    Plugin,
    PostBindPlugin,
    PostFilterPlugin,
    PreBindPlugin,
    PreEnqueuePlugin,
    PreFilterPlugin,
    PreScorePlugin,
    QueueSortPlugin,
    ReservePlugin,
    ScorePlugin,
    SignPlugin,
)
from framework.interface.status import Code, Status, StatusError, wrap_error
from framework.interface.types import (
    EXTENDER_NAME,
    MAX_NODE_SCORE,
    MIN_NODE_SCORE,
    NodeScore,
    NodeToStatus,
    PluginScore,
    PostFilterResult,
    PreFilterResult,
    ScoredNodes,
    merge_pre_filter_results,
)
from framework.metrics import DEFAULT_METRICS, Metrics
from framework.runtime.batch import OpportunisticBatch
from framework.runtime.construction import (
    EXTENSION_POINTS,
    DefaultEnqueueExtension,
    FrameworkError,
    build_plugins,
    camel,
    point_list,
)
from framework.runtime.cycle_plugins import CyclePlugins
from framework.runtime.metrics_recorder import (
    PluginEvaluations,
    observe_plugin,
    observe_plugin_batch,
    observe_point,
    should_record_plugin_metrics,
)
from framework.runtime.nominated_pods import (
    NodesWithNominatedPods,
    counted_nominated_pods,
    filter_with_nominated_pods,
)
from framework.runtime.parallelize import DEFAULT_PARALLELISM, Parallelizer
from framework.runtime.registry import Registry
from framework.runtime.signing import batchable_plugins, sign_pod
from framework.runtime.tracing import (
    describe_result,
    filter_batch_data,
    pre_filter_data,
    score_batch_data,
    score_data,
)
from framework.runtime.waiting_pods import WaitingPod, WaitingPodsMap
from framework.trace import (
    EXTENSION_POINT,
    PLUGIN,
    PLUGIN_BATCH,
    Observer,
    PointStart,
    TraceEvent,
    point_start,
    point_time,
)
from framework.util.clock import Clock, RealClock

__all__ = ["EXTENSION_POINTS", "MAX_PERMIT_TIMEOUT", "Framework", "FrameworkError"]

if TYPE_CHECKING:
    from framework.api.pod import Pod
    from framework.cluster.interface import Cluster
    from framework.interface.handle import PodActivator, PodNominator, SharedLister
    from framework.interface.node_info import NodeInfo, PodInfo
    from framework.interface.pod_group_info import PodGroupInfo

MAX_PERMIT_TIMEOUT = 15 * 60.0
"""Seconds: the longest a Permit plugin may make a pod wait."""


class Framework:
    """The plugins of one scheduler profile, and the Handle they receive."""

    def __init__(
        self,
        registry: Registry,
        profile: Any | None,
        *,
        snapshot_shared_lister: SharedLister | None = None,
        waiting_pods: WaitingPodsMap | None = None,
        pod_nominator: PodNominator | None = None,
        pod_activator: PodActivator | None = None,
        pod_group_manager: Any = None,
        extenders: Iterable[Any] = (),
        parallelism: int = DEFAULT_PARALLELISM,
        clock: Clock | None = None,
        rng: random.Random | None = None,
        observer: Observer | None = None,
        cluster: Cluster | None = None,
        event_recorder: Any = None,
        capture_profile: Callable[[Any], None] | None = None,
        features: FeatureGates = DEFAULT_FEATURE_GATES,
        metrics: Metrics | None = None,
    ) -> None:
        self.registry = registry
        self.observer = observer
        self._last_batch: tuple[Sequence[NodeInfo] | None, list[str]] = _NO_BATCH
        self.per_node = False
        """Call plugins node by node, as upstream does, even where they have a batch form: the
        debugger turns it on for a cycle that may stop on one node (results are the same)."""
        self.clock: Clock = clock or RealClock()
        self.rng = rng if rng is not None else random.Random()
        """Randomness plugins may use (preemption's start offset); seeded for replays."""
        self.waiting_pods = waiting_pods if waiting_pods is not None else WaitingPodsMap()
        self.pod_nominator = pod_nominator
        self.pod_activator = pod_activator
        self._pod_group_manager = pod_group_manager
        self._snapshot = snapshot_shared_lister
        self._extenders = list(extenders)
        self._parallelizer = Parallelizer(parallelism)
        self._cluster = cluster
        self._event_recorder = event_recorder
        self._profile_name = ""
        self.metrics = metrics if metrics is not None else DEFAULT_METRICS
        self.batch: OpportunisticBatch | None = None
        """The batch cache, when the OpportunisticBatching gate is on (upstream's GetNodeHint
        and StoreScheduleResults are its methods)."""
        self.batchable_plugins: list[SignPlugin] | None = None
        """The plugins that sign pods; None when the profile signs none (see signing.py)."""
        self.percentage_of_nodes_to_score: int | None = None
        self.plugins_map: dict[str, Plugin] = {}
        self.score_plugin_weight: dict[str, int] = {}
        self.enqueue_extensions: list[EnqueueExtensions] = []
        self.pre_enqueue_plugins: list[PreEnqueuePlugin] = []
        self.queue_sort_plugins: list[QueueSortPlugin] = []
        self.pre_filter_plugins: list[PreFilterPlugin] = []
        self.filter_plugins: list[FilterPlugin] = []
        self.post_filter_plugins: list[PostFilterPlugin] = []
        self.pre_score_plugins: list[PreScorePlugin] = []
        self.score_plugins: list[ScorePlugin] = []
        self.reserve_plugins: list[ReservePlugin] = []
        self.permit_plugins: list[PermitPlugin] = []
        self.pre_bind_plugins: list[PreBindPlugin] = []
        self.bind_plugins: list[BindPlugin] = []
        self.post_bind_plugins: list[PostBindPlugin] = []
        self.placement_generate_plugins: list[PlacementGeneratePlugin] = []
        self.placement_score_plugins: list[PlacementScorePlugin] = []
        self.placement_score_plugin_weight: dict[str, int] = {}
        self._cycle_plugins = CyclePlugins(self)
        self.nodes_with_nominated_pods = NodesWithNominatedPods()
        if self._extenders:
            self.enqueue_extensions.append(DefaultEnqueueExtension(EXTENDER_NAME))
        if profile is not None:
            self._profile_name = profile.scheduler_name
            self.percentage_of_nodes_to_score = profile.percentage_of_nodes_to_score
            if profile.plugins is not None:
                build_plugins(self, profile)
            if capture_profile is not None:
                capture_profile(profile)
        self.evaluations = PluginEvaluations(self.metrics, self._profile_name)
        if features.enabled("OpportunisticBatching"):
            self.batch = OpportunisticBatch(self)
            self.batchable_plugins = batchable_plugins(
                self._profile_name,
                [
                    *self.pre_filter_plugins,
                    *self.filter_plugins,
                    *self.pre_score_plugins,
                    *self.score_plugins,
                ],
                has_extenders=bool(self._extenders),
            )

    def list_plugins(self) -> dict[str, list[tuple[str, int | None]]]:
        """The effective plugins per extension point (config key -> [(name, weight)]).

        Weights are given for Score and PlacementScore only; points without plugins are left
        out, as upstream.
        """
        weights = {"score": self.score_plugin_weight}
        weights["placement_score"] = self.placement_score_plugin_weight
        result: dict[str, list[tuple[str, int | None]]] = {}
        for attr, _, _ in EXTENSION_POINTS:
            plugins = point_list(self, attr)
            if plugins:
                point_weights = weights.get(attr, {})
                result[camel(attr)] = [(p.name, point_weights.get(p.name)) for p in plugins]
        return result

    def close(self) -> None:
        """Closes every plugin that has a ``close`` method, even if some fail."""
        errors = []
        for name, plugin in self.plugins_map.items():
            close = getattr(plugin, "close", None)
            if close is None:
                continue
            try:
                close()
            except Exception as err:
                errors.append(f"{name} failed to close: {err}")
        if errors:
            raise FrameworkError("\n".join(errors))

    # ----------------------------------------------------------------------------------------
    # Tracing: the only places that time plugin calls and report them.

    def _call(
        self,
        point: str,
        plugin: Plugin,
        pod: Pod,
        node: str | None,
        method: Callable[..., Any],
        *args: Any,
        sampled: bool = False,
    ) -> Any:
        """Calls a plugin; times it when traced, or when its cycle's plugin metrics are sampled
        (``args[0]`` is the CycleState, except at PreEnqueue, which passes ``sampled``)."""
        observer = self.observer
        record = sampled or getattr(args[0], "record_plugin_metrics", False)
        if observer is None and not record:
            return method(*args)
        start = perf_counter()
        result = method(*args)
        duration = perf_counter() - start
        status, score, data = describe_result(point, result)
        if record:
            observe_plugin(self.metrics, point, plugin.name, status, duration)
        if observer is None:
            return result
        observer.on_event(
            TraceEvent(
                kind=PLUGIN,
                point=point,
                pod=pod.key,
                profile=self._profile_name,
                code=str(status.code) if status is not None else "Success",
                plugin=plugin.name,
                node=node,
                reasons=list(status.all_reasons()) if status is not None else [],
                score=score,
                duration=duration,
                data=data,
            )
        )
        return result

    def _call_batch(
        self,
        point: str,
        plugin: Plugin,
        method: Callable[..., Any],
        state: CycleState,
        pod: Pod,
        nodes: Sequence[NodeInfo],
    ) -> Any:
        """A plugin's batch form over ``nodes``, reported as one ``pluginBatch`` event."""
        observer = self.observer
        record = state.record_plugin_metrics
        if observer is None and not record:
            return method(state, pod, nodes)
        start = perf_counter()
        result = method(state, pod, nodes)
        duration = perf_counter() - start
        if record:
            observe_plugin_batch(self.metrics, point, plugin.name, result, duration, len(nodes))
        if observer is None:
            return result
        names = self._node_names(nodes)
        if point == "filter":
            code, reasons, data = filter_batch_data(nodes, names, result)
        else:
            code, reasons, data = score_batch_data(names, result)
        observer.on_event(
            TraceEvent(
                kind=PLUGIN_BATCH,
                point=point,
                pod=pod.key,
                profile=self._profile_name,
                code=code,
                plugin=plugin.name,
                reasons=reasons,
                duration=duration,
                data=data,
            )
        )
        return result

    def _node_names(self, nodes: Sequence[NodeInfo]) -> list[str]:
        """The names of ``nodes``, shared by the batch events of consecutive plugins that are
        given the same list (every node passed the plugin before): events are only read.

        Forgotten at the start of each plugin-by-plugin run over nodes, within which the lists
        passed around are never changed."""
        last_nodes, names = self._last_batch
        if nodes is not last_nodes or len(names) != len(nodes):
            names = [n.node_name for n in nodes]
            self._last_batch = (nodes, names)
        return names

    def _emit_point(
        self,
        point: str,
        pod: Pod,
        status: Status | None,
        start: PointStart,
        data: dict[str, Any] | None = None,
        node: str | None = None,
    ) -> None:
        duration, stopped = point_time(start)
        observe_point(self.metrics, point, status, duration, self._profile_name)
        observer = self.observer
        if observer is None:
            return
        observer.on_event(
            TraceEvent(
                kind=EXTENSION_POINT,
                point=point,
                pod=pod.key,
                profile=self._profile_name,
                code=str(status.code) if status is not None else "Success",
                plugin=status.plugin if status is not None else "",
                node=node,
                reasons=list(status.all_reasons()) if status is not None else [],
                duration=duration,
                data=data or {},
                stopped=stopped,
            )
        )

    # ----------------------------------------------------------------------------------------
    # Queueing

    def queue_sort_func(self) -> Callable[[Any, Any], bool]:
        """The one queue sort plugin's ``less``."""
        if not self.queue_sort_plugins:
            raise FrameworkError("No QueueSort plugin is registered in the frameworkImpl.")
        return self.queue_sort_plugins[0].less

    def run_pre_enqueue_plugins(self, pod: Pod) -> Status | None:
        """Runs PreEnqueue plugins until one does not succeed; that plugin gates the pod.

        Upstream runs this loop inside the scheduling queue; it lives here so the queue stays
        free of tracing and the playground can show gating like any other extension point.
        """
        start = point_start()
        sampled = should_record_plugin_metrics()
        for plugin in self.pre_enqueue_plugins:
            status = self._call(
                "preEnqueue", plugin, pod, None, plugin.pre_enqueue, pod, sampled=sampled
            )
            if status is not None and not status.is_success():
                status.plugin = plugin.name
                self._emit_point("preEnqueue", pod, status, start)
                return status
        self._emit_point("preEnqueue", pod, None, start)
        return None

    # ----------------------------------------------------------------------------------------
    # Scheduling cycle: PreFilter, Filter, PostFilter

    def run_pre_filter_plugins(
        self, state: CycleState, pod: Pod
    ) -> tuple[PreFilterResult | None, Status | None, set[str]]:
        """Runs PreFilter plugins; returns the merged node set, the status, and who narrowed it.

        Skip marks the plugin's Filter as skipped. Unschedulable is remembered while the other
        plugins still run (so preemption sees full state); any other failure stops at once.
        """
        start = point_start()
        skip: set[str] = set()
        try:
            result, status, narrowed_by = self._pre_filter(state, pod, skip)
        finally:
            state.skip_filter_plugins = frozenset(skip)  # frozen: see CyclePlugins
        self._emit_point("preFilter", pod, status, start, pre_filter_data(result, skip))
        return result, status, narrowed_by

    def _pre_filter(
        self, state: CycleState, pod: Pod, skip: set[str]
    ) -> tuple[PreFilterResult | None, Status | None, set[str]]:
        nodes = self._snapshot.node_infos().list() if self._snapshot is not None else []
        result: PreFilterResult | None = None
        narrowed_by: set[str] = set()
        returned: Status | None = None
        for plugin in self.pre_filter_plugins:
            plugin_result, status = self._call(
                "preFilter", plugin, pod, None, plugin.pre_filter, state, pod, nodes
            )
            if status is not None and status.is_skip():
                skip.add(plugin.name)
                continue
            self.evaluations.count("preFilter", plugin.name)
            if status is not None and not status.is_success():
                status.plugin = plugin.name
                if status.code == Code.UNSCHEDULABLE_AND_UNRESOLVABLE:
                    return None, status, set()
                if status.code == Code.UNSCHEDULABLE:
                    returned = status
                    continue
                wrapped = wrap_error(status, f'running PreFilter plugin "{plugin.name}"')
                return None, wrapped.with_plugin(plugin.name), set()
            if plugin_result is not None and not plugin_result.all_nodes():
                narrowed_by.add(plugin.name)
            result = merge_pre_filter_results(result, plugin_result)
            if result is not None and not result.all_nodes() and not result.node_names:
                return result, _no_node_satisfies(narrowed_by), narrowed_by
        return result, returned, narrowed_by

    def run_pre_filter_extension_add_pod(
        self, state: CycleState, pod_to_schedule: Pod, pod_info_to_add: PodInfo, node_info: NodeInfo
    ) -> Status | None:
        return self._run_pre_filter_extension(
            "AddPod", state, pod_to_schedule, pod_info_to_add, node_info
        )

    def run_pre_filter_extension_remove_pod(
        self,
        state: CycleState,
        pod_to_schedule: Pod,
        pod_info_to_remove: PodInfo,
        node_info: NodeInfo,
    ) -> Status | None:
        return self._run_pre_filter_extension(
            "RemovePod", state, pod_to_schedule, pod_info_to_remove, node_info
        )

    def _run_pre_filter_extension(
        self,
        operation: str,
        state: CycleState,
        pod_to_schedule: Pod,
        pod_info: PodInfo,
        node_info: NodeInfo,
    ) -> Status | None:
        point = f"preFilterExtension{operation}"
        for plugin, extensions in self._cycle_plugins.extensions(state.skip_filter_plugins):
            method = extensions.add_pod if operation == "AddPod" else extensions.remove_pod
            status = self._call(
                point,
                plugin,
                pod_to_schedule,
                node_info.node_name,
                method,
                state,
                pod_to_schedule,
                pod_info,
                node_info,
            )
            if status is not None and not status.is_success():
                return wrap_error(
                    status, f'running {operation} on PreFilter plugin "{plugin.name}"'
                )
        return None

    def run_filter_plugins(self, state: CycleState, pod: Pod, node_info: NodeInfo) -> Status | None:
        """Runs Filter plugins on one node, stopping at the first that does not succeed."""
        node_name = node_info.node_name
        for plugin in self._cycle_plugins.filters(state.skip_filter_plugins):
            status = self._call(
                "filter", plugin, pod, node_name, plugin.filter, state, pod, node_info
            )
            self.evaluations.count("filter", plugin.name)
            if status is not None and status.code != Code.SUCCESS:
                return _filter_failure(plugin, status)
        return None

    def run_filter_plugins_on_nodes(
        self, state: CycleState, pod: Pod, nodes: Sequence[NodeInfo]
    ) -> list[Status | None]:
        """Per node, what ``run_filter_plugins`` returns for it, with one call per plugin.

        Each plugin judges the nodes every plugin before it passed: a node still stops at its
        first failing plugin. Plugins with a batch form get all those nodes at once.
        """
        self._last_batch = _NO_BATCH
        statuses: list[Status | None] = [None] * len(nodes)
        pending = list(range(len(nodes)))
        skip = state.skip_filter_plugins
        for plugin in self.filter_plugins:
            if not pending:
                break
            if plugin.name in skip:
                continue
            batch = nodes if len(pending) == len(nodes) else [nodes[i] for i in pending]
            results = self._filter_batch(plugin, state, pod, batch)
            if results.count(None) == len(results):
                continue  # every node passed: the usual case, checked without a Python loop
            failed = [
                k
                for k, status in enumerate(results)
                if status is not None and status.code != Code.SUCCESS
            ]
            if not failed:
                continue
            for k in failed:
                statuses[pending[k]] = _filter_failure(plugin, results[k])
            failed_set = set(failed)
            pending = [i for k, i in enumerate(pending) if k not in failed_set]
        return statuses

    def _filter_batch(
        self, plugin: FilterPlugin, state: CycleState, pod: Pod, nodes: Sequence[NodeInfo]
    ) -> list[Status | None]:
        self.evaluations.count("filter", plugin.name, len(nodes))
        if isinstance(plugin, BatchFilterPlugin):
            return self._call_batch("filter", plugin, plugin.filter_nodes, state, pod, nodes)
        return [
            self._call("filter", plugin, pod, n.node_name, plugin.filter, state, pod, n)
            for n in nodes
        ]

    def run_filter_plugins_with_nominated_pods_on_nodes(
        self, state: CycleState, pod: Pod, nodes: Sequence[NodeInfo]
    ) -> list[Status | None]:
        """Per node, what ``run_filter_plugins_with_nominated_pods`` returns for it.

        Nodes without nominated pods are filtered together. So are the others, each with its
        nominated pods added, unless a PreFilter extension would update the state for them:
        then each needs its own copy of the state and is filtered on its own.
        """
        if self.per_node:
            return [self.run_filter_plugins_with_nominated_pods(state, pod, n) for n in nodes]
        nominated = self._nodes_with_nominated_pods()
        if not nominated:
            return self.run_filter_plugins_on_nodes(state, pod, nodes)
        plain = [i for i, n in enumerate(nodes) if n.node_name not in nominated]
        if self.pre_filter_extensions_run(state):
            statuses = [
                None
                if n.node_name not in nominated
                else self.run_filter_plugins_with_nominated_pods(state, pod, n)
                for n in nodes
            ]
        else:
            statuses = [None] * len(nodes)
            others = [i for i, n in enumerate(nodes) if n.node_name in nominated]
            with_pods = filter_with_nominated_pods(self, state, pod, [nodes[i] for i in others])
            for i, status in zip(others, with_pods, strict=True):
                statuses[i] = status
        batch = self.run_filter_plugins_on_nodes(state, pod, [nodes[i] for i in plain])
        for i, status in zip(plain, batch, strict=True):
            statuses[i] = status
        return statuses

    def pre_filter_extensions_run(self, state: CycleState) -> bool:
        """Whether adding or removing a pod runs some PreFilter extension in this cycle."""
        return bool(self._cycle_plugins.extensions(state.skip_filter_plugins))

    def _nodes_with_nominated_pods(self) -> Collection[str]:
        """Names of nodes with nominated pods; every node's name if the nominator cannot say."""
        nominator = self.pod_nominator
        if nominator is None:
            return ()
        names = getattr(nominator, "nominated_node_names", None)
        return names() if names is not None else _EVERY_NODE

    def run_filter_plugins_with_nominated_pods(
        self, state: CycleState, pod: Pod, node_info: NodeInfo
    ) -> Status | None:
        """Filters with nominated pods of equal or higher priority counted, then without them.

        The pod must fit both ways: resources and anti-affinity are stricter with the nominated
        pods present, affinity may be stricter without them.
        """
        nominated = self.nominated_pods_for_node(node_info.node_name)
        if not nominated:
            # One pass on the node as it is: what the two-pass loop below does without pods.
            return self.run_filter_plugins(state, pod, node_info)
        status: Status | None = None
        pods_added = False
        for attempt in range(2):
            state_to_use, node_info_to_use = state, node_info
            if attempt == 0:
                added = self.add_nominated_pods(state, pod, node_info, nominated)
                if isinstance(added, Status):
                    return added
                pods_added, state_to_use, node_info_to_use = added
            elif not pods_added or (status is not None and not status.is_success()):
                break
            status = self.run_filter_plugins(state_to_use, pod, node_info_to_use)
            if status is not None and not status.is_success() and not status.is_rejected():
                return status
        return status

    def add_nominated_pods(
        self, state: CycleState, pod: Pod, node_info: NodeInfo, nominated: list[PodInfo]
    ) -> tuple[bool, CycleState, NodeInfo] | Status:
        """Copies of the state and node with the nominated pods that count for ``pod`` added
        (equal or higher priority), whether any was, or the status of a failing extension."""
        node_info_out = node_info.clone()
        state_out = state.clone()
        added = False
        for pod_info in counted_nominated_pods(pod, nominated):
            node_info_out.add_pod_info(pod_info)
            status = self.run_pre_filter_extension_add_pod(state_out, pod, pod_info, node_info_out)
            if status is not None and not status.is_success():
                return Status.as_status(status.as_error()) or status
            added = True
        return added, state_out, node_info_out

    def run_post_filter_plugins(
        self, state: CycleState, pod: Pod, filtered_node_status_map: NodeToStatus
    ) -> tuple[PostFilterResult | None, Status]:
        """Runs PostFilter plugins until one succeeds, errors or is UnschedulableAndUnresolvable."""
        start = point_start()
        result, status = self._post_filter(state, pod, filtered_node_status_map)
        data = {}
        if result is not None and result.nominating_info is not None:
            data["nominatedNodeName"] = result.nominating_info.nominated_node_name
        self._emit_point("postFilter", pod, status, start, data)
        return result, status

    def _post_filter(
        self, state: CycleState, pod: Pod, filtered_node_status_map: NodeToStatus
    ) -> tuple[PostFilterResult | None, Status]:
        if state.skip_all_post_filter_plugins:
            return None, Status(Code.UNSCHEDULABLE, "All PostFilter plugins are skipped")
        result: PostFilterResult | None = None
        reasons: list[str] = []
        rejector = ""
        for plugin in self.post_filter_plugins:
            plugin_result, status = self._call(
                "postFilter",
                plugin,
                pod,
                None,
                plugin.post_filter,
                state,
                pod,
                filtered_node_status_map,
            )
            if status is None or status.is_success():
                return plugin_result, status or Status(Code.SUCCESS)
            if status.code == Code.UNSCHEDULABLE_AND_UNRESOLVABLE:
                return plugin_result, status.with_plugin(plugin.name)
            if not status.is_rejected():
                error = Status.as_status(status.as_error()) or Status(Code.ERROR)
                return None, error.with_plugin(plugin.name)
            if plugin_result is not None and plugin_result.mode():
                result = plugin_result
            reasons.extend(status.all_reasons())
            rejector = rejector or plugin.name
        return result, Status(Code.UNSCHEDULABLE, *reasons).with_plugin(rejector)

    # ----------------------------------------------------------------------------------------
    # Scheduling cycle: PreScore, Score

    def run_pre_score_plugins(
        self, state: CycleState, pod: Pod, nodes: list[NodeInfo]
    ) -> Status | None:
        """Runs PreScore plugins; Skip marks the plugin's Score as skipped, failure aborts."""
        start = point_start()
        skip: set[str] = set()
        status: Status | None = None
        try:
            for plugin in self.pre_score_plugins:
                result = self._call(
                    "preScore", plugin, pod, None, plugin.pre_score, state, pod, nodes
                )
                if result is not None and result.is_skip():
                    skip.add(plugin.name)
                    continue
                self.evaluations.count("preScore", plugin.name)
                if result is not None and not result.is_success():
                    status = wrap_error(result, f'running PreScore plugin "{plugin.name}"')
                    return status
            return None
        finally:
            state.skip_score_plugins = skip
            self._emit_point(
                "preScore", pod, status, start, {"skipped": sorted(skip)} if skip else None
            )

    def run_score_plugins(
        self, state: CycleState, pod: Pod, nodes: list[NodeInfo]
    ) -> tuple[ScoredNodes | None, Status | None]:
        """Scores every node with every plugin, normalizes each plugin's scores, applies weights."""
        start = point_start()
        plugins = [p for p in self.score_plugins if p.name not in state.skip_score_plugins]
        table = self._score_table(state, pod, nodes, plugins)
        if isinstance(table, Status):
            self._emit_point("score", pod, table, start)
            return None, table
        raw = dict(table) if self.observer else None
        status = self._normalize_scores(state, pod, nodes, plugins, table)
        if status is not None:
            self._emit_point("score", pod, status, start)
            return None, status
        result = self._apply_weights(nodes, plugins, table)
        if isinstance(result, Status):
            self._emit_point("score", pod, result, start)
            return None, result
        if self.observer is not None:
            self._emit_point(
                "score",
                pod,
                None,
                start,
                score_data(plugins, raw, table, result, self.score_plugin_weight),
            )
        return result, None

    def _score_table(
        self, state: CycleState, pod: Pod, nodes: list[NodeInfo], plugins: list[ScorePlugin]
    ) -> dict[str, list[int]] | Status:
        """Each plugin's raw scores, in node order (batch forms score all nodes in one call)."""
        self._last_batch = _NO_BATCH
        table: dict[str, list[int]] = {}
        for plugin in plugins:
            if isinstance(plugin, BatchScorePlugin) and not self.per_node:
                self.evaluations.count("score", plugin.name, len(nodes))
                scores, status = self._call_batch(
                    "score", plugin, plugin.score_nodes, state, pod, nodes
                )
            else:
                scores, status = self._score_one_by_one(plugin, state, pod, nodes)
            if status is not None and not status.is_success():
                return Status.error(
                    f'running Score plugins: plugin "{plugin.name}" failed with: '
                    f"{status.as_error()}"
                )
            table[plugin.name] = scores
        return table

    def _score_one_by_one(
        self, plugin: ScorePlugin, state: CycleState, pod: Pod, nodes: list[NodeInfo]
    ) -> tuple[list[int], Status | None]:
        scores = []
        for node_info in nodes:
            score, status = self._call(
                "score", plugin, pod, node_info.node_name, plugin.score, state, pod, node_info
            )
            self.evaluations.count("score", plugin.name)
            if status is not None and not status.is_success():
                return scores, status
            scores.append(score)
        return scores, None

    def _normalize_scores(
        self,
        state: CycleState,
        pod: Pod,
        nodes: list[NodeInfo],
        plugins: list[ScorePlugin],
        table: dict[str, list[int]],
    ) -> Status | None:
        """Lets plugins with ScoreExtensions rewrite their column in place: as plain scores
        for a batch form, else as NodeScores."""
        for plugin in plugins:
            extensions = plugin.score_extensions()
            if extensions is None:
                continue
            batch = isinstance(extensions, BatchScoreExtensions)
            if batch:
                method, scores = extensions.normalize_score_values, list(table[plugin.name])
            else:
                method = extensions.normalize_score
                scores = [
                    NodeScore(n.node_name, score)
                    for n, score in zip(nodes, table[plugin.name], strict=True)
                ]
            status = self._call("normalizeScore", plugin, pod, None, method, state, pod, scores)
            if status is not None and not status.is_success():
                return Status.error(
                    f'running Normalize on Score plugins: plugin "{plugin.name}" failed with: '
                    f"{status.as_error()}"
                )
            table[plugin.name] = scores if batch else [s.score for s in scores]
        return None

    def _apply_weights(
        self, nodes: list[NodeInfo], plugins: list[ScorePlugin], table: dict[str, list[int]]
    ) -> ScoredNodes | Status:
        names = tuple(p.name for p in plugins)
        columns = [table[name] for name in names]
        if any(min(c) < MIN_NODE_SCORE or max(c) > MAX_NODE_SCORE for c in columns if c):
            return _invalid_score(names, columns)
        weights = [self.score_plugin_weight[name] for name in names]
        weighted_columns = [
            list(map(weight.__mul__, column)) if weight != 1 else column
            for column, weight in zip(columns, weights, strict=True)
        ]
        return ScoredNodes.of_weighted_columns(
            list(map(_NODE_NAME, nodes)), names, weighted_columns
        )

    # ----------------------------------------------------------------------------------------
    # Pod-group cycle: PlacementGenerate, PlacementScore (TopologyAwareWorkloadScheduling)

    def run_placement_generate_plugins(
        self, state: CycleState, pod_group: PodGroupInfo, nodes: list[NodeInfo]
    ) -> tuple[list[Placement] | None, Status | None]:
        """The profile's one PlacementGenerate plugin splits ``nodes`` into placements; without
        one, every node is the one placement. None generated is Unschedulable."""
        placement = Placement(nodes=nodes)
        if not self.placement_generate_plugins:
            return [placement], None
        plugin = self.placement_generate_plugins[0]
        result, status = plugin.generate_placements(state, pod_group, placement)
        if status is not None and not status.is_success():
            return None, status.with_plugin(plugin.name)
        if result is None or not result.placements:
            status = Status(Code.UNSCHEDULABLE, "no feasible placements found")
            return None, status.with_plugin(plugin.name)
        return result.placements, None

    def run_placement_score_plugins(
        self, state: CycleState, pod_group: PodGroupInfo, assignments: list[PodGroupAssignments]
    ) -> tuple[list[PlacementPluginScores] | None, Status | None]:
        """Scores every feasible placement with every plugin, normalizes each plugin's scores,
        applies weights: RunScorePlugins' three phases, over placements."""
        plugins = self.placement_score_plugins
        table: dict[str, list[PlacementScore]] = {}
        for plugin in plugins:
            column = []
            for assignment in assignments:
                score, status = plugin.score_placement(state, pod_group, assignment)
                if status is not None and not status.is_success():
                    return None, Status.error(
                        f'running PlacementScore plugins: plugin "{plugin.name}" failed with: '
                        f"{status.as_error()}"
                    )
                column.append(PlacementScore(assignment.placement, score))
            table[plugin.name] = column
        for plugin in plugins:
            extensions = plugin.placement_score_extensions()
            if extensions is None:
                continue
            status = extensions.normalize_placement_score(state, pod_group, table[plugin.name])
            if status is not None and not status.is_success():
                return None, Status.error(
                    "running NormalizePlacementScore on PlacementScore plugins: "
                    f'plugin "{plugin.name}" failed with: {status.as_error()}'
                )
        return self._weighted_placement_scores(assignments, table)

    def _weighted_placement_scores(
        self, assignments: list[PodGroupAssignments], table: dict[str, list[PlacementScore]]
    ) -> tuple[list[PlacementPluginScores] | None, Status | None]:
        results = []
        for index, assignment in enumerate(assignments):
            scores = PlacementPluginScores(assignment.placement)
            for plugin in self.placement_score_plugins:
                score = table[plugin.name][index].score
                if score > MAX_NODE_SCORE or score < MIN_NODE_SCORE:
                    return None, Status.error(
                        "applying score defaultWeights on PlacementScore plugins: "
                        f'plugin "{plugin.name}" returns an invalid score {score}, it should in '
                        f"the range of [{MIN_NODE_SCORE}, {MAX_NODE_SCORE}] after normalizing"
                    )
                weighted = score * self.placement_score_plugin_weight[plugin.name]
                scores.scores.append(PluginScore(plugin.name, weighted))
                scores.total_score += weighted
            results.append(scores)
        return results, None

    # ----------------------------------------------------------------------------------------
    # Scheduling cycle: Reserve, Permit

    def run_reserve_plugins_reserve(
        self, state: CycleState, pod: Pod, node_name: str
    ) -> Status | None:
        """Runs Reserve plugins in order; the first failure stops (the caller unreserves all)."""
        start = point_start()
        status = None
        for plugin in self.reserve_plugins:
            result = self._call(
                "reserve", plugin, pod, node_name, plugin.reserve, state, pod, node_name
            )
            if result is not None and not result.is_success():
                if result.is_rejected():
                    status = result.with_plugin(plugin.name)
                else:
                    status = wrap_error(result, f'running Reserve plugin "{plugin.name}"')
                break
        self._emit_point("reserve", pod, status, start, node=node_name)
        return status

    def run_reserve_plugins_unreserve(self, state: CycleState, pod: Pod, node_name: str) -> None:
        """Runs Unreserve of every reserve plugin, in reverse order, whatever Reserve returned."""
        start = point_start()
        for plugin in reversed(self.reserve_plugins):
            self._call("unreserve", plugin, pod, node_name, plugin.unreserve, state, pod, node_name)
        self._emit_point("unreserve", pod, None, start, node=node_name)

    def run_permit_plugins(
        self, state: CycleState, pod: Pod, node_name: str
    ) -> tuple[dict[str, float] | None, Status | None]:
        """Runs Permit plugins; returns each waiting plugin's timeout when any asked to wait."""
        start = point_start()
        waits, status = self._permit(state, pod, node_name)
        data = {"waitSeconds": waits} if waits else None
        self._emit_point("permit", pod, status, start, data, node=node_name)
        return waits, status

    def _permit(
        self, state: CycleState, pod: Pod, node_name: str
    ) -> tuple[dict[str, float] | None, Status | None]:
        waits: dict[str, float] = {}
        wait_status: Status | None = None
        for plugin in self.permit_plugins:
            status, timeout = self._call(
                "permit", plugin, pod, node_name, plugin.permit, state, pod, node_name
            )
            if status is None or status.is_success():
                continue
            if status.is_rejected():
                return None, status.with_plugin(plugin.name)
            if status.is_wait():
                waits[plugin.name] = min(timeout, MAX_PERMIT_TIMEOUT)
                wait_status = status
                continue
            wrapped = wrap_error(status, f'running Permit plugin "{plugin.name}"')
            return None, wrapped.with_plugin(plugin.name)
        if wait_status is not None:
            wait_status.append_reason(
                "one or more plugins asked to wait and no plugin rejected pod"
            )
            return waits, wait_status
        return None, None

    def add_waiting_pod(self, pod: Pod, plugins_wait_time: dict[str, float]) -> WaitingPod:
        waiting_pod = WaitingPod(pod, plugins_wait_time, self.clock)
        self.waiting_pods.add(waiting_pod)
        return waiting_pod

    def will_wait_on_permit(self, pod: Pod) -> bool:
        return self.waiting_pods.get(pod.uid) is not None

    def wait_on_permit(self, pod: Pod, timeout: float | None = None) -> Status | None:
        """Blocks until the waiting pod is allowed or rejected (a real clock fires the timeouts)."""
        waiting_pod = self.waiting_pods.get(pod.uid)
        if waiting_pod is None:
            return None
        try:
            outcome = waiting_pod.wait(timeout)
        finally:
            self.waiting_pods.remove(pod.uid)
        status = permit_outcome_status(outcome)
        # From the start of the wait, as upstream times it: a scheduler that waits on a
        # callback calls this once the outcome is known, not while the pod waits.
        self._emit_point("waitOnPermit", pod, status, waiting_pod.since)
        return status

    # ----------------------------------------------------------------------------------------
    # Binding cycle: PreBind, Bind, PostBind

    def run_pre_bind_pre_flights(
        self, state: CycleState, pod: Pod, node_name: str
    ) -> Status | None:
        """Asks every PreBind plugin whether it has work; Skip overall means none has."""
        skip: set[str] = set()
        parallel: set[str] = set()
        returning: Status | None = Status(Code.SKIP)
        for plugin in self.pre_bind_plugins:
            result, status = self._call(
                "preBindPreFlight",
                plugin,
                pod,
                node_name,
                plugin.pre_bind_pre_flight,
                state,
                pod,
                node_name,
            )
            if result is not None and result.allow_parallel:
                parallel.add(plugin.name)
            code = Code.SUCCESS if status is None else status.code
            if code == Code.ERROR:
                return wrap_error(status, f'running PreBindPreFlight "{plugin.name}"')
            if code == Code.SUCCESS:
                returning = None
            elif code == Code.SKIP:
                skip.add(plugin.name)
            else:
                return Status.error(
                    f'PreBindPreFlight {plugin.name} returned "{code}", which is unsupported. '
                    "It is supposed to return Success, Skip, or Error status"
                )
        state.skip_pre_bind_plugins = skip
        state.parallel_pre_bind_plugins = parallel
        return returning

    def run_pre_bind_plugins(self, state: CycleState, pod: Pod, node_name: str) -> Status | None:
        """Runs PreBind plugins not skipped by their pre-flight; the first failure stops.

        Groups upstream runs in parallel run here one after another; the outcome is the same
        because a group fails on its first failing member either way.
        """
        start = point_start()
        status = None
        for plugin in self.pre_bind_plugins:
            if plugin.name in state.skip_pre_bind_plugins:
                continue
            result = self._call(
                "preBind", plugin, pod, node_name, plugin.pre_bind, state, pod, node_name
            )
            if result is not None and not result.is_success():
                if result.is_rejected():
                    status = result.with_plugin(plugin.name)
                else:
                    status = wrap_error(result, f'running PreBind plugin "{plugin.name}"')
                break
        self._emit_point("preBind", pod, status, start, node=node_name)
        return status

    def run_bind_plugins(self, state: CycleState, pod: Pod, node_name: str) -> Status | None:
        """Tries Bind plugins in order until one does not Skip."""
        start = point_start()
        status = self._bind(state, pod, node_name)
        self._emit_point("bind", pod, status, start, node=node_name)
        return status

    def _bind(self, state: CycleState, pod: Pod, node_name: str) -> Status | None:
        if not self.bind_plugins:
            return Status(Code.SKIP, "")
        status: Status | None = None
        for plugin in self.bind_plugins:
            status = self._call("bind", plugin, pod, node_name, plugin.bind, state, pod, node_name)
            if status is not None and status.is_skip():
                continue
            if status is not None and not status.is_success():
                if status.is_rejected():
                    return status.with_plugin(plugin.name)
                return wrap_error(status, f'running Bind plugin "{plugin.name}"')
            return status
        return status

    def run_post_bind_plugins(self, state: CycleState, pod: Pod, node_name: str) -> None:
        start = point_start()
        for plugin in self.post_bind_plugins:
            self._call("postBind", plugin, pod, node_name, plugin.post_bind, state, pod, node_name)
        self._emit_point("postBind", pod, None, start, node=node_name)

    # ----------------------------------------------------------------------------------------
    # Handle

    # ----------------------------------------------------------------------------------------
    # Opportunistic batching

    def sign_pod(self, pod: Pod) -> bytes | None:
        """The pod's signature: equal for pods this profile judges and ranks alike, else None."""
        if self.batchable_plugins is None:
            return None
        return sign_pod(self.batchable_plugins, pod)

    def profile_name(self) -> str:
        return self._profile_name

    def snapshot_shared_lister(self) -> SharedLister | None:
        return self._snapshot

    def set_snapshot_shared_lister(self, lister: SharedLister | None) -> None:
        self._snapshot = lister

    def iterate_over_waiting_pods(self, callback: Callable[[WaitingPod], None]) -> None:
        for waiting_pod in self.waiting_pods:
            callback(waiting_pod)

    def get_waiting_pod(self, uid: str) -> WaitingPod | None:
        return self.waiting_pods.get(uid)

    def reject_waiting_pod(self, uid: str) -> bool:
        waiting_pod = self.waiting_pods.get(uid)
        return waiting_pod.reject("", "removed") if waiting_pod is not None else False

    def nominated_pods_for_node(self, node_name: str) -> list[PodInfo]:
        if self.pod_nominator is None:
            return []
        return self.pod_nominator.nominated_pods_for_node(node_name)

    def nominated_pods_for_nodes(self, node_names: Sequence[str]) -> list[list[PodInfo]]:
        """``nominated_pods_for_node`` for each node, in one call when the nominator can."""
        nominator = self.pod_nominator
        if nominator is None:
            return [[] for _ in node_names]
        many = getattr(nominator, "nominated_pods_for_nodes", None)
        if many is None:
            return [nominator.nominated_pods_for_node(name) for name in node_names]
        return many(node_names)

    def activate(self, pods: dict[str, Pod]) -> None:
        if self.pod_activator is not None:
            self.pod_activator.activate(pods)

    def pod_group_manager(self) -> Any:
        """The scheduler cache's pod-group side (``pod_group_states()``), for GangScheduling."""
        return self._pod_group_manager

    def parallelizer(self) -> Parallelizer:
        return self._parallelizer

    def extenders(self) -> list[Any]:
        return self._extenders

    def cluster(self) -> Cluster | None:
        return self._cluster

    def event_recorder(self) -> Any:
        return self._event_recorder

    def has_filter_plugins(self) -> bool:
        return bool(self.filter_plugins)

    def has_post_filter_plugins(self) -> bool:
        return bool(self.post_filter_plugins)

    def has_score_plugins(self) -> bool:
        return bool(self.score_plugins)


class _EveryNode:
    """Contains every node name: a nominator that cannot list its nodes is asked per node."""

    def __contains__(self, name: object) -> bool:
        return True

    def __bool__(self) -> bool:
        return True


_EVERY_NODE = _EveryNode()


_NODE_NAME = attrgetter("node_name")

_NO_BATCH: tuple[None, list[str]] = (None, [])
"""``Framework._node_names``'s cache when no batch event has been reported yet."""


def _filter_failure(plugin: Plugin, status: Status) -> Status:
    """A Filter plugin's failure as the runtime reports it: rejections named, errors wrapped."""
    if not status.is_rejected():
        status = wrap_error(status, f'running "{plugin.name}" filter plugin')
    status.plugin = plugin.name
    return status


def _invalid_score(names: Sequence[str], columns: list[list[int]]) -> Status:
    """The error for the first out-of-range score, looking node by node, plugin by plugin."""
    for index in range(len(columns[0])):
        for name, column in zip(names, columns, strict=True):
            score = column[index]
            if score > MAX_NODE_SCORE or score < MIN_NODE_SCORE:
                return Status.error(
                    "applying score defaultWeights on Score plugins: "
                    f'plugin "{name}" returns an invalid score {score}, it should in '
                    f"the range of [{MIN_NODE_SCORE}, {MAX_NODE_SCORE}] after normalizing"
                )
    raise AssertionError("no invalid score")


def permit_outcome_status(outcome: Status | None) -> Status | None:
    """What WaitOnPermit returns for a waiting pod's outcome."""
    if outcome is None or outcome.is_success():
        return None
    if outcome.is_rejected():
        return outcome
    return Status(
        Code.ERROR, err=StatusError(f"waiting on permit for pod: {outcome.as_error()}")
    ).with_plugin(outcome.plugin)


def _no_node_satisfies(narrowed_by: set[str]) -> Status:
    names = sorted(narrowed_by)
    if len(names) == 1:
        message = f"node(s) didn't satisfy plugin {names[0]}"
    else:
        message = f"node(s) didn't satisfy plugin(s) [{' '.join(names)}] simultaneously"
    return Status(Code.UNSCHEDULABLE_AND_UNRESOLVABLE, message)
