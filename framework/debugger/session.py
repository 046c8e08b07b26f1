"""The debugger: an observer that stops the scheduling cycle at breakpoints.

A stop is a blocking call to the controller inside the observer's ``on_event``, made while the
scheduler waits for the plugin call or extension point that was just reported: the engine needs
no other hook. The controller looks at the stop and answers with a command:

- ``step``: stop at the next trace event (the next plugin call, or a point's summary);
- ``next``: stop at the end of the current extension point (or of the next one, at an end);
- ``continue``: stop at the next breakpoint;
- ``run``: no more stops in this attempt;
- ``abort``: end the attempt with an Error status (``AttemptAborted``); where the attempt can no
  longer be ended (PreEnqueue, Unreserve, Bind, PostBind) it is taken as ``run``.

A breakpoint narrowed to one node at Filter or Score turns on the runtime's per-node form for
the cycles it concerns, so each node's call is an event of its own (the results are the same).

A pod group breakpoint stops as a group's cycle starts (the scheduler's
``pod_group_cycle_hooks``), before any member is tried. The group has no attempt of its own:
``step`` and ``next`` go on to the first member's trial (its first event, the end of its first
extension point), ``run`` lets every member's trial in this cycle run without stops, and
``abort`` is taken as ``run``.
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from time import perf_counter
from typing import TYPE_CHECKING, Any

from framework.debugger import view
from framework.debugger.breakpoints import POD_GROUP, Breakpoint
from framework.scheduler.cycle import AttemptAborted, Cycle
from framework.trace import EXTENSION_POINT, FanOut, TraceEvent, hold

if TYPE_CHECKING:
    from framework.api.pod import Pod
    from framework.interface.pod_group_info import QueuedPodGroupInfo
    from framework.runtime.framework import Framework
    from framework.scheduler.scheduler import Scheduler

STEP, NEXT, CONTINUE, RUN, ABORT = "step", "next", "continue", "run", "abort"
COMMANDS = (STEP, NEXT, CONTINUE, RUN, ABORT)
CANNOT_ABORT = frozenset({"preEnqueue", POD_GROUP, "unreserve", "bind", "postBind"})
"""Where an attempt cannot be ended any more (or has not begun): abort is taken as run."""
POD_GROUP_CYCLE = "podGroupCycle"
"""The kind of a group stop's event: the start of a pod group's cycle, not a plugin call."""


@dataclass
class Stop:
    """One stop: where (the trace event stopped at), why, and the state a person needs there."""

    attempt: int
    reason: str
    event: TraceEvent
    state: dict[str, Any] = field(default_factory=dict)
    events: list[TraceEvent] = field(default_factory=list)
    """The attempt's events so far, the stop's last; not in ``to_dict`` (its ``results`` sum
    them up), for a controller that shows them as they came (the playground's Live panel)."""

    @property
    def pod(self) -> str:
        return self.event.pod

    @property
    def point(self) -> str:
        return self.event.point

    @property
    def plugin(self) -> str:
        return self.event.plugin

    @property
    def node(self) -> str | None:
        return self.event.node

    @property
    def kind(self) -> str:
        return self.event.kind

    def to_dict(self) -> dict[str, Any]:
        return {
            "pod": self.pod,
            "attempt": self.attempt,
            "point": self.point,
            "plugin": self.plugin,
            "node": self.node,
            "kind": self.kind,
            "reason": self.reason,
            "event": self.event.to_dict(),
            **self.state,
        }


Controller = Callable[[Stop], str]
"""Answers a stop with one of COMMANDS (blocking for as long as the person looks)."""


@dataclass
class _Attempt:
    """What the debugger keeps about one pod's attempt under way."""

    cycle: Cycle | None
    events: list[TraceEvent] = field(default_factory=list)
    fired: set[Breakpoint] = field(default_factory=set)
    mode: str = CONTINUE


class Debugger:
    """Stops a scheduler at breakpoints; ``attach`` it to a scheduler before it runs."""

    attempts_kept = 1000
    """Pods whose attempt the debugger remembers, the most recently seen: a long-running
    scheduler sees pods without end. A pod forgotten while it waits at Permit (a thousand
    others were seen meanwhile) is matched by its key alone when its binding cycle goes on."""

    def __init__(self, breakpoints: Iterable[Breakpoint], controller: Controller) -> None:
        self.breakpoints = list(breakpoints)
        self.controller = controller
        self._scheduler: Scheduler | None = None
        self.stops = 0
        self._attempts: OrderedDict[str, _Attempt] = OrderedDict()
        self._next_modes: dict[str, str] = {}
        """Pod key -> the mode its next attempt starts in (set at a group's stop)."""
        self._group_members: list[tuple[Pod, str]] = []
        """The members (pod, profile) of the group whose cycle the debugger stopped at last."""

    @property
    def scheduler(self) -> Scheduler | None:
        return self._scheduler

    @scheduler.setter
    def scheduler(self, scheduler: Scheduler | None) -> None:
        """The scheduler observed; the debugger hears of its pod groups' cycles from now on
        (a scheduler's observers hear only of plugin calls and extension points)."""
        self._scheduler = scheduler
        if (
            scheduler is not None
            and self._on_pod_group_cycle not in scheduler.pod_group_cycle_hooks
        ):
            scheduler.pod_group_cycle_hooks = (
                *scheduler.pod_group_cycle_hooks,
                self._on_pod_group_cycle,
            )

    def attach(self, scheduler: Scheduler) -> Debugger:
        """Observes every profile of the scheduler, beside the observers it already has."""
        self.scheduler = scheduler
        for framework in scheduler.profiles.values():
            current = framework.observer
            framework.observer = self if current is None else FanOut(current, self)
        return self

    def on_event(self, event: TraceEvent) -> None:
        attempt = self._attempt_of(event)
        attempt.events.append(event)
        if event.kind == EXTENSION_POINT and event.point == "preFilter":
            self._choose_per_node_form(attempt)
        reason = self._reason_to_stop(attempt, event)
        if reason:
            self._stop(attempt, event, reason)

    def still_stops_at(self, stop: Stop) -> bool:
        """Whether the scheduler would still be stopped where ``stop`` stands with the
        breakpoints set now (they changed during the stop): without any breakpoint, never; a
        stop made by a breakpoint, when one of them matches its event for its pod; a step
        or a next, which a person asked for, as long as some breakpoint keeps the debugger on."""
        if not self.breakpoints:
            return False
        if stop.reason in (STEP, NEXT):
            return True
        if stop.kind == POD_GROUP_CYCLE:
            return any(b.applies_to_group(self._group_members) for b in self.breakpoints)
        attempt = self._attempts.get(stop.pod)
        if attempt is None:
            return False
        return any(b.matches(stop.event) for b in self._breakpoints_for(attempt, stop.event))

    # -- attempts --------------------------------------------------------------------------

    def _attempt_of(self, event: TraceEvent) -> _Attempt:
        """The pod's attempt; a new one when the scheduler started another cycle for it."""
        cycle = self.scheduler.current_cycle if self.scheduler is not None else None
        if cycle is not None and cycle.pod_info.pod.key != event.pod:
            cycle = None
        known = self._attempts.get(event.pod)
        if known is None or (cycle is not None and known.cycle is not cycle):
            mode = self._next_modes.pop(event.pod, CONTINUE)
            known = self._attempts[event.pod] = _Attempt(cycle, mode=mode)
            if len(self._attempts) > self.attempts_kept:
                self._attempts.popitem(last=False)
        self._attempts.move_to_end(event.pod)
        return known

    def _choose_per_node_form(self, attempt: _Attempt) -> None:
        cycle = attempt.cycle
        if cycle is None:
            return
        pod, profile = cycle.pod_info.pod, cycle.framework.profile_name()
        cycle.framework.per_node = any(
            b.narrows_to_a_node() and b.applies_to(pod, profile) for b in self.breakpoints
        )

    # -- pod groups --------------------------------------------------------------------------

    def _on_pod_group_cycle(self, framework: Framework, group_info: QueuedPodGroupInfo) -> None:
        """Stops at the group's cycle if a pod group breakpoint concerns one of its members."""
        profile = framework.profile_name()
        members = [(p.pod, profile) for p in group_info.queued_pod_infos]
        concerned = [b for b in self.breakpoints if b.applies_to_group(members)]
        if not concerned or not members:
            return
        self._group_members = members
        event = TraceEvent(
            kind=POD_GROUP_CYCLE,
            point=POD_GROUP,
            pod=members[0][0].key,
            profile=profile,
            code="",
            data={
                "podGroup": f"{group_info.namespace}/{group_info.name}",
                "members": [pod.key for pod, _ in members],
            },
        )
        command = self._ask(event, f"breakpoint {concerned[0]}", self._group_state())
        if command in (STEP, NEXT):
            self._next_modes[members[0][0].key] = command
        elif command == RUN:
            self._next_modes.update((pod.key, RUN) for pod, _ in members)

    def _group_state(self) -> dict[str, Any]:
        state: dict[str, Any] = {"results": view.results_so_far([])}
        scheduler = self.scheduler
        if scheduler is not None:
            nodes = scheduler.snapshot.list()
            state["nodes"] = view.candidate_nodes(nodes)
            state["nominatedPods"] = view.nominated_pods(scheduler.queue, nodes)
            state["queue"] = view.queue_place(scheduler.queue, None)
        return state

    # -- stopping --------------------------------------------------------------------------

    def _reason_to_stop(self, attempt: _Attempt, event: TraceEvent) -> str:
        if attempt.mode == RUN:
            return ""
        for breakpoint in self._breakpoints_for(attempt, event):
            if breakpoint not in attempt.fired and breakpoint.matches(event):
                attempt.fired.add(breakpoint)
                return f"breakpoint {breakpoint}"
        if attempt.mode == STEP:
            return "step"
        if attempt.mode == NEXT and event.kind == EXTENSION_POINT:
            return "next"
        return ""

    def _breakpoints_for(self, attempt: _Attempt, event: TraceEvent) -> list[Breakpoint]:
        cycle = attempt.cycle
        if cycle is None:  # PreEnqueue: no cycle yet, so the pod's key is all there is to match
            return [
                b
                for b in self.breakpoints
                if not b.selector and b.pod in ("", event.pod) and b.profile in ("", event.profile)
            ]
        pod, profile = cycle.pod_info.pod, event.profile
        return [b for b in self.breakpoints if b.applies_to(pod, profile)]

    def _stop(self, attempt: _Attempt, event: TraceEvent, reason: str) -> None:
        number = attempt.cycle.attempt if attempt.cycle is not None else 0
        command = self._ask(event, reason, self._state(attempt), number, list(attempt.events))
        if command == ABORT:
            attempt.mode = CONTINUE  # breakpoints still show what the abort undoes (Unreserve)
            raise AttemptAborted(f"aborted by the debugger at {event.point}")
        attempt.mode = command

    def _ask(
        self,
        event: TraceEvent,
        reason: str,
        state: dict[str, Any],
        attempt: int = 0,
        events: list[TraceEvent] | None = None,
    ) -> str:
        """Stops: the controller's command (abort taken as run where it cannot end anything)."""
        self.stops += 1
        stop = Stop(attempt, reason, event, state, events or [])
        began = perf_counter()
        try:
            command = self.controller(stop)
        finally:
            hold(perf_counter() - began)  # the time stopped is not the extension point's
        if command not in COMMANDS:
            raise ValueError(f"unknown debugger command {command!r} (one of {', '.join(COMMANDS)})")
        return RUN if command == ABORT and event.point in CANNOT_ABORT else command

    def _state(self, attempt: _Attempt) -> dict[str, Any]:
        scheduler = self.scheduler
        state: dict[str, Any] = {"results": view.results_so_far(attempt.events)}
        if scheduler is None:
            return state
        nodes = scheduler.snapshot.list()
        state["cycleState"] = view.cycle_state(attempt.cycle)
        state["nodes"] = view.candidate_nodes(nodes)
        state["nominatedPods"] = view.nominated_pods(scheduler.queue, nodes)
        state["queue"] = view.queue_place(scheduler.queue, attempt.cycle)
        return state


def describe_stop(stop: Stop) -> str:
    """One line: the pod and attempt (the group and its members at a group's stop), where,
    and why."""
    if stop.kind == POD_GROUP_CYCLE:
        members = ", ".join(stop.event.data["members"])
        return f"pod group {stop.event.data['podGroup']} ({members}): cycle starts [{stop.reason}]"
    where = stop.point + (f" · {stop.plugin}" if stop.plugin else "")
    where += f" · node {stop.node}" if stop.node else ""
    kind = " (end of the extension point)" if stop.kind == EXTENSION_POINT else ""
    return f"{stop.pod} attempt {stop.attempt}: {where}{kind}: {stop.event.code} [{stop.reason}]"
