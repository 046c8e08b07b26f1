"""The cluster's pages: nodes with their usage, pods with their state, the other objects."""

from __future__ import annotations

from typing import Any
from urllib.parse import urlencode

from django.core.paginator import Paginator
from django.http import HttpRequest, HttpResponse
from django_htmx.http import push_url

from playground.front.access import workspace_view
from playground.front.devices import node_devices, object_summary
from playground.front.pages import render_page
from playground.front.pod_filter import PodFilter
from playground.front.pod_states import LABELS, pod_states
from playground.front.queue_board import Board, board_of
from playground.front.usage import node_rows
from playground.workspaces.models import ClusterObject, Workspace

PAGE_SIZE = 100
SHOWN_ELSEWHERE = ("Node", "Pod")


@workspace_view
def nodes(request: HttpRequest, workspace: Workspace) -> HttpResponse:
    context = {"section": "nodes", **nodes_context(workspace, request.GET.get("page"))}
    return render_page(request, "front/nodes.html", "front/nodes_table.html", context)


@workspace_view
def pods(request: HttpRequest, workspace: Workspace) -> HttpResponse:
    """The pods, filtered by the URL's parameters (``PodFilter``); htmx gets the filtered
    list with its form (which reconnects its websocket with the new filter)."""
    pod_filter = PodFilter.from_query(request.GET)
    context = {
        "section": "pods",
        **pods_context(workspace, request.GET.get("page"), pod_filter=pod_filter),
    }
    status = 422 if pod_filter.errors else 200
    response = render_page(request, "front/pods.html", "front/pods_live.html", context, status)
    if getattr(request, "htmx", None):  # the address bar shows the filter, not the empty fields
        return push_url(response, _pods_address(request.path, pod_filter, context["page"]))
    return response


@workspace_view
def objects(request: HttpRequest, workspace: Workspace) -> HttpResponse:
    rows = ClusterObject.objects.filter(workspace=workspace).exclude(kind__in=SHOWN_ELSEWHERE)
    kinds = sorted(set(rows.values_list("kind", flat=True)))
    kind = request.GET.get("kind", "")
    if kind:
        rows = rows.filter(kind=kind)
    page = Paginator(rows.order_by("kind", "namespace", "name"), PAGE_SIZE).get_page(
        request.GET.get("page")
    )
    context = {
        "workspace": workspace,
        "section": "objects",
        "page": page,
        "rows": [(row, object_summary(row)) for row in page],
        "kinds": kinds,
        "kind": kind,
        "query": urlencode({"kind": kind}) + "&" if kind else "",
    }
    return render_page(request, "front/objects.html", "front/objects_table.html", context)


def node_page(workspace: Workspace, page_number: Any) -> Any:
    """One page of the workspace's Node rows, in the nodes page's order."""
    return Paginator(_objects(workspace, "Node"), PAGE_SIZE).get_page(page_number)


def nodes_context(workspace: Workspace, page_number: Any) -> dict[str, Any]:
    """One page of nodes with their usage (the live consumer renders it too)."""
    page = node_page(workspace, page_number)
    bound = _objects(workspace, "Pod").filter(node_name__in=[row.name for row in page])
    rows = node_rows(page, bound)
    devices = node_devices(workspace, [row.name for row in rows])
    for row in rows:
        row.devices = devices.get(row.name, [])
    return {"workspace": workspace, "page": page, "rows": rows}


def pods_context(
    workspace: Workspace,
    page_number: Any,
    board: Board | None = None,
    pod_filter: PodFilter | None = None,
) -> dict[str, Any]:
    """One page of the pods the filter matches, with their states; ``board`` is the queue as
    last published."""
    board = board or board_of(workspace)
    pod_filter = pod_filter or PodFilter()
    matching = pod_filter.pods(workspace, board.where())
    page = Paginator(matching, PAGE_SIZE).get_page(page_number)
    states = pod_states(workspace, page, board)
    query = pod_filter.query_string()
    return {
        "workspace": workspace,
        "page": page,
        "rows": list(zip(page, states, strict=True)),
        "filter": pod_filter,
        "query": f"{query}&" if query else "",
        "namespaces": _namespaces(workspace, pod_filter.namespace),
        "states": list(LABELS.items()),
    }


def _objects(workspace: Workspace, kind: str) -> Any:
    return ClusterObject.objects.filter(workspace=workspace, kind=kind).order_by(
        "namespace", "name"
    )


def _pods_address(path: str, pod_filter: PodFilter, page: Any) -> str:
    """The pods page's URL with the filter's fields that are set, and the page after the first."""
    params = [*pod_filter.fields(), *([("page", page.number)] if page.number > 1 else [])]
    return f"{path}?{urlencode(params)}" if params else path


def _namespaces(workspace: Workspace, chosen: str) -> list[str]:
    """The pods' namespaces (and the one the filter names, even if no pod is left there)."""
    stored = _objects(workspace, "Pod").order_by("namespace").values_list("namespace", flat=True)
    return sorted({*stored.distinct(), *([chosen] if chosen else [])})
