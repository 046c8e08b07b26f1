"""The Executor: evicts the chosen victims and clears nominations they no longer fit beside.

With SchedulerAsyncPreemption (Beta, on by default in v1.36) upstream does this work in a
goroutine after PostFilter returns. The engine is single-threaded, so the same work runs to
completion inside PostFilter, in upstream's order: clear lower-priority nominations first, then
evict every victim but the last, then the last one. The preemptor is marked as preempting
meanwhile, so PreEnqueue answers as upstream's would if it were asked during that work.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import dataclass
from time import perf_counter
from typing import TYPE_CHECKING, Any

from framework.api.field_errors import aggregate_message
from framework.api.pod import CONDITION_TRUE, DISRUPTION_TARGET
from framework.cluster.interface import NotFoundError
from framework.interface.status import Status, StatusError
from framework.metrics import (
    GOROUTINE_RESULT_SUCCESS,
    PREEMPTION_GOROUTINES_DURATION_SECONDS,
    PREEMPTION_GOROUTINES_EXECUTION_TOTAL,
    PREEMPTION_VICTIMS,
)
from framework.preemption.types import Candidate

if TYPE_CHECKING:
    from framework.api.pod import Pod
    from framework.api.pod_group import PodGroup
    from framework.cluster.interface import Cluster
    from framework.interface.handle import Handle, PodNominator
    from framework.plugins.feature import Features
    from framework.preemption.types import Victims

logger = logging.getLogger(__name__)

POD_REASON_PREEMPTION_BY_SCHEDULER = "PreemptionByScheduler"
CLUSTER_CANDIDATE = "cluster"
"""The candidate a pod group's preemption names: its domain is the whole cluster."""
EVENT_TYPE_NORMAL = "Normal"


class PodPreemptor:
    """A single pod that triggers preemption (upstream ``podExecutorPreemptor``)."""

    __slots__ = ("pod",)

    type = "pod"

    def __init__(self, pod: Pod) -> None:
        self.pod = pod

    @property
    def uid(self) -> str:
        return self.pod.uid

    @property
    def scheduler_name(self) -> str:
        return self.pod.spec.scheduler_name

    @property
    def obj(self) -> Pod:
        return self.pod

    @property
    def priority(self) -> int:
        return self.pod.spec.priority

    def pods(self) -> dict[str, Pod]:
        return {self.pod.name: self.pod}


class PodGroupExecutorPreemptor:
    """A pod group that triggers preemption (upstream ``podGroupExecutorPreemptor``): events
    and the DisruptionTarget message name the ``podgroup``, the PodGroup's UID and priority."""

    __slots__ = ("members", "pod_group")

    type = "podgroup"

    def __init__(self, pod_group: PodGroup, members: list[Pod]) -> None:
        self.pod_group = pod_group
        self.members = members

    @property
    def uid(self) -> str:
        return self.pod_group.uid

    @property
    def scheduler_name(self) -> str:
        # Every member of a group has the same scheduler (the group's cycle checks it).
        return self.members[0].spec.scheduler_name

    @property
    def obj(self) -> PodGroup:
        return self.pod_group

    @property
    def priority(self) -> int:
        return self.pod_group.spec.priority

    def pods(self) -> dict[str, Pod]:
        return {pod.name: pod for pod in self.members}


Preemptor = PodPreemptor | PodGroupExecutorPreemptor

PreemptPodFunc = Callable[[Candidate, Preemptor, "Pod", str], None]
"""Evicts one victim; raises on failure. Replaceable, as upstream's ``Executor.PreemptPod``."""


@dataclass(frozen=True, slots=True)
class PendingVictim:
    """The last victim of a preemption in progress, by namespace and name."""

    namespace: str
    name: str


