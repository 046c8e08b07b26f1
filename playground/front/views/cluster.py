"""The cluster's pages: nodes with their usage, pods with their state, the other objects."""

from __future__ import annotations

from urllib.parse import urlencode

from django.core.paginator import Paginator
from django.http import HttpRequest, HttpResponse

from playground.front.access import workspace_view
from playground.front.pages import render_page
from playground.front.pod_states import pod_states
from playground.front.usage import node_rows
from playground.workspaces.models import ClusterObject, Workspace

PAGE_SIZE = 100
SHOWN_ELSEWHERE = ("Node", "Pod")


@workspace_view
def nodes(request: HttpRequest, workspace: Workspace) -> HttpResponse:
    page = Paginator(_objects(workspace, "Node"), PAGE_SIZE).get_page(request.GET.get("page"))
    bound = _objects(workspace, "Pod").filter(node_name__in=[row.name for row in page])
    context = {
        "workspace": workspace,
        "section": "nodes",
        "page": page,
        "rows": node_rows(page, bound),
    }
    return render_page(request, "front/nodes.html", "front/nodes_table.html", context)


@workspace_view
def pods(request: HttpRequest, workspace: Workspace) -> HttpResponse:
    page = Paginator(_objects(workspace, "Pod"), PAGE_SIZE).get_page(request.GET.get("page"))
    context = {
        "workspace": workspace,
        "section": "pods",
        "page": page,
        "rows": list(zip(page, pod_states(workspace, page), strict=True)),
    }
    return render_page(request, "front/pods.html", "front/pods_table.html", context)


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
        "kinds": kinds,
        "kind": kind,
        "query": urlencode({"kind": kind}) + "&" if kind else "",
    }
    return render_page(request, "front/objects.html", "front/objects_table.html", context)


def _objects(workspace: Workspace, kind: str):
    return ClusterObject.objects.filter(workspace=workspace, kind=kind).order_by(
        "namespace", "name"
    )
