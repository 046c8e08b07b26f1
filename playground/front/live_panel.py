"""The Live panel (templates/front/debugger_live.html): the extension points of the attempt
under way that completed so far, on the debugger page and a pod's page.

It is drawn from a ``trace.events``-shaped message carrying every event of the attempt so far:
the sum a page's socket added up (``playground.live.consumers.LiveAttempt``), or, when a page
loads or reconnects during a stop, the events the stop stored (``stopped_trace``), so a reload
shows what led to the stop rather than waiting for the next attempt.
"""

from __future__ import annotations

from typing import Any

from playground.front.trace_tables import extension_points
from playground.live import broadcast
from playground.workspaces.models import Workspace


def live_trace_context(
    workspace: Workspace, trace: dict[str, Any] | None, pod_page: bool = False
) -> dict[str, Any]:
    """What the Live panel shows: the pod, its attempt, each completed extension point with
    its plugins' results, and the point under way (plugin calls without its summary yet)."""
    context: dict[str, Any] = {"workspace": workspace, "live_pod_page": pod_page}
    if not trace:
        return context
    events = trace["events"]
    points = extension_points(events)
    running = events[-1]["point"] if events and events[-1]["kind"] != "extensionPoint" else ""
    context["live"] = {
        "pod": trace["pod"],
        "uid": trace["uid"],
        "attempt": trace.get("attempt"),
        "points": points,
        "running": running,
    }
    return context


def stopped_trace(stop: dict[str, Any] | None, pod_uid: str | None = None) -> dict[str, Any] | None:
    """The stop's attempt so far as a ``trace.events`` message (``seq`` 0: the messages the
    scheduler sends once it goes on come after it); None without a stop, for a stop of
    another pod than ``pod_uid`` (a pod's page), or a stop stored without its events."""
    if not stop or "events" not in stop:
        return None
    if pod_uid is not None and stop.get("uid") != pod_uid:
        return None
    return {
        "type": broadcast.TRACE_EVENTS,
        "pod": stop["pod"],
        "uid": stop.get("uid", ""),
        "attempt": stop.get("attempt"),
        "events": stop["events"],
        "seq": 0,
    }
