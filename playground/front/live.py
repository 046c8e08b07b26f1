"""What the live consumers send: HTML fragments that replace the elements with the same id.

A page names the view it shows when it opens its websocket (``?view=pods&page=2``). On
(re)connect the consumer sends that view's fragments rendered from the database, so a page
that lost its connection catches up; afterwards it renders them from the messages the scheduler
service broadcasts (``playground/live/broadcast.py`` documents their payloads).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any
from urllib.parse import parse_qs

from django.template.loader import render_to_string

from playground.front.devices import node_devices, pod_claim_rows
from playground.front.live_panel import live_trace_context, stopped_trace
from playground.front.pod_filter import PodFilter
from playground.front.pod_states import pod_states
from playground.front.queue_board import Board, board_from, board_of
from playground.front.running_configuration import running_configuration
from playground.front.stop_section import render_stop_parts, stored_stop
from playground.front.usage import NodeUsage
from playground.front.views.cluster import node_page, nodes_context, pods_context
from playground.front.views.permit import permit_context
from playground.front.views.pod_groups import group_context, groups_context
from playground.front.views.pods import latest_attempt_context
from playground.front.views.queue import board_context
from playground.front.views.workspaces import overview_context
from playground.live import broadcast
from playground.scheduling.scheduler_state import SchedulerState, scheduler_state
from playground.workspaces.models import (
    ClusterObject,
    SchedulingAttempt,
    Workspace,
)

DEBUGGER = "debugger"
PROFILE = "profile"
"""The profile page: the revision and feature gates the scheduler runs with, beside its state."""
POD_GROUPS = "pod-groups"
POD_GROUP = "pod-group"
"""A group's page (``?view=pod-group&group=namespace/name``)."""
VIEWS = ("overview", "nodes", "pods", "queue", "permit", DEBUGGER, PROFILE, POD_GROUPS, POD_GROUP)
BOARD_VIEWS = ("overview", "pods", "queue", "permit", POD_GROUPS, POD_GROUP)
"""Views whose fragments change with the queue."""
ATTEMPT_VIEWS = ("pods", POD_GROUPS, POD_GROUP)
"""Views whose fragments change when attempts are stored (a pod was bound or failed)."""
PANEL_VIEWS = ("overview", "queue")
"""Views that show the scheduler's panel (state, lease, Pause / Resume) besides the top bar."""
CLUSTER_NEWS = {broadcast.QUEUE_STATUS, broadcast.ATTEMPTS_RECORDED, broadcast.NODE_USAGE}
"""Messages that say the cluster or the attempts changed: the overview's counts may differ."""
STATE_CHECK = "state.check"
"""The type of the message a workspace socket gives itself every few seconds to read the state
again: the scheduler's, which a lapsed lease changes without a message, and the board's, which
a message the channel layer dropped (a full channel) would otherwise leave stale for good."""
ATTEMPT_NEWS = {broadcast.ATTEMPTS_RECORDED, STATE_CHECK}
"""Messages after which stored attempts may differ from what a page shows (the state check
catches a message the channel layer dropped)."""


@dataclass(frozen=True, slots=True)
class LiveView:
    """Which page a websocket feeds: one of VIEWS (or none: the service state only), and for
    the pods page, its filter (``?view=pods&state=unschedulable&page=2``), for the queue
    board, its chart's time window (``?view=queue&window=60``), for a group's page, the
    group (``?view=pod-group&group=default/trainer``)."""

    name: str = ""
    page: str = "1"
    pod_filter: PodFilter = field(default_factory=PodFilter)
    window: str | None = None
    group: tuple[str, str] = ("", "")

    @classmethod
    def from_query(cls, query_string: bytes | str) -> LiveView:
        if isinstance(query_string, bytes):
            query_string = query_string.decode("latin-1")
        query = parse_qs(query_string)
        name = query.get("view", [""])[0]
        page = query.get("page", ["1"])[0]
        pod_filter = PodFilter.from_query({key: values[0] for key, values in query.items()})
        window = query.get("window", [None])[0]
        namespace, _, group = query.get("group", [""])[0].partition("/")
        return cls(
            name if name in VIEWS else "",
            page if page.isdigit() else "1",
            pod_filter,
            window,
            (namespace, group),
        )


# ----------------------------------------------------------------------------------------------
# A workspace's pages


def workspace_resync(workspace: Workspace, view: LiveView) -> str:
    """Everything the view shows live, from the database."""
    parts = [scheduler_parts(workspace, view)]
    if view.name == "nodes":
        rows = nodes_context(workspace, view.page)["rows"]
        parts.append(render_to_string("live/usage_cells.html", {"nodes": rows}))
        parts.append(render_to_string("live/devices_cells.html", {"nodes": rows}))
    elif view.name in BOARD_VIEWS:
        parts.append(_board_view(workspace, view, board_of(workspace)))
    elif view.name == DEBUGGER:
        parts.append(stop_resync(workspace))
    return "".join(parts)


