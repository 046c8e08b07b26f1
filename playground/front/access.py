"""Who may open a workspace's pages: logged-in owners and members.

Everyone else gets a 404, so a workspace's existence is not revealed to people outside it.

A workspace that mirrors a cluster is read-only in the browser: its objects come from the
cluster, and an edit here would be undone by the mirror's next change (or, worse, scheduled as
if it were real). Views that change objects are ``object_edit_view``: they answer 409 with a
message saying so. Its scheduler is the playground's own: profiles, the Permit console, the
debugger and pause / resume stay open.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import wraps
from typing import Any

from django.contrib.auth.decorators import login_required
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404

from playground.clusters.mirroring import mirrored_by
from playground.front.pages import render_page
from playground.workspaces.models import Workspace

WorkspaceView = Callable[..., HttpResponse]


def workspace_view(view: WorkspaceView) -> Callable[..., HttpResponse]:
    """Login required; the ``slug`` URL argument becomes the workspace the user may access."""

    @login_required
    @wraps(view)
    def wrapper(request: HttpRequest, slug: str, **kwargs: Any) -> HttpResponse:
        workspace = get_object_or_404(Workspace, slug=slug)
        if not workspace.can_access(request.user):
            raise Http404("No workspace matches the given query.")
        return view(request, workspace, **kwargs)

    return wrapper


def object_edit_view(view: WorkspaceView) -> Callable[..., HttpResponse]:
    """A workspace view whose POST changes the workspace's objects: refused (409) in a
    workspace that mirrors a cluster, whatever was sent (the page keeps it)."""

    @wraps(view)
    def guarded(request: HttpRequest, workspace: Workspace, **kwargs: Any) -> HttpResponse:
        if request.method == "POST":
            connection = mirrored_by(workspace)
            if connection is not None:
                return read_only_answer(request, workspace, connection)
        return view(request, workspace, **kwargs)

    return workspace_view(guarded)


def read_only_answer(request: HttpRequest, workspace: Workspace, connection: Any) -> HttpResponse:
    context = {
        "workspace": workspace,
        "connection": connection,
        "message": read_only_message(connection),
    }
    return render_page(
        request, "front/read_only.html", "front/read_only_message.html", context, status=409
    )


def read_only_message(connection: Any) -> str:
    return (
        f'This workspace mirrors the cluster of connection "{connection.name}": its objects '
        "come from the cluster and cannot be changed here. Import a snapshot of the cluster "
        "into an ordinary workspace to edit them, or stop mirroring."
    )
