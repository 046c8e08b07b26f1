"""ScheduleOnePodGroup: one pod group's scheduling cycle (upstream schedule_one_podgroup.go).

With the GenericWorkload gate, a popped pod that names a pod group brings its group's other
unscheduled members out of the queue, and the group is scheduled as a whole, in the order
things happen here:

1. the members, by priority then first attempt, each through the pod's scheduling algorithm
   (Filter, Score, PostFilter) on one snapshot, assumed there (not in the cache), Reserved and
   Permitted, so each next member sees the ones before it placed;
2. every such assumption is undone, and the group is feasible as soon as one member's Permit
   succeeds (GangScheduling lets it through once minCount members are placed); with
   WorkloadAwarePreemption an unschedulable group then preempts as a whole
   (``_pod_group_post_filter``, framework/preemption/pod_group_preemption.py);
3. a feasible group's placed members get their real cycle end (assume in the cache, Reserve,
   Permit) and their binding cycles; the others fail as ordinary pods do, members that fitted
   in an infeasible group with ``pod group is unschedulable, <their Permit message>``;
4. the PodGroup gets ``PodGroupScheduled``.

With TopologyAwareWorkloadScheduling, step 1 and 2 run once per placement (a set of nodes the
profile's PlacementGenerate plugin proposes, one per topology domain of the group's
constraint), the snapshot limited to that placement's nodes each time; the group takes the
feasible placement its PlacementScore plugins rank best.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from dataclasses import dataclass, field
from time import perf_counter
from typing import TYPE_CHECKING, Any

from framework import metrics
from framework.api.pod_group import (
    POD_GROUP_SCHEDULED,
    REASON_SCHEDULED,
    REASON_SCHEDULER_ERROR,
    REASON_UNSCHEDULABLE,
    Condition,
    PodGroup,
)
from framework.backend.cache.errors import CacheError
from framework.features import FeatureGates
from framework.interface.cycle_state import CycleState
from framework.interface.placement import Placement, PodGroupAssignments
from framework.interface.pod_group_info import QueuedPodGroupInfo
from framework.interface.status import Code, Status, StatusError
from framework.interface.types import NominatingInfo, NominatingMode, QueuedPodInfo
from framework.plugins.names import DEFAULT_PREEMPTION
from framework.scheduler.cycle import AttemptAborted, Cycle
from framework.scheduler.schedule_one import (
    CLEAR_NOMINATED_NODE,
    PODS_TO_ACTIVATE_KEY,
    PodsToActivate,
    ScheduleResult,
    SchedulingAttempt,
    single_node_fit_error,
)

if TYPE_CHECKING:
    from framework.api.pod import Pod
    from framework.features import FeatureGates
    from framework.runtime.framework import Framework

WORKLOAD_AWARE_PREEMPTION = "WorkloadAwarePreemption"
PREEMPTION_NOT_REGISTERED = (
    "default preemption plugin is not registered, workload aware preemption is disabled"
)
PREEMPTION_WITH_CONSTRAINTS = (
    "workload aware preemption is not supported for pod groups with scheduling constraints"
)

POD_GROUP_UNSCHEDULABLE = StatusError("pod group is unschedulable")
"""The error of an infeasible group's status (upstream errPodGroupUnschedulable)."""


@dataclass(slots=True)
class PodSchedulingContext:
    """One member's attempt within the group's cycle: its own CycleState, marked as part of
    the group's cycle, and its report."""

    state: CycleState
    pods_to_activate: PodsToActivate
    attempt: SchedulingAttempt


@dataclass(slots=True)
class AlgorithmResult:
    """What the algorithm found for one member."""

    pod_info: QueuedPodInfo
    context: PodSchedulingContext
    schedule_result: ScheduleResult = field(default_factory=ScheduleResult)
    status: Status | None = None
    permit_status: Status | None = None
    """Permit's answer (Success or Wait), set when the member was placed."""
    requires_preemption: bool = False

    def get_pod(self) -> Pod:
        """A ProposedAssignment's pod (PlacementScore plugins read these)."""
        return self.pod_info.pod

    def get_node_name(self) -> str:
        """The member's proposed node; empty when it fits nowhere."""
        return self.schedule_result.suggested_host


@dataclass(slots=True)
class PodGroupAlgorithmResult:
    """The members' results and the group's verdict: success (bind the placed members),
    Unschedulable (all back to the queue) or Error (none scheduled this time)."""

    status: Status | None
    pod_results: list[AlgorithmResult] = field(default_factory=list)
    waiting_on_preemption: bool = False