class Executor:
    """Actuates preemption on a chosen candidate, and tells who is still preempting."""

    def __init__(self, handle: Handle, features: Features) -> None:
        self.handle = handle
        self.enable_async_preemption = features.enable_async_preemption
        self.preempting: set[str] = set()
        self.last_victims_pending_preemption: dict[str, PendingVictim] = {}
        self.preempt_pod: PreemptPodFunc = self._preempt_pod

    def actuate_pod_preemption(
        self, target_node: str, victims: Victims, preemptor_pod: Pod, plugin_name: str
    ) -> Status | None:
        candidate = Candidate(target_node, victims)
        preemptor = PodPreemptor(preemptor_pod)
        if self.enable_async_preemption:
            self.prepare_candidate_async(candidate, preemptor, plugin_name)
            return None
        return self.prepare_candidate(candidate, preemptor, plugin_name)

    def actuate_pod_group_preemption(
        self, victims: Victims, preemptor_pods: list[Pod], pod_group: PodGroup, plugin_name: str
    ) -> Status | None:
        """Evicts a pod group's victims; the candidate is the whole cluster, named
        ``cluster`` in the victims' events."""
        candidate = Candidate(CLUSTER_CANDIDATE, victims)
        preemptor = PodGroupExecutorPreemptor(pod_group, preemptor_pods)
        if self.enable_async_preemption:
            self.prepare_candidate_async(candidate, preemptor, plugin_name)
            return None
        return self.prepare_candidate(candidate, preemptor, plugin_name)

    # -- asynchronous preemption (run to completion here) -------------------------------------

    def prepare_candidate_async(
        self, candidate: Candidate, preemptor: Preemptor, plugin_name: str
    ) -> None:
        """Evicts the victims not already terminating; upstream's goroutine, run inline."""
        victim_pods = [v for v in candidate.victims.pods if v.metadata.deletion_timestamp is None]
        if not victim_pods:
            return
        self.handle.metrics.observe(PREEMPTION_VICTIMS, len(candidate.victims.pods))
        self.preempting.add(preemptor.uid)
        # Upstream's goroutine defers both metrics with arguments Go evaluates as it starts:
        # the result is always "success", the duration the time to reach those lines.
        started = perf_counter()
        duration = perf_counter() - started
        failed = False
        try:
            failed = self._clear_lower_priority_nominations(preemptor, candidate.name)
            preempt_last_victim = True
            for victim in victim_pods[:-1]:
                if not self._try_preempt(candidate, preemptor, victim, plugin_name):
                    failed = True
                    preempt_last_victim = False
                    break
            if preempt_last_victim:
                last = victim_pods[-1]
                self.last_victims_pending_preemption[preemptor.uid] = PendingVictim(
                    last.namespace, last.name
                )
                if not self._try_preempt(candidate, preemptor, last, plugin_name):
                    failed = True
        finally:
            self.preempting.discard(preemptor.uid)
            self.last_victims_pending_preemption.pop(preemptor.uid, None)
            self._count_preemption_goroutine(duration)
        if failed:
            # The preemptor may be parked as unschedulable; let it retry soon.
            _activate(self.handle, preemptor.pods())

    def _count_preemption_goroutine(self, duration: float) -> None:
        metrics = self.handle.metrics
        metrics.inc(PREEMPTION_GOROUTINES_EXECUTION_TOTAL, result=GOROUTINE_RESULT_SUCCESS)
        metrics.observe(
            PREEMPTION_GOROUTINES_DURATION_SECONDS, duration, result=GOROUTINE_RESULT_SUCCESS
        )

    def _try_preempt(
        self, candidate: Candidate, preemptor: Preemptor, victim: Pod, plugin_name: str
    ) -> bool:
        try:
            self.preempt_pod(candidate, preemptor, victim, plugin_name)
        except Exception:
            logger.exception("error occurred during async preemption of %s", victim.key)
            return False
        return True

    def _clear_lower_priority_nominations(self, preemptor: Preemptor, node_name: str) -> bool:
        """True when some nomination could not be cleared (not fatal, but reported)."""
        nominated = get_lower_priority_nominated_pods(self.handle, preemptor.priority, node_name)
        err = clear_nominated_node_name(self.handle.cluster(), nominated)
        if err is not None:
            logger.error("cannot clear 'NominatedNodeName' on node %s: %s", node_name, err)
            return True
        return False

    # -- synchronous preemption -----------------------------------------------------------------

    def prepare_candidate(
        self, candidate: Candidate, preemptor: Preemptor, plugin_name: str
    ) -> Status | None:
        """Evicts the victims, then clears lower-priority nominations on the node."""
        self.handle.metrics.observe(PREEMPTION_VICTIMS, len(candidate.victims.pods))
        for victim in candidate.victims.pods:
            if victim.metadata.deletion_timestamp is not None:
                continue
            try:
                self.preempt_pod(candidate, preemptor, victim, plugin_name)
            except Exception as err:
                return Status.as_status(err)
        self._clear_lower_priority_nominations(preemptor, candidate.name)
        return None

    # -- PreEnqueue's question ----------------------------------------------------------------

    def is_pod_running_preemption(self, pod_uid: str) -> bool:
        """True while the pod's preemption has not yet started deleting its last victim."""
        return self._is_running_preemption(pod_uid)

    def is_pod_group_running_preemption(self, pod_group_uid: str) -> bool:
        """The same for a pod group's preemption."""
        return self._is_running_preemption(pod_group_uid)

    def _is_running_preemption(self, uid: str) -> bool:
        if uid not in self.preempting:
            return False
        pending = self.last_victims_pending_preemption.get(uid)
        if pending is None:
            return True
        cluster = self.handle.cluster()
        victim = cluster.get("Pod", pending.name, pending.namespace) if cluster else None
        return victim is not None and victim.metadata.deletion_timestamp is None

    # -- evicting one victim --------------------------------------------------------------------

    def _preempt_pod(
        self, candidate: Candidate, preemptor: Preemptor, victim: Pod, plugin_name: str
    ) -> None:
        """Rejects a victim held in memory, or marks it DisruptionTarget and deletes it."""
        message = f"Preempted by {preemptor.type} {preemptor.uid} on node {candidate.name}"
        if self._preempt_in_memory(victim, plugin_name):
            message += " (in kube-scheduler memory)."
        elif not self._delete_victim(preemptor, victim):
            return
        recorder = self.handle.event_recorder()
        if recorder is not None:
            recorder.eventf(
                victim, preemptor.obj, EVENT_TYPE_NORMAL, "Preempted", "Preempting", message
            )

    def _preempt_in_memory(self, victim: Pod, plugin_name: str) -> bool:
        """A victim waiting at Permit or in PreBind is stopped there instead of deleted."""
        waiting_pod = self.handle.get_waiting_pod(victim.uid)
        if waiting_pod is not None:
            return waiting_pod.preempt(plugin_name, "preempted")
        pod_in_pre_bind = _pod_in_pre_bind(self.handle, victim.uid)
        if pod_in_pre_bind is not None:
            return pod_in_pre_bind.cancel_pod(f"preempted by {plugin_name}")
        return False

    def _delete_victim(self, preemptor: Preemptor, victim: Pod) -> bool:
        """Adds the DisruptionTarget condition, then deletes; False if the victim is gone."""
        cluster = self.handle.cluster()
        if cluster is None:
            raise StatusError("preemption: the framework has no cluster to delete victims in")
        condition = {
            "type": DISRUPTION_TARGET,
            "status": CONDITION_TRUE,
            "reason": POD_REASON_PREEMPTION_BY_SCHEDULER,
            "message": (
                f"{preemptor.scheduler_name}: preempting to accommodate a higher priority "
                f"{preemptor.type}"
            ),
        }
        try:
            if _condition_changes(victim, condition):
                cluster.update_pod_status(victim.namespace, victim.name, condition, None)
            cluster.delete(victim)
        except NotFoundError:
            logger.info("victim pod %s is already deleted", victim.key)
            return False
        return True


