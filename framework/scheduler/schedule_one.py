"""ScheduleOne: one pod's scheduling cycle, then its binding cycle (upstream schedule_one.go).

Reads top-down in the order things happen: pop → framework for the pod → snapshot →
PreFilter → (nominated node) → Filter over sampled nodes → extenders → PostFilter on failure →
PreScore / Score / extenders' priorities → select host → assume → Reserve → Permit →
binding cycle (WaitOnPermit → PreBind → Bind → PostBind) or failure handling.

The methods live on the Scheduler (this class is one of its bases), as upstream's functions
are methods of its Scheduler type.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from time import perf_counter
from typing import TYPE_CHECKING, Any

from framework.backend.cache.errors import get_pod_key
from framework.interface.cycle_state import CycleState
from framework.interface.node_info import PodInfo
from framework.interface.status import Code, Status
from framework.interface.types import (
    EXTENDER_NAME,
    NodePluginScores,
    NodeToStatus,
    NominatingInfo,
    NominatingMode,
    PluginScore,
    QueuedPodInfo,
    ScoredNodes,
)
from framework.metrics import BINDING, PRIORITIZING_EXTENDER, SCHEDULING_ALGORITHM_DURATION_SECONDS
from framework.runtime.metrics_recorder import observe_point, should_record_plugin_metrics
from framework.scheduler import attempt_metrics
from framework.scheduler.cycle import AttemptAborted, Cycle
from framework.scheduler.fit_error import Diagnosis, FitError, NoNodesAvailableError
from framework.scheduler.select_host import SortedNodeScores
from framework.trace import EXTENSION_POINT, PointStart, TraceEvent, point_start, point_time

if TYPE_CHECKING:
    from framework.api.pod import Pod
    from framework.features import FeatureGates
    from framework.interface.node_info import NodeInfo
    from framework.metrics import Metrics
    from framework.runtime.framework import Framework
    from framework.scheduler.goroutines import Goroutines

MIN_FEASIBLE_NODES_TO_FIND = 100
MIN_FEASIBLE_NODES_PERCENTAGE_TO_FIND = 5
MAX_EXTENDER_PRIORITY = 10
MAX_NODE_SCORE = 100
NOTE_LENGTH_LIMIT = 1024
PODS_TO_ACTIVATE_KEY = "kubernetes.io/pods-to-activate"

CLEAR_NOMINATED_NODE = NominatingInfo("", NominatingMode.OVERRIDE)


class PodsToActivate:
    """Pods a plugin asks to move to the active queue at the end of the cycle (by "ns/name")."""

    def __init__(self) -> None:
        self.pods: dict[str, Pod] = {}

    def clone(self) -> PodsToActivate:
        return self  # shared on purpose: preemption's dry runs may add to it, as upstream


@dataclass(slots=True)
class ScheduleResult:
    """Where the pod goes, and how many nodes were looked at to decide."""

    suggested_host: str = ""
    evaluated_nodes: int = 0
    feasible_nodes: int = 0
    nominating_info: NominatingInfo | None = None
    final_scores: dict[str, int] = field(default_factory=dict)
    """Total score per node, when more than one node was feasible (for reports)."""


@dataclass(slots=True)
class SchedulingAttempt:
    """The outcome of one scheduling (and binding) attempt, for the CLI and the playground."""

    pod: str
    uid: str
    profile: str
    result: str = "Scheduled"
    node: str | None = None
    message: str = ""
    reason: str = ""
    evaluated_nodes: int = 0
    feasible_nodes: int = 0
    nominated_node: str | None = None
    final_scores: dict[str, int] = field(default_factory=dict)
    cycle: int = 0
    events: list[TraceEvent] = field(default_factory=list)
    started: float = field(default=0.0, repr=False, compare=False)
    """``perf_counter`` reading when the pod was popped: the start of the attempt's duration."""