class ScheduleOnePodGroup:
    """The pod-group cycle; mixed into Scheduler beside ScheduleOne (see scheduler.py)."""

    # Provided by Scheduler and ScheduleOne.
    profiles: dict[str, Framework]
    queue: Any
    cache: Any
    snapshot: Any
    cluster: Any
    features: FeatureGates
    current_cycle: Cycle | None
    rng: random.Random
    pod_group_cycle_hooks: tuple[Callable[[Framework, QueuedPodGroupInfo], None], ...] = ()
    """Called as each group's cycle starts, once the snapshot is up to date (the debugger's
    pod-group breakpoints stop there)."""

    def schedule_one_pod_group(self, pod_info: QueuedPodInfo) -> None:
        """Schedules the group of a popped member, with the members the queue holds."""
        try:
            group_info = self._pod_group_info_for_pod(pod_info)
        except LookupError as err:
            framework = self.profiles.get(pod_info.pod.spec.scheduler_name)
            if framework is None:
                self.queue.done(pod_info.pod.uid)
                return
            attempt = self._begin_attempt(framework, pod_info)
            self._handle_scheduling_failure(
                framework, pod_info, Status.as_status(err), None, attempt
            )
            return
        try:
            framework = self._framework_for_pod_group(group_info)
        except LookupError as err:
            self._fail_every_member(group_info, Status.as_status(err))
            return
        self._skip_pod_group_pod_schedule(framework, group_info)
        if group_info.queued_pod_infos:
            self._pod_group_cycle(framework, CycleState(), group_info)

    # -- the group ----------------------------------------------------------------------------

    def _pod_group_info_for_pod(self, pod_info: QueuedPodInfo) -> QueuedPodGroupInfo:
        """The popped member and every other unscheduled member still queued, in order."""
        pod = pod_info.pod
        try:
            state = self.cache.pod_group_states().get(pod.namespace, pod.spec.pod_group_name)
        except LookupError as err:
            raise LookupError(f"error while retrieving pod group state: {err}") from err
        members = [pod_info]
        for other in state.unscheduled().values():
            if other.name == pod.name:
                continue
            popped = self.queue.pop_specific_pod(other)
            if popped is not None:
                members.append(popped)
        members.sort(key=_member_order)
        group_info = QueuedPodGroupInfo(pod.namespace, pod.spec.pod_group_name)
        group_info.set_pods(members)
        return group_info

    def _framework_for_pod_group(self, group_info: QueuedPodGroupInfo) -> Framework:
        name, *others = [p.pod.spec.scheduler_name for p in group_info.queued_pod_infos]
        mismatch = next((other for other in others if other != name), None)
        if mismatch is not None:
            raise LookupError(
                "all pods in a single pod group should have the same .spec.schedulerName set, "
                f'got: "{mismatch}" and "{name}"'
            )
        framework = self.profiles.get(name)
        if framework is None:
            raise LookupError(f'profile not found for scheduler name "{name}"')
        return framework

    def _fail_every_member(self, group_info: QueuedPodGroupInfo, status: Status) -> None:
        for pod_info in group_info.queued_pod_infos:
            framework = self.profiles.get(pod_info.pod.spec.scheduler_name)
            if framework is None:
                self.queue.done(pod_info.pod.uid)
                continue
            attempt = self._begin_attempt(framework, pod_info)
            self._handle_scheduling_failure(
                framework, pod_info, status.clone(), CLEAR_NOMINATED_NODE, attempt
            )

    def _skip_pod_group_pod_schedule(
        self, framework: Framework, group_info: QueuedPodGroupInfo
    ) -> None:
        """Drops members being deleted or already assumed, as a pod's own cycle would."""
        kept = []
        for pod_info in group_info.queued_pod_infos:
            if self._skip_pod_schedule(framework, pod_info.pod):
                self.queue.done(pod_info.pod.uid)
            else:
                kept.append(pod_info)
        if len(kept) != len(group_info.queued_pod_infos):
            group_info.set_pods(kept)

    # -- the cycle ----------------------------------------------------------------------------

    def _pod_group_cycle(
        self, framework: Framework, group_state: CycleState, group_info: QueuedPodGroupInfo
    ) -> None:
        try:
            self.cache.update_snapshot(self.snapshot)
        except Exception as err:
            result = PodGroupAlgorithmResult(status=Status.as_status(err))
        else:
            for hook in self.pod_group_cycle_hooks:
                hook(framework, group_info)
            result = self._pod_group_scheduling_algorithm(framework, group_state, group_info)
            self._pod_group_post_filter(result, framework, group_state, group_info)
        self._submit_pod_group_algorithm_result(framework, group_state, group_info, result)

    def _pod_group_post_filter(
        self,
        result: PodGroupAlgorithmResult,
        framework: Framework,
        group_state: CycleState,
        group_info: QueuedPodGroupInfo,
    ) -> None:
        """With WorkloadAwarePreemption, an unschedulable group preempts as a whole: on
        success its members go back to the queue to wait for the victims to go; otherwise
        the preemption's verdict is appended to the group's status (or replaces it, for an
        error)."""
        status = result.status
        if not self.features.enabled(WORKLOAD_AWARE_PREEMPTION):
            return
        if status is None or status.code != Code.UNSCHEDULABLE:
            return
        preemption = self._run_workload_aware_preemption(framework, group_state, group_info)
        if _succeeded(preemption):
            result.waiting_on_preemption = True
        elif preemption.is_error():
            result.status = preemption
        else:
            status.append_reason(preemption.message())

    def _run_workload_aware_preemption(
        self, framework: Framework, group_state: CycleState, group_info: QueuedPodGroupInfo
    ) -> Status | None:
        """DefaultPreemption's PodGroupPostFilter on a backed-up snapshot, the group's fit
        judged by this cycle's algorithm without PostFilter; the snapshot is restored after."""
        plugin = framework.plugins_map.get(DEFAULT_PREEMPTION)
        if plugin is None or not hasattr(plugin, "pod_group_post_filter"):
            return Status(Code.UNSCHEDULABLE, PREEMPTION_NOT_REGISTERED)
        group = self.cluster.get("PodGroup", group_info.name, group_info.namespace)
        if not isinstance(group, PodGroup):
            return Status.as_status(
                StatusError(
                    "failed to get pod group object: "
                    f'podgroup.scheduling.k8s.io "{group_info.name}" not found'
                )
            )
        if group.spec.topology_keys:
            return Status(Code.UNSCHEDULABLE, PREEMPTION_WITH_CONSTRAINTS)
        try:
            restore = self.snapshot.backup_snapshot()
        except Exception as err:
            return Status.as_status(StatusError(f"failed to backup snapshot: {err}"))

        def pod_group_fits() -> Status | None:
            # Member cycles inherit the flag (_init_pod_scheduling_context): no PostFilter.
            # The trials are not traced: a member's attempt reports its own trial only.
            group_state.skip_all_post_filter_plugins = True
            observer, framework.observer = framework.observer, None
            try:
                return self._pod_group_scheduling_algorithm(
                    framework, group_state, group_info
                ).status
            finally:
                group_state.skip_all_post_filter_plugins = False
                framework.observer = observer

        try:
            return plugin.pod_group_post_filter(group, group_info.unscheduled_pods, pod_group_fits)
        finally:
            restore()

    def _pod_group_scheduling_algorithm(
        self, framework: Framework, group_state: CycleState, group_info: QueuedPodGroupInfo
    ) -> PodGroupAlgorithmResult:
        """The placement algorithm with TopologyAwareWorkloadScheduling, else the default."""
        if self.features.enabled("TopologyAwareWorkloadScheduling"):
            return self._pod_group_scheduling_placement_algorithm(
                framework, group_state, group_info
            )
        return self._pod_group_scheduling_default_algorithm(framework, group_state, group_info)

    def _pod_group_scheduling_placement_algorithm(
        self, framework: Framework, group_state: CycleState, group_info: QueuedPodGroupInfo
    ) -> PodGroupAlgorithmResult:
        """Runs the default algorithm in each generated placement, the snapshot limited to
        its nodes; the group takes the one feasible placement, or the best scored of several.
        When none is feasible, the first placement's result reports why, wrapped."""
        placements, status = framework.run_placement_generate_plugins(
            group_state, group_info, self.snapshot.list()
        )
        if status is not None and not status.is_success():
            return PodGroupAlgorithmResult(status=status)
        first: PodGroupAlgorithmResult | None = None
        feasible: list[tuple[Placement, PodGroupAlgorithmResult]] = []
        for placement in placements:
            result = self._pod_group_scheduling_in_placement(
                framework, group_state, group_info, placement
            )
            if result.status is not None and result.status.is_error():
                return result
            if first is None:
                first = result
            if _succeeded(result.status) or result.waiting_on_preemption:
                feasible.append((placement, result))
        if not feasible:
            first.status = Status(
                Code.UNSCHEDULABLE,
                f"0/{len(placements)} placements are available, first placement status: "
                f"{first.status.as_error()}",
            )
            return first
        if len(feasible) == 1:
            return feasible[0][1]
        return self._best_placement_result(framework, group_state, group_info, feasible)

    def _pod_group_scheduling_in_placement(
        self,
        framework: Framework,
        group_state: CycleState,
        group_info: QueuedPodGroupInfo,
        placement: Placement,
    ) -> PodGroupAlgorithmResult:
        """The default algorithm with the snapshot limited to the placement's nodes."""
        try:
            self.snapshot.assume_placement(placement)
        except CacheError as err:
            message = f"failed to assume pod group placement: {err}"
            return PodGroupAlgorithmResult(status=Status.as_status(StatusError(message)))
        try:
            return self._pod_group_scheduling_default_algorithm(framework, group_state, group_info)
        finally:
            self.snapshot.forget_placement()

    def _best_placement_result(
        self,
        framework: Framework,
        group_state: CycleState,
        group_info: QueuedPodGroupInfo,
        feasible: list[tuple[Placement, PodGroupAlgorithmResult]],
    ) -> PodGroupAlgorithmResult:
        """The feasible placement with the highest total PlacementScore; ties broken at
        random, as upstream (upstream's list comes from a map: no order to keep)."""
        assignments = [
            PodGroupAssignments(placement, [r for r in result.pod_results if r.get_node_name()])
            for placement, result in feasible
        ]
        scores, status = framework.run_placement_score_plugins(group_state, group_info, assignments)
        if status is not None and not status.is_success():
            return PodGroupAlgorithmResult(status=status)
        for score in scores:
            score.randomizer = self.rng.getrandbits(63)
        best = max(range(len(scores)), key=lambda i: (scores[i].total_score, scores[i].randomizer))
        return feasible[best][1]

    def _pod_group_scheduling_default_algorithm(
        self, framework: Framework, group_state: CycleState, group_info: QueuedPodGroupInfo
    ) -> PodGroupAlgorithmResult:
        """Tries each member in order on the one snapshot; the group is feasible once a
        member's Permit succeeds. Every assumption is undone before returning (last first)."""
        result = PodGroupAlgorithmResult(
            status=Status(Code.UNSCHEDULABLE, err=POD_GROUP_UNSCHEDULABLE)
        )
        reverts: list[Callable[[], None]] = []
        requires_preemption = False
        try:
            for pod_info in group_info.queued_pod_infos:
                pod_result, revert = self._pod_group_pod_scheduling_algorithm(
                    framework, group_state, pod_info
                )
                result.pod_results.append(pod_result)
                status = pod_result.status
                if not _succeeded(status) and not pod_result.requires_preemption:
                    if status is not None and status.is_rejected():
                        continue  # the group may still reach its quorum without it
                    result.status = Status.as_status(
                        StatusError(
                            "failed to schedule other pod from a pod group: "
                            f"{status.as_error() if status is not None else ''}"
                        )
                    )
                    result.waiting_on_preemption = False
                    break
                if revert is not None:
                    reverts.append(revert)
                requires_preemption = requires_preemption or pod_result.requires_preemption
                if _succeeded(pod_result.permit_status):
                    if requires_preemption:
                        result.status = Status(
                            Code.UNSCHEDULABLE,
                            "pod group is waiting for preemption to complete",
                            err=POD_GROUP_UNSCHEDULABLE,
                        )
                        result.waiting_on_preemption = True
                    else:
                        result.status = None
        finally:
            for revert in reversed(reverts):
                revert()
        return result

    def _pod_group_pod_scheduling_algorithm(
        self, framework: Framework, group_state: CycleState, pod_info: QueuedPodInfo
    ) -> tuple[AlgorithmResult, Callable[[], None] | None]:
        """One member: the pod's algorithm, then assume (in the snapshot), Reserve and Permit.
        A member that needs preemption is placed on its nominated node, so the next members
        see it there. The revert undoes the assumption."""
        context = self._init_pod_scheduling_context(framework, pod_info, group_state)
        result = AlgorithmResult(pod_info, context)
        self.current_cycle = Cycle(pod_info, context.state, framework)
        try:
            schedule_result, status = self._scheduling_algorithm(
                framework, context.state, pod_info, perf_counter()
            )
        except AttemptAborted as aborted:
            schedule_result, status = ScheduleResult(), aborted.status()
        result.schedule_result, result.status = schedule_result, status
        attempt = context.attempt
        attempt.evaluated_nodes = schedule_result.evaluated_nodes
        attempt.feasible_nodes = schedule_result.feasible_nodes
        attempt.final_scores = schedule_result.final_scores
        if status is not None and not status.is_success():
            nominated = schedule_result.nominating_info
            if nominated is None or not nominated.nominated_node_name:
                return result, None
            schedule_result.suggested_host = nominated.nominated_node_name
            result.requires_preemption = True
        host = schedule_result.suggested_host
        try:
            return self._assume_reserve_permit(framework, result, host)
        except AttemptAborted as aborted:
            self._abandon_assumed(framework, context.state, pod_info, host)
            return self._failed_trial(result, aborted.status()), None

    def _assume_reserve_permit(
        self, framework: Framework, result: AlgorithmResult, host: str
    ) -> tuple[AlgorithmResult, Callable[[], None] | None]:
        """A placed member's trial: assumed in the snapshot, reserved, permitted. With
        Permit's Success or Wait it stays assumed until the returned revert runs."""
        state = result.context.state
        assumed, status = self._assume_and_reserve(
            framework, state, result.pod_info, result.schedule_result
        )
        if status is not None and not status.is_success():
            return self._failed_trial(result, status), None

        def revert() -> None:
            self._unreserve_and_forget(framework, state, assumed, host)

        _, permit_status = framework.run_permit_plugins(state, assumed.pod, host)
        if permit_status is not None and not (
            permit_status.is_wait() or permit_status.is_success()
        ):
            revert()
            if permit_status.is_rejected():
                permit_status = single_node_fit_error(assumed.pod, host, permit_status)
            return self._failed_trial(result, permit_status), None
        result.permit_status = permit_status
        return result, revert

    @staticmethod
    def _failed_trial(result: AlgorithmResult, status: Status) -> AlgorithmResult:
        result.schedule_result = ScheduleResult(nominating_info=CLEAR_NOMINATED_NODE)
        result.status, result.requires_preemption = status, False
        return result

    def _init_pod_scheduling_context(
        self, framework: Framework, pod_info: QueuedPodInfo, group_state: CycleState
    ) -> PodSchedulingContext:
        state = CycleState()
        pods_to_activate = PodsToActivate()
        state.write(PODS_TO_ACTIVATE_KEY, pods_to_activate)
        state.set_pod_group_scheduling_cycle(group_state)
        state.skip_all_post_filter_plugins = group_state.skip_all_post_filter_plugins
        return PodSchedulingContext(
            state, pods_to_activate, self._begin_attempt(framework, pod_info)
        )

    # -- after the algorithm ------------------------------------------------------------------

    def _submit_pod_group_algorithm_result(
        self,
        framework: Framework,
        group_state: CycleState,
        group_info: QueuedPodGroupInfo,
        result: PodGroupAlgorithmResult,
    ) -> None:
        """Binds the placed members of a feasible group, fails the others, and sets the
        PodGroup's condition."""
        for index, pod_info in enumerate(group_info.queued_pod_infos):
            if index < len(result.pod_results):
                pod_result = result.pod_results[index]
            else:  # the group failed before this member was tried
                context = self._init_pod_scheduling_context(framework, pod_info, group_state)
                status = result.status.clone() if result.status is not None else None
                pod_result = AlgorithmResult(pod_info, context, status=status)
            self._submit_pod_result(framework, result, pod_result)
        self._update_pod_group_condition(group_info, _pod_group_condition(result.status))
        _count_pod_group_attempt(framework, result)

    def _submit_pod_result(
        self, framework: Framework, group: PodGroupAlgorithmResult, pod_result: AlgorithmResult
    ) -> None:
        pod_info, context = pod_result.pod_info, pod_result.context
        status, group_status = pod_result.status, group.status

        def fail(status: Status, nominating_info: NominatingInfo | None) -> None:
            self.current_cycle = Cycle(pod_info, context.state, framework)
            self._handle_scheduling_failure(
                framework, pod_info, status, nominating_info, context.attempt
            )

        if group_status is not None and group_status.is_error():
            own_error = status is not None and status.is_error()
            fail(status if own_error else group_status, CLEAR_NOMINATED_NODE)
            return
        if not _succeeded(status):
            if pod_result.requires_preemption and not group.waiting_on_preemption:
                fail(_gang_unschedulable(pod_result.permit_status), CLEAR_NOMINATED_NODE)
            else:
                fail(status, pod_result.schedule_result.nominating_info)
            return
        if group_status is None:
            self._bind_pod_of_group(framework, pod_result)
        elif group_status.is_rejected():
            if group.waiting_on_preemption:
                host = pod_result.schedule_result.suggested_host
                fail(group_status, NominatingInfo(host, NominatingMode.OVERRIDE))
            else:
                fail(_gang_unschedulable(pod_result.permit_status), CLEAR_NOMINATED_NODE)
        else:
            fail(
                Status.as_status(
                    StatusError(
                        "received unexpected pod group scheduling algorithm status code: "
                        f"{group_status.code}"
                    )
                ),
                CLEAR_NOMINATED_NODE,
            )

    def _bind_pod_of_group(self, framework: Framework, pod_result: AlgorithmResult) -> None:
        """The member's real cycle end (assumed in the cache this time, Reserve, Permit), then
        its binding cycle."""
        pod_info, context = pod_result.pod_info, pod_result.context
        state, result, attempt = context.state, pod_result.schedule_result, context.attempt
        state.set_pod_group_scheduling_cycle(None)
        self.current_cycle = Cycle(pod_info, state, framework)
        assumed, status = self._prepare_unless_aborted(framework, state, pod_info, result)
        if status is not None and not status.is_success():
            self._handle_scheduling_failure(
                framework, assumed, status, CLEAR_NOMINATED_NODE, attempt
            )
            return
        attempt.node = result.suggested_host
        self._start_binding_cycle(framework, state, result, assumed, attempt)

    def _update_pod_group_condition(
        self, group_info: QueuedPodGroupInfo, condition: Condition
    ) -> None:
        """Sets PodGroupScheduled, unless the group was already scheduled (a later cycle for
        extra members must not turn it back to False) or nothing changes."""
        group = self.cluster.get("PodGroup", group_info.name, group_info.namespace)
        if not isinstance(group, PodGroup):
            return
        updated = group.with_condition(condition)
        if updated is not None:
            self.cluster.update(updated)