def workspace_update(workspace: Workspace, view: LiveView, messages: list[dict[str, Any]]) -> str:
    """The fragments that the messages (the latest of each type) may change.

    The scheduler's state is read again whatever the message, the overview at any news of the
    cluster: the consumer sends only the elements that differ from what the page has
    (``SentFragments``).
    """
    latest = {message["type"]: message for message in messages}
    parts = [scheduler_parts(workspace, view)]
    status = latest.get(broadcast.QUEUE_STATUS)
    board = _published_board(status["status"]) if status else None
    if board is None and broadcast.ATTEMPTS_RECORDED in latest and view.name in ATTEMPT_VIEWS:
        board = board_of(workspace)  # a pod was bound or failed: its row changes
    if board is None and STATE_CHECK in latest and view.name in BOARD_VIEWS:
        board = board_of(workspace)  # as stored: only what differs from the page goes out
    if view.name == "overview" and latest.keys() & CLUSTER_NEWS:
        parts.append(_overview(workspace))
    elif board is not None and view.name in BOARD_VIEWS:
        attempts = bool(latest.keys() & ATTEMPT_NEWS)
        parts.append(_board_view(workspace, view, board, attempts))
    usage = latest.get(broadcast.NODE_USAGE)
    if usage is not None and view.name == "nodes":
        parts.append(_published_usage(workspace, view, usage["nodes"]))
    if view.name == "nodes" and latest.keys() & CLUSTER_NEWS:
        parts.append(_stored_devices(workspace, view))
    trace = latest.get(broadcast.TRACE_EVENTS)
    if trace is not None and view.name == DEBUGGER:
        parts.append(live_trace(workspace, trace))
    elif broadcast.TRACE_FOLLOWED in latest and view.name == DEBUGGER:
        parts.append(live_trace(workspace, latest[broadcast.TRACE_FOLLOWED]))
    stop = latest.get(broadcast.DEBUG_STOP)
    if stop is not None and view.name == DEBUGGER:
        parts.append(render_stop_parts(workspace, stored=stop))
    return "".join(parts)


def _board_view(workspace: Workspace, view: LiveView, board: Board, attempts: bool = True) -> str:
    """The view's fragments that change with the queue; ``attempts`` when attempts may have
    been stored meanwhile (a group's page redraws its cycle's tables only then)."""
    if view.name == "queue":
        context = board_context(workspace, board, view.window)
        return render_to_string("front/queue_board.html", context)
    if view.name == "permit":
        return render_to_string("front/permit_console.html", permit_context(workspace, board))
    if view.name == "pods":
        context = pods_context(workspace, view.page, board, view.pod_filter)
        return render_to_string("front/pods_table.html", context)
    if view.name == POD_GROUPS:
        return render_to_string("front/pod_groups_table.html", groups_context(workspace, board))
    if view.name == POD_GROUP:
        return _pod_group(workspace, view, board, attempts)
    return _overview(workspace)


def _pod_group(workspace: Workspace, view: LiveView, board: Board, attempts: bool) -> str:
    """The group's members and, with ``attempts``, its cycle's tables (nothing once the group
    is gone): rendering every member's tables at each queue status would be work for nothing."""
    context = group_context(workspace, *view.group, board, attempts=attempts)
    if context is None:
        return ""
    members = render_to_string("front/pod_group_members.html", context)
    if not attempts:
        return members
    return members + render_to_string("front/pod_group_cycle.html", context)


def _overview(workspace: Workspace) -> str:
    return render_to_string("front/overview_summary.html", overview_context(workspace))


def _published_usage(workspace: Workspace, view: LiveView, usage: list[dict[str, Any]]) -> str:
    """The usage bars of the page's nodes, as the scheduler's cache counts them."""
    shown = {row.name for row in node_page(workspace, view.page)}
    nodes = [NodeUsage.from_published(entry) for entry in usage if entry.get("name") in shown]
    return render_to_string("live/usage_cells.html", {"nodes": nodes})


def _stored_devices(workspace: Workspace, view: LiveView) -> str:
    """The devices in use on the page's nodes, from the stored claims: an allocation is
    written by PreBind, after the scheduler published its usage, so any cluster news redraws
    them (only cells that changed reach the page)."""
    names = [row.name for row in node_page(workspace, view.page)]
    devices = node_devices(workspace, names)
    nodes = [{"name": name, "devices": devices.get(name, [])} for name in names]
    return render_to_string("live/devices_cells.html", {"nodes": nodes})


