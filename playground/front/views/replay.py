"""Replay: step through any stored attempt, forward and back, from its stored trace.

Nothing reaches the scheduler: the stored events are read back as the engine's TraceEvents
and ``results_so_far`` of the first ``at`` of them is what the debugger would have shown,
stopped right after event ``at`` (docs/debugger.md, "Replay"). The panels are the live
stop's (templates/front/debugger_panels.html); the CycleState, nodes and queue a live stop
shows are read from the scheduler at the moment of the stop and not stored, so a replay has
only the results.
"""

from __future__ import annotations

from typing import Any, Protocol

from django.http import HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404
from django.urls import reverse

from framework.debugger.session import Stop
from framework.debugger.view import results_so_far
from framework.trace import TraceEvent
from playground.front.access import workspace_view
from playground.front.pages import render_page
from playground.workspaces.models import AttemptTrace, SchedulingAttempt, Workspace

EVENTS_AROUND = 50
"""Events listed before and after the current one; a trace of thousands lists a window."""


class ReplayedAttempt(Protocol):
    """What a replay names: a stored SchedulingAttempt, or an attempt a comparison kept."""

    pod_key: str
    number: int


class BadPosition(ValueError):
    """``at`` is not a whole number."""


@workspace_view
def attempt_replay(
    request: HttpRequest, workspace: Workspace, uid: str, number: int
) -> HttpResponse:
    attempt = get_object_or_404(SchedulingAttempt, workspace=workspace, pod_uid=uid, number=number)
    trace = AttemptTrace.objects.filter(attempt=attempt).first()
    events = [TraceEvent.from_dict(event) for event in trace.events()] if trace else []
    try:
        at = position(request.GET.get("at"), len(events))
    except BadPosition as problem:
        return HttpResponse(str(problem), status=400, content_type="text/plain; charset=utf-8")
    context = {
        "workspace": workspace,
        "section": "pods",
        "attempt": attempt,
        "has_trace": trace is not None,
        "url": reverse("attempt-replay", args=[workspace.slug, uid, number]),
        **replay_context(attempt, events, at),
    }
    return render_page(request, "front/replay.html", "front/replay_step.html", context)


def position(value: str | None, total: int) -> int:
    """How many events are replayed: ``at`` from the URL, 0 when absent, clamped to 0..total
    (the scrubber's ends); not a whole number is refused."""
    if value is None or value == "":
        return 0
    try:
        at = int(value)
    except ValueError:
        raise BadPosition(
            f"at: the number of events replayed, a whole number from 0 to {total}, not {value!r}"
        ) from None
    return max(0, min(at, total))


def replay_stop(attempt: ReplayedAttempt, events: list[TraceEvent], at: int) -> dict[str, Any]:
    """The stop the debugger would have made right after event ``at`` (a Stop's dict), or
    before the first event when ``at`` is 0."""
    results = results_so_far(events[:at])
    if at == 0:
        return {
            "pod": attempt.pod_key,
            "attempt": attempt.number,
            "point": "",
            "plugin": "",
            "node": None,
            "kind": "",
            "reason": f"replay: before event 1 of {len(events)}",
            "event": None,
            "results": results,
        }
    event = events[at - 1]
    stop = Stop(
        attempt=attempt.number,
        reason=f"replay: event {at} of {len(events)}",
        event=event,
        state={"results": results},
    )
    return stop.to_dict()


def replay_context(attempt: ReplayedAttempt, events: list[TraceEvent], at: int) -> dict[str, Any]:
    """The scrubber (position, the four steps), the events around the current one, the stop."""
    total = len(events)
    first = max(0, min(at - EVENTS_AROUND, total - 2 * EVENTS_AROUND - 1))
    last = min(total, first + 2 * EVENTS_AROUND + 1)
    return {
        "at": at,
        "total": total,
        "steps": {"first": 0, "back": max(at - 1, 0), "forward": min(at + 1, total), "last": total},
        "events": [
            {"number": index + 1, "event": events[index], "current": index + 1 == at}
            for index in range(first, last)
        ],
        "earlier": first,
        "later": total - last,
        "stop": replay_stop(attempt, events, at),
    }
