"""Create, edit and delete any cluster object through a YAML editor, validated on submit.

Writes go through DatabaseCluster, which parses the manifest with the engine: a bad manifest
raises the engine's ObjectError naming the field, which the editor shows on its line. An edit
is checked as kube-apiserver checks an update; when a pod's spec change is refused, the
editor offers what kubectl offers (``kubectl replace --force``): delete the pod and create it
again from the edited text.
"""

from __future__ import annotations

from typing import Any

from django.contrib import messages
from django.http import HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404
from django.urls import reverse
from django.views.decorators.http import require_POST

from framework.api.errors import InvalidObjectError, ObjectError
from framework.api.field_errors import FORBIDDEN
from framework.cluster.interface import NotFoundError
from playground.front.access import object_edit_view
from playground.front.commands import wake_scheduler
from playground.front.manifest_text import (
    FieldProblem,
    ManifestTextError,
    locate,
    object_problems,
    read_manifest,
    to_text,
)
from playground.front.object_templates import TEMPLATE_KINDS, template_for
from playground.front.pages import redirect_page, render_page
from playground.workspaces.cluster import AlreadyExistsError, ConflictError, DatabaseCluster
from playground.workspaces.models import ClusterObject, Workspace

WRITE_ERRORS = (ObjectError, AlreadyExistsError, ConflictError, NotFoundError)
# What a new object may not carry over from the one it replaces (kubectl replace --force).
_STORED_IDENTITY = ("uid", "resourceVersion", "creationTimestamp", "generation")


@object_edit_view
def new_object(request: HttpRequest, workspace: Workspace) -> HttpResponse:
    if request.method != "POST":
        text = template_for(request.GET.get("kind", "Pod"))
        return _editor(request, workspace, None, text)
    text = request.POST.get("text", "")
    return _save(request, workspace, None, text, DatabaseCluster(workspace).create)


@object_edit_view
def edit_object(request: HttpRequest, workspace: Workspace, pk: int) -> HttpResponse:
    row = get_object_or_404(ClusterObject, workspace=workspace, pk=pk)
    if request.method != "POST":
        return _editor(request, workspace, row, to_text(row.manifest))
    text = request.POST.get("text", "")
    return _save(request, workspace, row, text, DatabaseCluster(workspace).update)


@require_POST
@object_edit_view
def delete_object(request: HttpRequest, workspace: Workspace, pk: int) -> HttpResponse:
    row = get_object_or_404(ClusterObject, workspace=workspace, pk=pk)
    cluster = DatabaseCluster(workspace)
    stored = cluster.get(row.kind, row.name, row.namespace)
    if stored is not None:
        cluster.delete(stored)
        wake_scheduler(workspace)
    messages.success(request, f"Deleted {row.kind} {row.key}.")
    return redirect_page(request, _list_url(workspace, row.kind))


@require_POST
@object_edit_view
def recreate_object(request: HttpRequest, workspace: Workspace, pk: int) -> HttpResponse:
    """``kubectl replace --force``: delete the object, then create it from the text. The
    text is checked as a new object first, so a refused one leaves the old in place."""
    row = get_object_or_404(ClusterObject, workspace=workspace, pk=pk)
    text = request.POST.get("text", "")
    cluster = DatabaseCluster(workspace)
    try:
        manifest = read_manifest(text)
        _check_identity(row, manifest)
        fresh = _as_new(manifest)
        refused = cluster.admission_errors([fresh], as_new=True)
        if refused:
            raise refused[0]
        stored = cluster.get(row.kind, row.name, row.namespace)
        if stored is not None:
            cluster.delete(stored)
        created = cluster.create(fresh)
    except ManifestTextError as err:
        return _editor(request, workspace, row, text, [err.problem], status=422)
    except WRITE_ERRORS as err:
        return _editor(request, workspace, row, text, _problems(err, text), status=422)
    wake_scheduler(workspace)
    messages.success(request, f"Deleted and recreated {created.kind} {created.key}.")
    return redirect_page(request, _list_url(workspace, created.kind))


def _as_new(manifest: dict[str, Any]) -> dict[str, Any]:
    """The manifest as a new object: no identity of the stored one, no status."""
    metadata = {
        k: v for k, v in (manifest.get("metadata") or {}).items() if k not in _STORED_IDENTITY
    }
    fresh = {k: v for k, v in manifest.items() if k != "status"}
    fresh["metadata"] = metadata
    return fresh


def _save(
    request: HttpRequest, workspace: Workspace, row: ClusterObject | None, text: str, write: Any
) -> HttpResponse:
    try:
        manifest = read_manifest(text)
        if row is not None:
            _check_identity(row, manifest)
        stored = write(manifest)
    except ManifestTextError as err:
        return _editor(request, workspace, row, text, [err.problem], status=422)
    except WRITE_ERRORS as err:
        problems = _problems(err, text)
        offer = row is not None and _spec_change_refused(row, err)
        return _editor(request, workspace, row, text, problems, status=422, recreate=offer)
    wake_scheduler(workspace)
    messages.success(request, f"Saved {stored.kind} {stored.key}.")
    return redirect_page(request, _list_url(workspace, stored.kind))


def _spec_change_refused(row: ClusterObject, err: Exception) -> bool:
    """A pod update refused because its spec may not change that way (only recreating the
    pod can apply it)."""
    if row.kind != "Pod" or not isinstance(err, InvalidObjectError):
        return False
    return any(
        e.type == FORBIDDEN and (e.field == "spec" or e.field.startswith("spec."))
        for e in err.errors
    )


def _check_identity(row: ClusterObject, manifest: dict[str, Any]) -> None:
    """An edit changes one object: another kind, namespace or name would be another object."""
    metadata = manifest.get("metadata") if isinstance(manifest.get("metadata"), dict) else {}
    for field, stored, given in (
        ("kind", row.kind, manifest.get("kind")),
        ("metadata.namespace", row.namespace, metadata.get("namespace") or ""),
        ("metadata.name", row.name, metadata.get("name")),
    ):
        if given != stored:
            raise ObjectError(
                f'{row.kind} "{row.key}"',
                field,
                f"cannot be changed from {stored!r}: create a new object instead",
            )


def _problems(err: Exception, text: str) -> list[FieldProblem]:
    if isinstance(err, ObjectError):
        return object_problems(err, text)
    field = "metadata.name" if isinstance(err, AlreadyExistsError) else ""
    if isinstance(err, ConflictError):
        field = "metadata.resourceVersion"
    return [FieldProblem(field, str(err), locate(text, field))]


def _editor(
    request: HttpRequest,
    workspace: Workspace,
    row: ClusterObject | None,
    text: str,
    problems: list[FieldProblem] = (),
    status: int = 200,
    recreate: bool = False,
) -> HttpResponse:
    context = {
        "workspace": workspace,
        "section": "objects",
        "row": row,
        "text": text,
        "problems": list(problems),
        "kinds": TEMPLATE_KINDS,
        "recreate": recreate,
    }
    return render_page(
        request, "front/object.html", "front/object_editor.html", context, status=status
    )


def _list_url(workspace: Workspace, kind: str) -> str:
    if kind == "Node":
        return reverse("nodes", args=[workspace.slug])
    if kind == "Pod":
        return reverse("pods", args=[workspace.slug])
    return reverse("objects", args=[workspace.slug]) + f"?kind={kind}"