def _published_board(status: dict[str, Any]) -> Board:
    return board_from(status.get("queue"), status.get("waitingPods"), status.get("queueSizes"))


def scheduler_parts(workspace: Workspace, view: LiveView) -> str:
    """Where the view shows the scheduler's state: the top bar's badge, on the overview and
    the queue board the scheduler's panel (one reading of the state for both), on the profile
    page the revision and feature gates it runs with."""
    state = scheduler_state(workspace.pk)
    parts = [_badge(state)]
    if view.name in PANEL_VIEWS:
        context = {"workspace": workspace, "scheduler": state}
        parts.append(render_to_string("front/scheduler_state.html", context))
    if view.name == PROFILE:
        context = {"running": running_configuration(workspace)}
        parts.append(render_to_string("front/running_configuration.html", context))
    return "".join(parts)


def service_state(workspace: Workspace) -> str:
    """The top bar's scheduler badge."""
    return _badge(scheduler_state(workspace.pk))


def _badge(state: SchedulerState) -> str:
    return render_to_string("live/service_state.html", {"scheduler": state})


# ----------------------------------------------------------------------------------------------
# A pod's page


def pod_resync(workspace: Workspace, uid: str) -> str:
    """The pod's state, its attempts and the latest one's tables, and where the scheduler is
    stopped, from the database."""
    return _pod_attempts(workspace, uid) + stop_resync(workspace, uid)


def _pod_attempts(workspace: Workspace, uid: str) -> str:
    """The latest attempt's tables, the attempts table and the pod's state (when the pod still
    exists)."""
    attempts = SchedulingAttempt.objects.filter(workspace=workspace, pod_uid=uid)
    parts = [
        render_to_string("front/latest_attempt.html", latest_attempt_context(workspace, uid)),
        render_to_string("front/pod_attempts.html", {"workspace": workspace, "attempts": attempts}),
    ]
    pod = ClusterObject.objects.filter(workspace=workspace, kind="Pod", uid=uid).first()
    if pod is not None:
        state = pod_states(workspace, [pod])[0]
        parts.append(render_to_string("live/pod_state.html", {"state": state, "pod": pod}))
        claims = pod_claim_rows(workspace, pod)
        if claims:
            context = {"workspace": workspace, "claims": claims}
            parts.append(render_to_string("front/pod_claims.html", context))
    return "".join(parts)


def pod_update(workspace: Workspace, uid: str, messages: list[dict[str, Any]]) -> str:
    """Once an attempt of the pod is stored (``pod.trace``), everything its page shows of it;
    as its extension points complete (``trace.events``), the Live panel."""
    latest = {message["type"]: message for message in messages}
    parts = []
    trace = latest.get(broadcast.TRACE_EVENTS)
    if trace is not None:
        parts.append(live_trace(workspace, trace, pod_page=True))
    elif broadcast.TRACE_FOLLOWED in latest:
        parts.append(live_trace(workspace, latest[broadcast.TRACE_FOLLOWED], pod_page=True))
    if broadcast.POD_TRACE in latest:
        parts.append(_pod_attempts(workspace, uid))
    stop = latest.get(broadcast.DEBUG_STOP)
    if stop is not None:
        parts.append(render_stop_parts(workspace, uid, stop))
    return "".join(parts)


# ----------------------------------------------------------------------------------------------
# A stop and the live trace (the pod page, the debugger page)


def stop_resync(workspace: Workspace, pod_uid: str | None = None) -> str:
    """The stop section's parts from the database and, during a stop (of the page's pod, on a
    pod's page), the Live panel drawn from the attempt's events so far."""
    stored = stored_stop(workspace)
    html = render_stop_parts(workspace, pod_uid, stored)
    trace = stopped_trace(stored["stop"], pod_uid)
    if trace is not None:
        html += live_trace(workspace, trace, pod_page=pod_uid is not None)
    return html


def live_trace(workspace: Workspace, trace: dict[str, Any] | None, pod_page: bool = False) -> str:
    """The Live panel: the extension points of the attempt under way that completed so far.

    ``trace`` is a ``trace.events`` message carrying every event of the attempt so far (the
    consumer adds them up), or a ``trace.followed`` one before any event came; either says
    whether the service follows the page yet (``following``: it answered the page's watch).
    """
    events = trace if trace and trace["type"] == broadcast.TRACE_EVENTS else None
    context = live_trace_context(workspace, events, pod_page)
    context["live_following"] = bool(trace and trace.get("following"))
    return render_to_string("front/debugger_live.html", context)
