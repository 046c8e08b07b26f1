"""The queue board: where every pending pod is, live, and a chart of the queue sizes."""

from __future__ import annotations

from typing import Any

from django.http import HttpRequest, HttpResponse

from playground.front.access import workspace_view
from playground.front.charts import queue_chart
from playground.front.pages import render_page
from playground.front.queue_board import Board, board_of
from playground.workspaces.models import ClusterObject, Workspace, latest_attempt_numbers

COLUMN_LIMIT = 50
"""Pods listed per column; the count says how many more there are."""


@workspace_view
def queue(request: HttpRequest, workspace: Workspace) -> HttpResponse:
    """The board; ``?window=60`` (seconds, or ``all``) sets the time the chart covers."""
    window = request.GET.get("window")
    context = {"section": "queue", **board_context(workspace, board_of(workspace), window)}
    return render_page(request, "front/queue.html", "front/queue_board.html", context)


def board_context(workspace: Workspace, board: Board, window: str | None = None) -> dict[str, Any]:
    """What the board fragments show; the live consumer renders them from a published board.
    ``window`` is the chart's (``charts.WINDOWS``; the default when None)."""
    bound = ClusterObject.objects.filter(workspace=workspace, kind="Pod").exclude(node_name="")
    columns = [
        (name, title, about, entries[:COLUMN_LIMIT], len(entries))
        for name, title, about, entries in board.columns()
    ]
    return {
        "workspace": workspace,
        "columns": _with_latest_attempts(workspace, columns),
        "bound": bound.order_by("-updated")[:COLUMN_LIMIT],
        "bound_count": bound.count(),
        "chart": queue_chart(board.sizes, window),
        "updated": board.updated,
    }


def _with_latest_attempts(workspace: Workspace, columns: list[Any]) -> list[Any]:
    """Each listed pod's entry with the number of its latest stored attempt (``attempt``, 0 if
    none): the number the pod's page shows, which the scheduler's own count of a pod's
    attempts is not (it starts again with every new scheduler)."""
    uids = (entry.get("uid", "") for *_, entries, _ in columns for entry in entries)
    latest = latest_attempt_numbers(workspace.pk, uids)
    return [
        (name, title, about, [{**e, "attempt": latest.get(e.get("uid"), 0)} for e in entries], n)
        for name, title, about, entries, n in columns
    ]
