"""What the live consumers send: HTML fragments that replace the elements with the same id.

A page names the view it shows when it opens its websocket (``?view=pods&page=2``). On
(re)connect the consumer sends that view's fragments rendered from the database, so a page
that lost its connection catches up; afterwards it renders them from the messages the scheduler
service broadcasts (``playground/live/broadcast.py`` documents their payloads).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any
from urllib.parse import parse_qs

from django.template.loader import render_to_string

from playground.front import trace_tables
from playground.front.pod_states import pod_states
from playground.front.queue_board import Board, board_from, board_of
from playground.front.usage import NodeUsage
from playground.front.views.cluster import nodes_context, pods_context
from playground.front.views.permit import permit_context
from playground.front.views.queue import board_context
from playground.front.views.workspaces import overview_context
from playground.live import broadcast
from playground.scheduling.scheduler_state import SchedulerState, scheduler_state
from playground.workspaces.models import (
    AttemptTrace,
    ClusterObject,
    SchedulingAttempt,
    Workspace,
)

VIEWS = ("overview", "nodes", "pods", "queue", "permit")
BOARD_VIEWS = ("overview", "pods", "queue", "permit")
"""Views whose fragments change with the queue."""
PANEL_VIEWS = ("overview", "queue")
"""Views that show the scheduler's panel (state, lease, Pause / Resume) besides the top bar."""
CLUSTER_NEWS = {broadcast.QUEUE_STATUS, broadcast.ATTEMPTS_RECORDED, broadcast.NODE_USAGE}
"""Messages that say the cluster or the attempts changed: the overview's counts may differ."""
BINDING_POINTS = ("reserve", "permit", "preBind", "bind")


@dataclass(frozen=True, slots=True)
class LiveView:
    """Which page a websocket feeds: one of VIEWS (or none: the service state only)."""

    name: str = ""
    page: str = "1"

    @classmethod
    def from_query(cls, query_string: bytes | str) -> LiveView:
        if isinstance(query_string, bytes):
            query_string = query_string.decode("latin-1")
        query = parse_qs(query_string)
        name = query.get("view", [""])[0]
        page = query.get("page", ["1"])[0]
        return cls(name if name in VIEWS else "", page if page.isdigit() else "1")


# ----------------------------------------------------------------------------------------------
# A workspace's pages


def workspace_resync(workspace: Workspace, view: LiveView) -> str:
    """Everything the view shows live, from the database."""
    parts = [scheduler_parts(workspace, view)]
    if view.name == "nodes":
        rows = nodes_context(workspace, view.page)["rows"]
        parts.append(render_to_string("live/usage_cells.html", {"nodes": rows}))
    elif view.name in BOARD_VIEWS:
        parts.append(_board_view(workspace, view, board_of(workspace)))
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
    if board is None and broadcast.ATTEMPTS_RECORDED in latest and view.name == "pods":
        board = board_of(workspace)  # a pod was bound or failed: its row changes
    if view.name == "overview" and latest.keys() & CLUSTER_NEWS:
        parts.append(_overview(workspace))
    elif board is not None and view.name in BOARD_VIEWS:
        parts.append(_board_view(workspace, view, board))
    usage = latest.get(broadcast.NODE_USAGE)
    if usage is not None and view.name == "nodes":
        parts.append(_published_usage(workspace, view, usage["nodes"]))
    return "".join(parts)


def _board_view(workspace: Workspace, view: LiveView, board: Board) -> str:
    if view.name == "queue":
        return render_to_string("front/queue_board.html", board_context(workspace, board))
    if view.name == "permit":
        return render_to_string("front/permit_console.html", permit_context(workspace, board))
    if view.name == "pods":
        context = pods_context(workspace, view.page, board)
        return render_to_string("front/pods_table.html", context)
    return _overview(workspace)


def _overview(workspace: Workspace) -> str:
    return render_to_string("front/overview_summary.html", overview_context(workspace))


def _published_usage(workspace: Workspace, view: LiveView, usage: list[dict[str, Any]]) -> str:
    """The usage bars of the page's nodes, as the scheduler's cache counts them."""
    shown = {row.name for row in nodes_context(workspace, view.page)["rows"]}
    nodes = [NodeUsage.from_published(entry) for entry in usage if entry.get("name") in shown]
    return render_to_string("live/usage_cells.html", {"nodes": nodes})


def _published_board(status: dict[str, Any]) -> Board:
    return board_from(status.get("queue"), status.get("waitingPods"), status.get("queueSizes"))


def scheduler_parts(workspace: Workspace, view: LiveView) -> str:
    """Where the view shows the scheduler's state: the top bar's badge, and on the overview
    and the queue board the scheduler's panel; one reading of the state for both."""
    state = scheduler_state(workspace.pk)
    parts = [_badge(state)]
    if view.name in PANEL_VIEWS:
        context = {"workspace": workspace, "scheduler": state}
        parts.append(render_to_string("front/scheduler_state.html", context))
    return "".join(parts)


def service_state(workspace: Workspace) -> str:
    """The top bar's scheduler badge."""
    return _badge(scheduler_state(workspace.pk))


def _badge(state: SchedulerState) -> str:
    return render_to_string("live/service_state.html", {"scheduler": state})


# ----------------------------------------------------------------------------------------------
# A pod's page


def pod_resync(workspace: Workspace, uid: str) -> str:
    """The pod's state, its attempts and the latest one's extension points, from the database."""
    parts = [_pod_attempts(workspace, uid)]
    latest = (
        AttemptTrace.objects.filter(attempt__workspace=workspace, attempt__pod_uid=uid)
        .select_related("attempt")
        .order_by("-attempt_id")
        .first()
    )
    if latest is not None:
        attempt = latest.attempt
        message = {"pod": attempt.pod_key, "attemptId": attempt.pk, "events": latest.events()}
        parts.append(_pod_trace(workspace, message))
    return "".join(parts)


def _pod_attempts(workspace: Workspace, uid: str) -> str:
    """The attempts table and the pod's state (when the pod still exists)."""
    attempts = SchedulingAttempt.objects.filter(workspace=workspace, pod_uid=uid)
    parts = [
        render_to_string("front/pod_attempts.html", {"workspace": workspace, "attempts": attempts})
    ]
    pod = ClusterObject.objects.filter(workspace=workspace, kind="Pod", uid=uid).first()
    if pod is not None:
        state = pod_states(workspace, [pod])[0]
        parts.append(render_to_string("live/pod_state.html", {"state": state, "pod": pod}))
    return "".join(parts)


def pod_update(workspace: Workspace, uid: str, messages: list[dict[str, Any]]) -> str:
    latest = {message["type"]: message for message in messages}
    parts = []
    trace = latest.get(broadcast.POD_TRACE)
    if trace is not None:  # a new attempt was stored: its trace, and the attempts table
        parts.append(_pod_trace(workspace, trace))
        parts.append(_pod_attempts(workspace, uid))
    return "".join(parts)


def _pod_trace(workspace: Workspace, message: dict[str, Any]) -> str:
    points = trace_tables.extension_points(message.get("events") or [])
    totals = next(
        (event.get("data", {}).get("totals", {}) for event in points if event["point"] == "score"),
        {},
    )
    placed = (e for e in points if e["point"] in BINDING_POINTS and e.get("node"))
    chosen = next((event["node"] for event in placed), "")
    context = {
        "workspace": workspace,
        "pod": message.get("pod", ""),
        "attempt_id": message.get("attemptId"),
        "points": points,
        "ranking": trace_tables.ranking(totals, chosen),
    }
    return render_to_string("live/pod_live.html", context)
