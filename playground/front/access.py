"""Who may open a workspace's pages: logged-in owners and members.

Everyone else gets a 404, so a workspace's existence is not revealed to people outside it.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import wraps
from typing import Any

from django.contrib.auth.decorators import login_required
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404

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
