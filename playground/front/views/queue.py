"""The queue board: where every pending pod is, live, and a chart of the queue sizes."""

from __future__ import annotations

from typing import Any

from django.http import HttpRequest, HttpResponse

from playground.front.access import workspace_view
from playground.front.charts import queue_chart
from playground.front.pages import render_page
from playground.front.queue_board import Board, board_of
from playground.workspaces.models import ClusterObject, Workspace

COLUMN_LIMIT = 50
"""Pods listed per column; the count says how many more there are."""


@workspace_view
def queue(request: HttpRequest, workspace: Workspace) -> HttpResponse:
    context = {"section": "queue", **board_context(workspace, board_of(workspace))}
    return render_page(request, "front/queue.html", "front/queue_board.html", context)


def board_context(workspace: Workspace, board: Board) -> dict[str, Any]:
    """What the board fragments show; the live consumer renders them from a published board."""
    bound = ClusterObject.objects.filter(workspace=workspace, kind="Pod").exclude(node_name="")
    return {
        "workspace": workspace,
        "columns": [
            (name, title, about, entries[:COLUMN_LIMIT], len(entries))
            for name, title, about, entries in board.columns()
        ],
        "bound": bound.order_by("-updated")[:COLUMN_LIMIT],
        "bound_count": bound.count(),
        "chart": queue_chart(board.sizes),
        "updated": board.updated,
    }
