"""The stop section of the debugger page and of a pod's page: where the scheduler waits, its
controls and panels, or, when it runs, the debugger's last word.

Read from ``SchedulerStatus.stop`` (written by ``playground.scheduling.stops``), so a page that
loads, reloads or opens in a second browser shows the same stop as the one that saw it come.

A page draws the whole section once (``render_stop_section``); afterwards its socket alone
redraws the section's parts one by one, by id (``render_stop_parts``, from the latest
``debug.stop`` message):
where it stopped, the stop's id, Abort, Play or Pause, the panels, the note. The other buttons
are never sent again, so while the scheduler plays (a new stop every pace) the button under the
pointer stays the same element in the same place; the stylesheet hides the controls whenever
the section says the scheduler is not stopped.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from django.template.loader import render_to_string

from framework.debugger.session import CANNOT_ABORT, POD_GROUP_CYCLE
from playground.workspaces.models import SchedulerStatus, Workspace

CONTROLS = (
    ("step", "Step", "Stop at the next plugin call"),
    ("next", "Next", "Stop at the end of this extension point"),
    ("continue", "Continue", "Go on to the next breakpoint"),
    ("run", "Run to end", "No more stops in this attempt"),
    ("abort", "Abort", "End the attempt with an Error; the pod goes back to the queue"),
)
"""The debugger's commands as buttons: the command, its label, what it does."""
PENDING = {
    "step": "Stepping to the next plugin call…",
    "next": "Going on to the end of this extension point…",
    "continue": "Continuing to the next breakpoint…",
    "run": "Running this attempt to its end…",
    "abort": "Aborting: the attempt ends with an Error and the pod goes back to the queue.",
    "play": "Playing…",
    "pause": "Pausing…",
}
"""What the page says the moment a button is clicked, before the scheduler answers."""
DEFAULT_PACE = 0.5
"""Seconds per extension point when Play starts."""
PARTS = (
    "front/debugger_stop_where.html",
    "front/debugger_stop_id.html",
    "front/debugger_abort.html",
    "front/debugger_play.html",
    "front/debugger_stop_panels.html",
    "front/debugger_note.html",
)
"""The section's parts a socket redraws, each an element with an id of its own."""


@dataclass(frozen=True, slots=True)
class Control:
    """A button: the command it sends, its label, its tooltip, what the page says once it
    is clicked."""

    command: str
    label: str
    about: str
    pending: str


def stored_stop(workspace: Workspace) -> dict[str, Any]:
    """``{"stop": ..., "note": ...}`` as the scheduler last stored them (a ``debug.stop``
    message has the same two keys)."""
    status = SchedulerStatus.objects.filter(workspace=workspace).values("stop", "debugger_note")
    stored = status.first() or {"stop": None, "debugger_note": ""}
    return {"stop": stored["stop"], "note": stored["debugger_note"]}


def stop_context(
    workspace: Workspace, pod_uid: str | None = None, stored: dict[str, Any] | None = None
) -> dict[str, Any]:
    """The section's context, for ``stored`` (``stored_stop``'s shape; read when not given);
    on a pod's page (``pod_uid``) a stop at another pod is only named, with a link to the
    debugger page."""
    stored = stored_stop(workspace) if stored is None else stored
    stop = stored["stop"]
    elsewhere = bool(stop and pod_uid is not None and stop.get("uid") != pod_uid)
    return {
        "workspace": workspace,
        "stop": None if elsewhere else stop,
        "stop_elsewhere": stop if elsewhere else None,
        "debugger_note": stored["note"],
        "controls": [_control(command, label, about) for command, label, about in CONTROLS[:-1]],
        "abort": abort_control(stop),
        "pending": PENDING,
        "pace": (stop or {}).get("play") or DEFAULT_PACE,
        "since": _time(stop, "since"),
        "deadline": _time(stop, "deadline"),
        "pod_page": pod_uid is not None,
        "pod_uid": pod_uid,
        "pod_group": pod_group_of(stop),
    }


def pod_group_of(stop: dict[str, Any] | None) -> dict[str, Any] | None:
    """At a pod group's stop: the group (namespace, name) and its members in the order the
    cycle tries them; None at any other stop."""
    if not stop or stop.get("kind") != POD_GROUP_CYCLE:
        return None
    data = stop["event"].get("data", {})
    namespace, _, name = data.get("podGroup", "").partition("/")
    return {"namespace": namespace, "name": name, "members": data.get("members", [])}


def abort_control(stop: dict[str, Any] | None) -> Control:
    """Abort; where an attempt cannot be aborted (or has not begun), it says it is taken as
    Run to end, as the scheduler takes it."""
    point = (stop or {}).get("point")
    if point in CANNOT_ABORT:
        taken = f"Abort is taken as Run to end at {point}: running this attempt to its end…"
        return Control("abort", "Abort", taken, taken)
    return _control(*CONTROLS[-1])


def _control(command: str, label: str, about: str) -> Control:
    return Control(command, label, about, PENDING[command])


def render_stop_section(
    workspace: Workspace, pod_uid: str | None = None, stored: dict[str, Any] | None = None
) -> str:
    context = stop_context(workspace, pod_uid, stored)
    return render_to_string("front/debugger_stop.html", context)


def render_stop_parts(
    workspace: Workspace, pod_uid: str | None = None, stored: dict[str, Any] | None = None
) -> str:
    """The section's parts, for a page that has the section (see the module's docstring)."""
    context = stop_context(workspace, pod_uid, stored)
    return "".join(render_to_string(template, context) for template in PARTS)


def _time(stop: dict[str, Any] | None, key: str) -> datetime | None:
    if not stop or key not in stop:
        return None
    return datetime.fromtimestamp(stop[key], tz=UTC)
