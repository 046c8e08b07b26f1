"""The stop section of the debugger page and of a pod's page: where the scheduler waits, its
controls and panels, or, when it runs, the debugger's last word.

Read from ``SchedulerStatus.stop`` (written by ``playground.scheduling.stops``), so a page that
loads, reloads or opens in a second browser shows the same stop as the one that saw it come.
"""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

from django.template.loader import render_to_string

from playground.workspaces.models import SchedulerStatus, Workspace

CONTROLS = (
    ("step", "Step", "Stop at the next plugin call"),
    ("next", "Next", "Stop at the end of this extension point"),
    ("continue", "Continue", "Go on to the next breakpoint"),
    ("run", "Run to end", "No more stops in this attempt"),
    ("abort", "Abort", "End the attempt with an Error; the pod goes back to the queue"),
)
"""The debugger's commands as buttons: the command, its label, what it does."""
DEFAULT_PACE = 0.5
"""Seconds per extension point when Play starts."""


def stop_context(workspace: Workspace, pod_uid: str | None = None) -> dict[str, Any]:
    """The section's context; on a pod's page (``pod_uid``) a stop at another pod is only
    named, with a link to the debugger page."""
    status = SchedulerStatus.objects.filter(workspace=workspace).values("stop", "debugger_note")
    stored = status.first() or {"stop": None, "debugger_note": ""}
    stop = stored["stop"]
    elsewhere = bool(stop and pod_uid is not None and stop.get("uid") != pod_uid)
    return {
        "workspace": workspace,
        "stop": None if elsewhere else stop,
        "stop_elsewhere": stop if elsewhere else None,
        "debugger_note": stored["debugger_note"],
        "controls": CONTROLS,
        "pace": (stop or {}).get("play") or DEFAULT_PACE,
        "since": _time(stop, "since"),
        "deadline": _time(stop, "deadline"),
        "pod_page": pod_uid is not None,
    }


def render_stop_section(workspace: Workspace, pod_uid: str | None = None) -> str:
    return render_to_string("front/debugger_stop.html", stop_context(workspace, pod_uid))


def _time(stop: dict[str, Any] | None, key: str) -> datetime | None:
    if not stop or key not in stop:
        return None
    return datetime.fromtimestamp(stop[key], tz=UTC)