def get_lower_priority_nominated_pods(
    nominator: Handle | PodNominator, priority: int, node_name: str
) -> list[Pod]:
    """Pods nominated to the node with a lower priority than ``priority``."""
    return [
        info.pod
        for info in nominator.nominated_pods_for_node(node_name)
        if info.pod.spec.priority < priority
    ]


def clear_nominated_node_name(cluster: Cluster | None, pods: list[Pod]) -> Exception | None:
    """Patches ``status.nominatedNodeName`` to empty on each pod that has one."""
    if cluster is None:
        return None
    errors: list[Exception] = []
    for pod in pods:
        if not pod.status.nominated_node_name:
            continue
        try:
            cluster.update_pod_status(pod.namespace, pod.name, None, "")
        except Exception as err:
            errors.append(err)
    return StatusError(aggregate_message(errors)) if errors else None


def _condition_changes(pod: Pod, condition: dict[str, str]) -> bool:
    """Whether setting ``condition`` changes the pod (upstream ``UpdatePodCondition``)."""
    current = pod.status.condition(condition["type"])
    if current is None:
        return True
    return (
        current.status != condition["status"]
        or current.reason != condition["reason"]
        or current.message != condition["message"]
        or current.last_probe_time is not None
    )


def _pod_in_pre_bind(handle: Handle, uid: str) -> Any:
    """The pod's cancellable PreBind, when the handle tracks them (not every handle does)."""
    get = getattr(handle, "get_pod_in_pre_bind", None)
    return get(uid) if get is not None else None


def _activate(handle: Handle, pods: dict[str, Pod]) -> None:
    activate = getattr(handle, "activate", None)
    if activate is not None:
        activate(pods)