class ScheduleOne:
    """The scheduling and binding cycles; mixed into Scheduler (see scheduler.py)."""

    # Provided by Scheduler.
    profiles: dict[str, Framework]
    queue: Any
    cache: Any
    snapshot: Any
    extenders: list[Any]
    cluster: Any
    clock: Any
    rng: random.Random
    percentage_of_nodes_to_score: int
    next_start_node_index: int
    tie_breaker: Callable[[Pod, list[str], str], str] | None
    current_cycle: Cycle | None
    features: FeatureGates
    metrics: Metrics
    goroutines: Goroutines
    schedule_one_pod_group: Callable[[QueuedPodInfo], None]

    # ------------------------------------------------------------------------------------------
    # ScheduleOne

    def schedule_one(self) -> bool:
        """Pops one pod and runs its scheduling cycle; False when the active queue is empty."""
        pod_info = self.queue.pop()
        if pod_info is None:
            return False
        pod = pod_info.pod
        if self.features.enabled("GenericWorkload") and pod.spec.pod_group_name is not None:
            self.schedule_one_pod_group(pod_info)
            return True
        framework = self.profiles.get(pod.spec.scheduler_name)
        if framework is None or self._skip_pod_schedule(framework, pod):
            self.queue.done(pod.uid)
            return True
        self._schedule_one_pod(framework, pod_info)
        return True

    def _skip_pod_schedule(self, framework: Framework, pod: Pod) -> bool:
        """A pod being deleted, or already assumed, is not scheduled again."""
        if pod.metadata.deletion_timestamp is not None:
            self.record_event(
                pod,
                "Warning",
                "FailedScheduling",
                "Scheduling",
                f"skip schedule deleting pod: {pod.namespace}/{pod.name}",
            )
            return True
        return self.cache.is_assumed_pod(pod)

    def _schedule_one_pod(self, framework: Framework, pod_info: QueuedPodInfo) -> None:
        attempt = self._begin_attempt(framework, pod_info)
        state = CycleState()
        state.record_plugin_metrics = should_record_plugin_metrics()
        pods_to_activate = PodsToActivate()
        state.write(PODS_TO_ACTIVATE_KEY, pods_to_activate)
        self.current_cycle = Cycle(pod_info, state, framework)
        result, assumed_pod_info, status = self._scheduling_cycle(
            framework, state, pod_info, attempt.started
        )
        attempt.evaluated_nodes = result.evaluated_nodes
        attempt.feasible_nodes = result.feasible_nodes
        attempt.final_scores = result.final_scores
        if status is not None and not status.is_success():
            self._handle_scheduling_failure(
                framework, assumed_pod_info, status, result.nominating_info, attempt
            )
            return
        attempt.node = result.suggested_host
        self._start_binding_cycle(framework, state, result, assumed_pod_info, attempt)

    # ------------------------------------------------------------------------------------------
    # Scheduling cycle

    def _scheduling_cycle(
        self, framework: Framework, state: CycleState, pod_info: QueuedPodInfo, started: float
    ) -> tuple[ScheduleResult, QueuedPodInfo, Status | None]:
        try:
            self.cache.update_snapshot(self.snapshot)
        except Exception as err:
            return (
                ScheduleResult(nominating_info=CLEAR_NOMINATED_NODE),
                pod_info,
                Status.as_status(err),
            )
        try:
            result, status = self._scheduling_algorithm(framework, state, pod_info, started)
        except AttemptAborted as aborted:
            return ScheduleResult(nominating_info=CLEAR_NOMINATED_NODE), pod_info, aborted.status()
        if status is not None and not status.is_success():
            return result, pod_info, status
        assumed, status = self._prepare_unless_aborted(framework, state, pod_info, result)
        if status is not None and not status.is_success():
            return replace(result, nominating_info=CLEAR_NOMINATED_NODE), assumed, status
        return result, assumed, None

    def _scheduling_algorithm(
        self, framework: Framework, state: CycleState, pod_info: QueuedPodInfo, started: float
    ) -> tuple[ScheduleResult, Status | None]:
        """Filter, score and select a host, or PostFilter when no node fits; timed from
        ``started`` (a ``perf_counter`` reading: the pod's pop, for a pod of its own)."""
        try:
            return self._find_host_or_post_filter(framework, state, pod_info)
        finally:
            self.metrics.observe(SCHEDULING_ALGORITHM_DURATION_SECONDS, perf_counter() - started)

    def _find_host_or_post_filter(
        self, framework: Framework, state: CycleState, pod_info: QueuedPodInfo
    ) -> tuple[ScheduleResult, Status | None]:
        pod = pod_info.pod
        try:
            return self._schedule_pod(framework, state, pod_info), None
        except NoNodesAvailableError as err:
            err.__traceback__ = None  # kept in the status: see FitError below
            status = Status(Code.UNSCHEDULABLE_AND_UNRESOLVABLE, err=err)
            return ScheduleResult(nominating_info=CLEAR_NOMINATED_NODE), status
        except FitError as fit_error:
            # The error outlives the attempt (statuses, events); its traceback would keep this
            # cycle's frames, and through them every node's status, in a reference cycle that
            # only the garbage collector frees: a sixth of the Preemption benchmark's time.
            fit_error.__traceback__ = None
            if not framework.has_post_filter_plugins():
                status = Status(Code.UNSCHEDULABLE, err=fit_error)
                result = ScheduleResult(
                    evaluated_nodes=_evaluated(fit_error), nominating_info=CLEAR_NOMINATED_NODE
                )
                return result, status
            post_result, post_status = framework.run_post_filter_plugins(
                state, pod, fit_error.diagnosis.node_to_status
            )
            fit_error.diagnosis.post_filter_msg = post_status.message()
            nominating_info = post_result.nominating_info if post_result is not None else None
            result = ScheduleResult(
                evaluated_nodes=_evaluated(fit_error), nominating_info=nominating_info
            )
            return result, Status(Code.UNSCHEDULABLE, err=fit_error)
        except _CycleError as err:
            return ScheduleResult(nominating_info=CLEAR_NOMINATED_NODE), err.status

    def _schedule_pod(
        self, framework: Framework, state: CycleState, pod_info: QueuedPodInfo
    ) -> ScheduleResult:
        """Finds the feasible nodes, scores them and picks one; raises FitError if none fits."""
        pod = pod_info.pod
        num_nodes = self.snapshot.num_nodes_in_placement()
        if num_nodes == 0:
            raise NoNodesAvailableError()
        feasible, diagnosis, node_hint = self._find_nodes_that_fit_pod(framework, state, pod_info)
        if not feasible:
            raise FitError(pod, num_nodes, diagnosis)
        if len(feasible) == 1:
            host = feasible[0].node_name
            self._store_schedule_results(framework, pod_info, node_hint, host, None)
            return ScheduleResult(
                suggested_host=host,
                evaluated_nodes=1 + len(diagnosis.node_to_status),
                feasible_nodes=1,
            )
        scores = self._prioritize_nodes(framework, state, pod, feasible)
        host, others = self._select_host(pod, scores)
        self._store_schedule_results(framework, pod_info, node_hint, host, others)
        return ScheduleResult(
            suggested_host=host,
            evaluated_nodes=len(feasible) + len(diagnosis.node_to_status),
            feasible_nodes=len(feasible),
            final_scores=_totals_by_name(scores),
        )

    def _select_host(
        self, pod: Pod, scores: Sequence[NodePluginScores]
    ) -> tuple[str, SortedNodeScores]:
        """The best node and the others, best first; among equal totals, the replay tie
        breaker may choose (see Scheduler), and the others are then the rest in a new heap."""
        ranking = SortedNodeScores(scores)
        host = ranking.pop()
        if self.tie_breaker is None:
            return host, ranking
        best = max(s.total_score for s in scores)
        tied = [s.name for s in scores if s.total_score == best]
        if len(tied) < 2:
            return host, ranking
        chosen = self.tie_breaker(pod, tied, host)
        if chosen == host:
            return host, ranking
        return chosen, SortedNodeScores([s for s in scores if s.name != chosen])

    def _store_schedule_results(
        self,
        framework: Framework,
        pod_info: QueuedPodInfo,
        node_hint: str,
        host: str,
        others: SortedNodeScores | None,
    ) -> None:
        """Hands the cycle's ranking to the profile's batch cache (OpportunisticBatching)."""
        if framework.batch is None:
            return
        framework.batch.store_schedule_results(
            pod_info.pod_signature, node_hint, host, others, self.queue.scheduling_cycle()
        )

    def _find_nodes_that_fit_pod(
        self, framework: Framework, state: CycleState, pod_info: QueuedPodInfo
    ) -> tuple[list[NodeInfo], Diagnosis, str]:
        """The feasible nodes, why the others failed, and the batch's node hint ("" if none).

        A node preemption nominated, or else the batch cache's hint, is tried first: if it
        fits, no other node is looked at.
        """
        diagnosis = Diagnosis()
        all_nodes = self.snapshot.list_nodes_in_placement()
        pod = pod_info.pod
        pre_result, status, narrowed_by = framework.run_pre_filter_plugins(state, pod)
        diagnosis.unschedulable_plugins = narrowed_by
        if status is not None and not status.is_success():
            if not status.is_rejected():
                raise _CycleError(Status.as_status(status.as_error()))
            diagnosis.node_to_status.absent_nodes_status = status
            diagnosis.pre_filter_msg = status.message()
            diagnosis.add_plugin_status(status)
            return [], diagnosis, ""
        node_hint = ""
        if framework.batch is not None:
            # Asked even when a node is nominated, as upstream (which then ignores the hint).
            node_hint = framework.batch.get_node_hint(
                pod, pod_info.pod_signature, state, self.queue.scheduling_cycle()
            )
        if pod.status.nominated_node_name or node_hint:
            feasible = self._evaluate_nominated_node(framework, state, pod, diagnosis, node_hint)
            if feasible:
                return feasible, diagnosis, node_hint
        nodes = all_nodes
        if pre_result is not None and not pre_result.all_nodes():
            nodes = [
                self.snapshot.get_node_in_placement(name)
                for name in pre_result.node_names
                if name in self.snapshot.node_info_map and self.snapshot.in_placement(name)
            ]
            names = " ".join(sorted(narrowed_by))
            diagnosis.node_to_status.absent_nodes_status = Status(
                Code.UNSCHEDULABLE_AND_UNRESOLVABLE, f"node(s) didn't satisfy plugin(s) [{names}]"
            )
        feasible = self._find_nodes_that_pass_filters(framework, state, pod, diagnosis, nodes)
        processed = len(feasible) + len(diagnosis.node_to_status)
        self.next_start_node_index = (self.next_start_node_index + processed) % len(all_nodes)
        after_extenders = self._find_nodes_that_pass_extenders(
            pod, feasible, diagnosis.node_to_status
        )
        if len(after_extenders) != len(feasible):
            diagnosis.unschedulable_plugins.add(EXTENDER_NAME)
        return after_extenders, diagnosis, node_hint

    def _evaluate_nominated_node(
        self,
        framework: Framework,
        state: CycleState,
        pod: Pod,
        diagnosis: Diagnosis,
        node_hint: str = "",
    ) -> list[NodeInfo]:
        """Filters only the nominated node (or, without one, the hinted node)."""
        node_name = pod.status.nominated_node_name or node_hint
        node_info = self.snapshot.node_info_map.get(node_name)
        if node_info is None or not self.snapshot.in_placement(node_name):
            return []  # outside the placement a pod-group cycle tries: not an error
        hint = "" if pod.status.nominated_node_name else node_hint
        feasible = self._find_nodes_that_pass_filters(
            framework, state, pod, diagnosis, [node_info], node_hint=hint
        )
        return self._find_nodes_that_pass_extenders(pod, feasible, diagnosis.node_to_status)

    def _find_nodes_that_pass_filters(
        self,
        framework: Framework,
        state: CycleState,
        pod: Pod,
        diagnosis: Diagnosis,
        nodes: list[NodeInfo],
        node_hint: str = "",
    ) -> list[NodeInfo]:
        """Filters nodes from the rotating start index until enough feasible ones are found.

        Upstream checks nodes in parallel and stops at ``numNodesToFind`` feasible ones. This
        checks them in the same order, in batches no larger than the number still to find, so
        it looks at exactly the nodes a one-by-one walk would and finds the same ones.
        """
        start = point_start()
        profile = framework.profile_name()
        num_all = len(nodes)
        to_find = self.num_feasible_nodes_to_find(framework.percentage_of_nodes_to_score, num_all)
        if not self._has_extender_filters() and not self._has_scoring(framework):
            to_find = 1
        shift = self.next_start_node_index % num_all if num_all else 0
        if not framework.has_filter_plugins():
            return _rotated_slice(nodes, shift, to_find)
        feasible: list[NodeInfo] = []
        checked = 0
        try:
            while checked < num_all and len(feasible) < to_find:
                wanted = min(to_find - len(feasible), num_all - checked)
                batch = _rotated_slice(nodes, shift + checked, wanted)
                checked += len(batch)
                statuses = framework.run_filter_plugins_with_nominated_pods_on_nodes(
                    state, pod, batch
                )
                for node_info, status in zip(batch, statuses, strict=True):
                    if status is None or status.code == Code.SUCCESS:
                        feasible.append(node_info)
                        continue
                    if status.code == Code.ERROR:
                        raise _CycleError(Status.as_status(status.as_error()))
                    diagnosis.node_to_status.set(node_info.node_name, status)
                    diagnosis.add_plugin_status(status)
        except _CycleError as err:
            # Upstream times Filter over all nodes here, not per node in the framework.
            observe_point(framework.metrics, "filter", err.status, point_time(start)[0], profile)
            raise
        observe_point(framework.metrics, "filter", None, point_time(start)[0], profile)
        self._emit_filter_summary(framework, pod, start, feasible, diagnosis, node_hint)
        return feasible

    def num_feasible_nodes_to_find(self, profile_percentage: int | None, num_all_nodes: int) -> int:
        """How many feasible nodes are enough (upstream numFeasibleNodesToFind)."""
        if num_all_nodes < MIN_FEASIBLE_NODES_TO_FIND:
            return num_all_nodes
        percentage = (
            profile_percentage
            if profile_percentage is not None
            else self.percentage_of_nodes_to_score
        )
        if percentage == 0:
            percentage = max(50 - num_all_nodes // 125, MIN_FEASIBLE_NODES_PERCENTAGE_TO_FIND)
        num_nodes = num_all_nodes * percentage // 100
        return max(num_nodes, MIN_FEASIBLE_NODES_TO_FIND)

    def _has_scoring(self, framework: Framework) -> bool:
        return framework.has_score_plugins() or any(e.is_prioritizer() for e in self.extenders)

    def _has_extender_filters(self) -> bool:
        return any(e.is_filter() for e in self.extenders)

    def _find_nodes_that_pass_extenders(
        self, pod: Pod, feasible: list[NodeInfo], statuses: NodeToStatus
    ) -> list[NodeInfo]:
        for extender in self.extenders:
            if not feasible:
                break
            if not extender.is_interested(pod):
                continue
            try:
                feasible, failed, failed_unresolvable = extender.filter(pod, feasible)
            except Exception as err:
                if extender.is_ignorable():
                    continue
                raise _CycleError(Status.as_status(err)) from err
            for node_name, message in failed_unresolvable.items():
                statuses.set(node_name, Status(Code.UNSCHEDULABLE_AND_UNRESOLVABLE, message))
            for node_name, message in failed.items():
                if node_name not in failed_unresolvable:
                    statuses.set(node_name, Status(Code.UNSCHEDULABLE, message))
        return feasible

    def _prioritize_nodes(
        self, framework: Framework, state: CycleState, pod: Pod, nodes: list[NodeInfo]
    ) -> Sequence[NodePluginScores]:
        """Plugin scores (weighted) plus extender priorities, per node."""
        if not self.extenders and not framework.has_score_plugins():
            return [NodePluginScores(n.node_name, total_score=1) for n in nodes]
        status = framework.run_pre_score_plugins(state, pod, nodes)
        if status is not None and not status.is_success():
            raise _CycleError(Status.as_status(status.as_error()))
        scores, status = framework.run_score_plugins(state, pod, nodes)
        if status is not None and not status.is_success():
            raise _CycleError(Status.as_status(status.as_error()))
        if self.extenders:
            scores = list(scores)  # items are changed: ScoredNodes' totals would not follow
            self._add_extender_scores(pod, nodes, scores)
        return scores

    def _add_extender_scores(
        self, pod: Pod, nodes: list[NodeInfo], scores: list[NodePluginScores]
    ) -> None:
        by_node: dict[str, list[PluginScore]] = {}
        for extender in self.extenders:
            if not extender.is_interested(pod):
                continue
            self.goroutines.started(PRIORITIZING_EXTENDER)
            try:
                priorities, weight = extender.prioritize(pod, nodes)
            except Exception:
                continue  # upstream ignores a prioritize error: the extender's scores are skipped
            finally:
                self.goroutines.ended(PRIORITIZING_EXTENDER)
            for host, score in priorities:
                final = score * weight * (MAX_NODE_SCORE // MAX_EXTENDER_PRIORITY)
                by_node.setdefault(host, []).append(PluginScore(extender.name(), final))
        for node_scores in scores:
            extra = by_node.get(node_scores.name)
            if extra is not None:
                node_scores.scores.extend(extra)
                node_scores.total_score += sum(s.score for s in extra)
                node_scores.randomizer = self.rng.getrandbits(63)

    # ------------------------------------------------------------------------------------------
    # Assume, Reserve, Permit

    def _prepare_for_binding_cycle(
        self,
        framework: Framework,
        state: CycleState,
        pod_info: QueuedPodInfo,
        result: ScheduleResult,
    ) -> tuple[QueuedPodInfo, Status | None]:
        assumed, status = self._assume_and_reserve(framework, state, pod_info, result)
        if status is not None and not status.is_success():
            return assumed, status
        host = result.suggested_host
        waits, permit_status = framework.run_permit_plugins(state, assumed.pod, host)
        if permit_status is not None and permit_status.is_wait():
            framework.add_waiting_pod(assumed.pod, waits or {})
        elif permit_status is not None and not permit_status.is_success():
            self._unreserve_and_forget(framework, state, assumed, host)
            if permit_status.is_rejected():
                return assumed, single_node_fit_error(pod_info.pod, host, permit_status)
            return assumed, permit_status
        pods_to_activate: PodsToActivate = state.read(PODS_TO_ACTIVATE_KEY)  # type: ignore[assignment]
        if pods_to_activate.pods:
            self.queue.activate(pods_to_activate.pods)
            pods_to_activate.pods = {}
        return assumed, None

    def _prepare_unless_aborted(
        self, framework: Framework, state: CycleState, queued: QueuedPodInfo, chosen: ScheduleResult
    ) -> tuple[QueuedPodInfo, Status | None]:
        """``_prepare_for_binding_cycle``; an observer's abort there is an Error after
        Unreserve and Forget, as a failing plugin's would be."""
        try:
            return self._prepare_for_binding_cycle(framework, state, queued, chosen)
        except AttemptAborted as aborted:
            assumed = self._abandon_assumed(framework, state, queued, chosen.suggested_host)
            return assumed, aborted.status()

    def _assume_and_reserve(
        self,
        framework: Framework,
        state: CycleState,
        pod_info: QueuedPodInfo,
        result: ScheduleResult,
    ) -> tuple[QueuedPodInfo, Status | None]:
        assumed = _deep_copy_queued(pod_info)
        host = result.suggested_host
        try:
            self._assume(state, assumed, host)
        except Exception as err:
            return assumed, Status.as_status(err)
        status = framework.run_reserve_plugins_reserve(state, assumed.pod, host)
        if status is not None and not status.is_success():
            self._unreserve_and_forget(framework, state, assumed, host)
            if status.is_rejected():
                return assumed, single_node_fit_error(pod_info.pod, host, status)
            return assumed, status
        return assumed, None

    def _assume(self, state: CycleState, assumed: QueuedPodInfo, host: str) -> None:
        """Puts the pod on the node in the cache now, so binding can finish later; in a
        pod-group cycle, in the snapshot only, so the group's next members see it there."""
        assumed.pod.spec.node_name = host
        if state.is_pod_group_scheduling_cycle():
            self.snapshot.assume_pod(assumed.pod_info)
        else:
            self.cache.assume_pod(assumed.pod)
        self.queue.delete_nominated_pod_if_exists(assumed.pod)

    def _unreserve_and_forget(
        self, framework: Framework, state: CycleState, assumed: QueuedPodInfo, host: str
    ) -> None:
        framework.run_reserve_plugins_unreserve(state, assumed.pod, host)
        if not state.is_pod_group_scheduling_cycle():
            self.cache.forget_pod(assumed.pod)
            return
        self.snapshot.forget_pod(assumed.pod)
        nominated = assumed.pod.status.nominated_node_name
        if nominated:
            # Assuming dropped the nomination; undoing a pod-group trial restores it.
            self.queue.add_nominated_pod(
                assumed.pod_info, NominatingInfo(nominated, NominatingMode.OVERRIDE)
            )

    def _abandon_assumed(
        self, framework: Framework, state: CycleState, pod_info: QueuedPodInfo, host: str
    ) -> QueuedPodInfo:
        """After an abort at Reserve or Permit: Unreserve and Forget if the pod was assumed,
        as a failing Reserve or Permit plugin would have caused."""
        assumed = _deep_copy_queued(pod_info)
        assumed.pod.spec.node_name = host
        if state.is_pod_group_scheduling_cycle():
            was_assumed = get_pod_key(assumed.pod) in self.snapshot.assumed_pods
        else:
            was_assumed = self.cache.is_assumed_pod(assumed.pod)
        if was_assumed:
            self._unreserve_and_forget(framework, state, assumed, host)
        return assumed

    # ------------------------------------------------------------------------------------------
    # Binding cycle

    def _start_binding_cycle(
        self,
        framework: Framework,
        state: CycleState,
        result: ScheduleResult,
        assumed: QueuedPodInfo,
        attempt: SchedulingAttempt,
    ) -> None:
        """Starts the binding cycle; a pod waiting at Permit resumes once allowed or rejected.

        Upstream's goroutine blocks in WaitOnPermit; here the second half is a callback of the
        waiting pod, so a simulation never blocks and a live scheduler never holds a thread.
        """

        def finish(status: Status | None) -> None:
            try:
                conclude(status)
            finally:
                self.goroutines.ended(BINDING)

        def conclude(status: Status | None) -> None:
            if status is not None and not status.is_success():
                self._handle_binding_cycle_error(framework, state, assumed, result, status, attempt)
                return
            attempt.result = "Scheduled"
            attempt.node = result.suggested_host
            attempt_metrics.pod_scheduled(
                framework.metrics, framework.profile_name(), attempt.started, assumed
            )
            self._record_attempt(attempt)

        def bound(status: Status | None) -> None:
            if status is None or status.is_success():
                self._activate_pods_to_activate(state)
            finish(status)

        def bind(status: Status | None) -> None:
            if status is not None:
                finish(status)
                return
            self.bind_pod(framework, state, assumed.pod, result.suggested_host, bound)

        cycle = self.current_cycle

        def until_bind() -> Status | None:
            self.current_cycle = cycle
            try:
                return self._binding_cycle_after_permit(framework, state, result, assumed)
            except AttemptAborted as aborted:
                return aborted.status()

        def after_permit(_: Any = None) -> None:
            self.binding_executor.submit(lambda: bind(until_bind()))

        def start() -> None:
            self.goroutines.started(BINDING)
            self.current_cycle = cycle  # an executor may start it after other cycles ran
            try:
                status = self._binding_cycle_until_permit(framework, state, result, assumed)
            except AttemptAborted as aborted:
                status = aborted.status()
            if status is not None:
                finish(status)
                return
            waiting_pod = framework.get_waiting_pod(assumed.pod.uid)
            if waiting_pod is None or waiting_pod.outcome() is not None:
                bind(until_bind())
                return
            self._record_attempt(replace(attempt, result="Waiting", node=result.suggested_host))
            waiting_pod.add_done_callback(after_permit)

        self.binding_executor.submit(start)

    def _binding_cycle_until_permit(
        self,
        framework: Framework,
        state: CycleState,
        result: ScheduleResult,
        assumed: QueuedPodInfo,
    ) -> Status | None:
        """PreBind pre-flight checks and the nominatedNodeName update; a failure ends the cycle."""
        pod, host = assumed.pod, result.suggested_host
        pre_flight = framework.run_pre_bind_pre_flights(state, pod, host)
        if pre_flight is not None and (pre_flight.code == Code.ERROR or pre_flight.is_rejected()):
            return pre_flight
        if pre_flight is None or framework.will_wait_on_permit(pod):
            # NominatedNodeNameForExpectation: tell the world where the pod is going.
            self.update_pod_status(pod, None, NominatingInfo(host, NominatingMode.OVERRIDE))
        return None

    def _binding_cycle_after_permit(
        self,
        framework: Framework,
        state: CycleState,
        result: ScheduleResult,
        assumed: QueuedPodInfo,
    ) -> Status | None:
        """WaitOnPermit's outcome, then PreBind; None when the pod may go on to Bind."""
        pod, host = assumed.pod, result.suggested_host
        status = framework.wait_on_permit(pod)
        if status is not None and not status.is_success():
            if status.is_rejected():
                return single_node_fit_error(pod, host, status, plugin=status.plugin)
            return status
        self.queue.done(pod.uid)
        status = framework.run_pre_bind_plugins(state, pod, host)
        if status is not None and not status.is_success():
            return status
        return None

    def bind_pod(
        self,
        framework: Framework,
        state: CycleState,
        pod: Pod,
        host: str,
        done: Callable[[Status | None], None],
    ) -> None:
        """Bind, then PostBind when Bind succeeded; ``done`` receives Bind's outcome.

        Runs both at once. A scheduler whose binding happens elsewhere (the playground sends it
        to a binding task) overrides this and calls ``done`` when the outcome comes back.
        """
        status = self.bind(framework, state, pod, host)
        if status is None or status.is_success():
            framework.run_post_bind_plugins(state, pod, host)
            status = None
        done(status)

    def _activate_pods_to_activate(self, state: CycleState) -> None:
        pods_to_activate: PodsToActivate = state.read(PODS_TO_ACTIVATE_KEY)  # type: ignore[assignment]
        if pods_to_activate.pods:
            self.queue.activate(pods_to_activate.pods)

    def bind(self, framework: Framework, state: CycleState, pod: Pod, host: str) -> Status | None:
        """Upstream's ``sched.bind``: a binder extender if one is interested, else the Bind
        plugins; a Scheduled event when it worked. PostBind is the caller's (``bind_pod``)."""
        status = self._extenders_binding(pod, host)
        if status is _NOT_BOUND_BY_EXTENDER:
            status = framework.run_bind_plugins(state, pod, host)
        if status is None or status.is_success():
            self.record_event(
                pod,
                "Normal",
                "Scheduled",
                "Binding",
                f"Successfully assigned {pod.namespace}/{pod.name} to {host}",
            )
        return status

    def _extenders_binding(self, pod: Pod, host: str) -> Status | object | None:
        for extender in self.extenders:
            if not extender.is_binder() or not extender.is_interested(pod):
                continue
            try:
                extender.bind(pod, host)
            except Exception as err:
                if extender.is_ignorable():
                    continue
                return Status.as_status(err)
            return None
        return _NOT_BOUND_BY_EXTENDER

    def _handle_binding_cycle_error(
        self,
        framework: Framework,
        state: CycleState,
        assumed: QueuedPodInfo,
        result: ScheduleResult,
        status: Status,
        attempt: SchedulingAttempt,
    ) -> None:
        pod = assumed.pod
        try:
            self._unreserve_and_forget(framework, state, assumed, result.suggested_host)
        except Exception:  # the cache already lost the pod: nothing to free
            pass
        else:
            # The freed resources may help other pods; the pod itself goes through backoff.
            others = (lambda p: p.uid != pod.uid) if status.is_rejected() else None
            self.move_all_to_active_or_backoff_queue_on_assigned_pod_delete(pod, others)
        attempt.node = None
        self._handle_scheduling_failure(framework, assumed, status, CLEAR_NOMINATED_NODE, attempt)

    # ------------------------------------------------------------------------------------------
    # Failure handling

    def _handle_scheduling_failure(
        self,
        framework: Framework,
        pod_info: QueuedPodInfo,
        status: Status,
        nominating_info: NominatingInfo | None,
        attempt: SchedulingAttempt,
    ) -> None:
        """Requeues the pod as unschedulable, records why, and sets the PodScheduled condition."""
        reason = "Unschedulable" if status.is_rejected() else "SchedulerError"
        attempt_metrics.pod_failed(
            framework.metrics, framework.profile_name(), attempt.started, status.is_rejected()
        )
        err = status.as_error()
        message = status.message()
        pod_info.clear_rejector_plugins()
        if isinstance(err, FitError):
            pod_info.unschedulable_plugins = set(err.diagnosis.unschedulable_plugins)
            pod_info.pending_plugins = set(err.diagnosis.pending_plugins)
        pod = pod_info.pod
        current = self.cluster.get("Pod", pod.name, pod.namespace) if self.cluster else pod
        called_done = False
        if current is not None and not current.spec.node_name and current.uid == pod.uid:
            pod_info.update(current.deep_copy())
            self.queue.add_unschedulable_if_not_present(pod_info, self.queue.scheduling_cycle())
            called_done = True
        if not called_done:
            self.queue.done(pod.uid)
        if current is not None and current.uid != pod.uid:
            return
        self.queue.add_nominated_pod(pod_info.pod_info, nominating_info)
        attempt.result = "Unschedulable" if reason == "Unschedulable" else "Error"
        attempt.reason = reason
        attempt.message = message
        attempt.nominated_node = _nominated(nominating_info, pod)
        self._record_attempt(attempt)
        if err is None:
            return
        self.record_event(pod, "Warning", "FailedScheduling", "Scheduling", _truncate(message))
        condition = {
            "type": "PodScheduled",
            "status": "False",
            "reason": reason,
            "message": message,
        }
        self.update_pod_status(pod, condition, nominating_info)

    # ------------------------------------------------------------------------------------------
    # Recording

    def _begin_attempt(self, framework: Framework, pod_info: QueuedPodInfo) -> SchedulingAttempt:
        pod = pod_info.pod
        return SchedulingAttempt(
            pod=pod.key,
            uid=pod.uid,
            profile=framework.profile_name(),
            cycle=self.queue.scheduling_cycle(),
            started=perf_counter(),
        )

    def _record_attempt(self, attempt: SchedulingAttempt) -> None:
        self.on_attempt(attempt)

    def _emit_filter_summary(
        self,
        framework: Framework,
        pod: Pod,
        start: PointStart,
        feasible: list[NodeInfo],
        diagnosis: Diagnosis,
        node_hint: str = "",
    ) -> None:
        observer = framework.observer
        if observer is None:
            return
        data: dict[str, Any] = {
            "feasibleNodes": [n.node_name for n in feasible],
            "failedNodes": {
                name: {"code": str(s.code), "plugin": s.plugin, "reasons": s.all_reasons()}
                for name, s in diagnosis.node_to_status.items()
            },
        }
        if node_hint:
            data["nodeHint"] = node_hint
        duration, stopped = point_time(start)
        observer.on_event(
            TraceEvent(
                kind=EXTENSION_POINT,
                point="filter",
                pod=pod.key,
                profile=framework.profile_name(),
                code="Success" if feasible else "Unschedulable",
                duration=duration,
                data=data,
                stopped=stopped,
            )
        )


class _CycleError(Exception):
    """An Error status that aborts the scheduling algorithm (upstream returns it as err)."""

    def __init__(self, status: Status | None) -> None:
        super().__init__(status.message() if status is not None else "")
        self.status = status or Status(Code.ERROR)


_NOT_BOUND_BY_EXTENDER = object()


def single_node_fit_error(pod: Pod, host: str, status: Status, plugin: str = "") -> Status:
    """Reserve / Permit rejections are reported as a FitError over the one chosen node."""
    diagnosis = Diagnosis()
    diagnosis.node_to_status.set(host, status)
    if plugin:
        diagnosis.unschedulable_plugins.add(plugin)
    else:
        diagnosis.add_plugin_status(status)
    return Status(status.code, err=FitError(pod, 1, diagnosis))


def _totals_by_name(scores: Sequence[NodePluginScores]) -> dict[str, int]:
    """Each node's total score, read from the columns when the runtime's result has them."""
    if isinstance(scores, ScoredNodes):
        return dict(zip(scores.names, scores.totals, strict=True))
    return {s.name: s.total_score for s in scores}


def _evaluated(fit_error: FitError) -> int:
    """Nodes looked at before failing: all of them when PreFilter rejected the pod."""
    if fit_error.diagnosis.pre_filter_msg:
        return fit_error.num_all_nodes
    return len(fit_error.diagnosis.node_to_status)


def _rotated_slice(nodes: list[NodeInfo], start: int, count: int) -> list[NodeInfo]:
    """``count`` nodes from ``start``, wrapping around to the front (at most all of them).

    Slices the list where it is, rather than rotating all of it first: a cycle looks at a
    few hundred nodes, and copying the whole list would make it cost the cluster's size.
    """
    size = len(nodes)
    if size == 0:
        return []
    start %= size
    end = start + min(count, size)
    if end <= size:
        return nodes[start:end]
    return nodes[start:] + nodes[: end - size]


def _deep_copy_queued(pod_info: QueuedPodInfo) -> QueuedPodInfo:
    return replace(pod_info, pod_info=PodInfo(pod_info.pod.deep_copy()))


def _nominated(info: NominatingInfo | None, pod: Pod) -> str | None:
    if info is not None and info.nominating_mode == NominatingMode.OVERRIDE:
        return info.nominated_node_name or None
    return pod.status.nominated_node_name or None


def _truncate(message: str) -> str:
    if len(message) <= NOTE_LENGTH_LIMIT:
        return message
    suffix = " ..."
    return message[: NOTE_LENGTH_LIMIT - len(suffix)] + suffix