def _member_order(pod_info: QueuedPodInfo) -> tuple[int, float]:
    """Highest priority first, then the earliest first attempt."""
    timestamp = pod_info.initial_attempt_timestamp
    return (-pod_info.pod.spec.priority, timestamp if timestamp is not None else 0.0)


def _succeeded(status: Status | None) -> bool:
    return status is None or status.is_success()


def _gang_unschedulable(permit_status: Status | None) -> Status:
    """A member that fitted, in a group that did not: its Permit message after the group's."""
    message = permit_status.message() if permit_status is not None else ""
    return Status(Code.UNSCHEDULABLE, message, err=POD_GROUP_UNSCHEDULABLE)


def _count_pod_group_attempt(framework: Framework, result: PodGroupAlgorithmResult) -> None:
    """``scheduler_podgroup_schedule_attempts_total`` by the group's outcome; a group that
    preempted and waits for its victims to go counts apart from an unschedulable one."""
    status = result.status
    if _succeeded(status):
        outcome = metrics.POD_GROUP_SCHEDULED
    elif status.is_rejected():
        waiting = result.waiting_on_preemption
        outcome = (
            metrics.POD_GROUP_WAITING_ON_PREEMPTION if waiting else metrics.POD_GROUP_UNSCHEDULABLE
        )
    else:
        outcome = metrics.POD_GROUP_ERROR
    framework.metrics.inc(
        metrics.PODGROUP_SCHEDULE_ATTEMPTS_TOTAL, result=outcome, profile=framework.profile_name()
    )


def _pod_group_condition(status: Status | None) -> Condition:
    if _succeeded(status):
        message = status.message() if status is not None else ""
        return Condition(POD_GROUP_SCHEDULED, "True", REASON_SCHEDULED, message)
    if status.is_rejected():
        return Condition(POD_GROUP_SCHEDULED, "False", REASON_UNSCHEDULABLE, status.message())
    error = status.as_error()
    return Condition(POD_GROUP_SCHEDULED, "False", REASON_SCHEDULER_ERROR, str(error))
