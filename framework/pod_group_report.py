"""What became of each PodGroup in a simulation: its policy, its PodGroupScheduled condition,
and for each member where it went or, if nowhere, which plugins stopped it and why.

A gang's outcome is spread over its members' attempts (the member that fits nowhere gets the
nodes message, the ones that fit get ``pod group is unschedulable, ...``) and the PodGroup's
condition; this gathers them per group, as ``simulate`` prints them (docs/simulate.md).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any

from framework.api.pod import Pod
from framework.api.pod_group import POD_GROUP_SCHEDULED, Condition, PodGroup
from framework.scheduler.schedule_one import SchedulingAttempt
from framework.trace import PLUGIN, TraceEvent, per_node_events

PENDING = "Pending"
"""A member that had no attempt: a PreEnqueue plugin holds it (a gang short of members), or
its scheduling gates do."""
RUNNING = "Running"
"""A member already bound to a node in the objects file."""
REJECTING_CODES = ("Unschedulable", "UnschedulableAndUnresolvable", "Error")
PLACEMENT_POINTS = ("reserve", "permit", "preBind", "bind")
"""Points after a node was chosen: a rejection there, not a node that did not fit, stopped it."""
NODE_POINTS = ("preFilter", "filter")


@dataclass(slots=True)
class MemberReport:
    """One pod of a group: its last attempt's outcome, or why it had none."""

    pod: str
    result: str
    node: str | None
    attempts: int
    message: str
    rejected_by: list[str]

    def to_dict(self) -> dict[str, Any]:
        return {
            "pod": self.pod,
            "result": self.result,
            "node": self.node,
            "attempts": self.attempts,
            "message": self.message,
            "rejectedBy": list(self.rejected_by),
        }


@dataclass(slots=True)
class PodGroupReport:
    """A PodGroup at the end of a run, with its members (pending ones in file order, then those
    bound from the start)."""

    pod_group: str
    policy: str | None
    """``basic`` or ``gang``; None when members name a PodGroup that does not exist."""
    min_count: int | None
    topology_keys: list[str]
    condition: Condition | None
    members: list[MemberReport]

    @property
    def scheduled(self) -> bool:
        """Admitted as a whole: PodGroupScheduled is True."""
        return self.condition is not None and self.condition.status == "True"

    def to_dict(self) -> dict[str, Any]:
        condition = self.condition
        return {
            "podGroup": self.pod_group,
            "policy": self.policy,
            "minCount": self.min_count,
            "topologyKeys": list(self.topology_keys),
            "scheduled": self.scheduled,
            "condition": None
            if condition is None
            else {
                "status": condition.status,
                "reason": condition.reason,
                "message": condition.message,
            },
            "members": [m.to_dict() for m in self.members],
        }


def pod_group_reports(
    groups: Iterable[PodGroup],
    pods: Iterable[Pod],
    attempts: Iterable[tuple[SchedulingAttempt, list[TraceEvent]]],
    held_events: Callable[[str], list[TraceEvent]],
) -> list[PodGroupReport]:
    """One report per group (sorted by namespace/name) from the run's end state, and one
    without a policy for each group that members name but that does not exist.

    ``pods`` are every pod of the run as it ended, ``attempts`` every attempt in order with its
    events, ``held_events`` a pod's events since its last attempt (its PreEnqueue verdicts)."""
    last: dict[str, tuple[SchedulingAttempt, list[TraceEvent]]] = {}
    counts: dict[str, int] = {}
    for attempt, events in attempts:
        # A wait at Permit is reported on its own; its outcome ends the same attempt.
        previous = last.get(attempt.pod)
        if previous is None or previous[0].result != "Waiting":
            counts[attempt.pod] = counts.get(attempt.pod, 0) + 1
        last[attempt.pod] = (attempt, events)
    members: dict[str, list[MemberReport]] = {}
    for pod in pods:
        if pod.spec.pod_group_name:
            key = f"{pod.namespace}/{pod.spec.pod_group_name}"
            member = _member(pod, last.get(pod.key), counts.get(pod.key, 0), held_events)
            members.setdefault(key, []).append(member)
    by_key = {group.key: group for group in groups}
    return [
        _group_report(key, by_key.get(key), members.get(key, []))
        for key in sorted(by_key.keys() | members.keys())
    ]


def _group_report(key: str, group: PodGroup | None, members: list[MemberReport]) -> PodGroupReport:
    if group is None:
        return PodGroupReport(key, None, None, [], None, members)
    policy = group.spec.scheduling_policy
    return PodGroupReport(
        pod_group=key,
        policy=policy.name,
        min_count=policy.min_count if policy.gang else None,
        topology_keys=list(group.spec.topology_keys),
        condition=group.condition(POD_GROUP_SCHEDULED),
        members=members,
    )


def _member(
    pod: Pod,
    last: tuple[SchedulingAttempt, list[TraceEvent]] | None,
    attempts: int,
    held_events: Callable[[str], list[TraceEvent]],
) -> MemberReport:
    node = pod.spec.node_name or None
    if last is None:
        plugins, message = _held_by(held_events(pod.key))
        result = RUNNING if node else PENDING
        return MemberReport(pod.key, result, node, 0, message, plugins)
    attempt, events = last
    rejected_by = [] if attempt.result == "Scheduled" else _rejecting_plugins(events)
    return MemberReport(
        pod.key, attempt.result, node or attempt.node, attempts, attempt.message, rejected_by
    )


def _rejecting_plugins(events: list[TraceEvent]) -> list[str]:
    """The plugins that stopped an attempt: at Reserve, Permit or binding when a node had been
    chosen (a Permit that kept the member waiting counts: the wait ended in rejection), else
    those that rejected it at PreFilter or on some node at Filter. PostFilter plugins only
    failed to help, so they are not named."""
    calls = [e for batch in events for e in per_node_events(batch) if e.kind == PLUGIN]
    late = [e for e in calls if e.point in PLACEMENT_POINTS]
    considered = late or [e for e in calls if e.point in NODE_POINTS]
    names: list[str] = []
    for event in considered:
        stopped = event.code in REJECTING_CODES or (
            event.point == "permit" and event.code == "Wait"
        )
        if stopped and event.plugin not in names:
            names.append(event.plugin)
    return names


def _held_by(events: list[TraceEvent]) -> tuple[list[str], str]:
    """The PreEnqueue plugin that last held a member back, and its message."""
    for event in reversed(events):
        if event.kind == PLUGIN and event.point == "preEnqueue" and event.code != "Success":
            return [event.plugin], "; ".join(event.reasons)
    return [], ""
