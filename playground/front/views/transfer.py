"""A workspace's objects in and out as multi-document YAML, and objects in bulk."""

from __future__ import annotations

from typing import Any

from django import forms
from django.conf import settings
from django.contrib import messages
from django.http import HttpRequest, HttpResponse
from django.shortcuts import render
from django.views.decorators.http import require_POST

from playground.front.access import object_edit_view, workspace_view
from playground.front.commands import wake_scheduler
from playground.front.object_templates import TEMPLATE_KINDS, template_for
from playground.front.pages import redirect_page, render_page
from playground.workspaces.importing import (
    CHUNK_SIZE,
    MAX_BULK_COUNT,
    Refused,
    bulk_create,
    export_manifests,
    import_manifests,
)
from playground.workspaces.models import Workspace


class ImportForm(forms.Form):
    text = forms.CharField(required=False, widget=forms.Textarea)
    file = forms.FileField(required=False)

    def manifests(self) -> str:
        upload = self.cleaned_data.get("file")
        if upload is not None:
            if upload.size > settings.MAX_MANIFEST_BYTES:
                limit = settings.MAX_MANIFEST_BYTES // (1024 * 1024)
                raise forms.ValidationError(f"the file is larger than {limit} MiB")
            return upload.read().decode("utf-8", errors="replace")
        return self.cleaned_data.get("text") or ""


class BulkForm(forms.Form):
    template = forms.CharField(widget=forms.Textarea)
    count = forms.IntegerField(label="How many", min_value=1, max_value=MAX_BULK_COUNT, initial=100)
    done = forms.IntegerField(min_value=0, initial=0, required=False, widget=forms.HiddenInput)


@workspace_view
def transfer(request: HttpRequest, workspace: Workspace) -> HttpResponse:
    """The import / export / bulk page."""
    kind = request.GET.get("kind", "Pod")
    bulk = BulkForm(initial={"template": template_for(kind), "count": 100, "done": 0})
    context = {
        "workspace": workspace,
        "section": "transfer",
        "form": ImportForm(),
        "bulk": bulk,
        "kinds": TEMPLATE_KINDS,
    }
    return render(request, "front/transfer.html", context)


@require_POST
@object_edit_view
def import_objects(request: HttpRequest, workspace: Workspace) -> HttpResponse:
    """All or nothing: every problem is listed, and nothing is stored unless there are none."""
    form = ImportForm(request.POST, request.FILES)
    problems: list[Any] = []
    if form.is_valid():
        try:
            result = import_manifests(workspace, form.manifests())
        except Refused as refused:
            problems = refused.problems
        except forms.ValidationError as err:
            problems = [{"object": "file", "field": "", "message": err.messages[0]}]
        else:
            wake_scheduler(workspace)
            messages.success(
                request,
                f"Imported {result.total} objects: {len(result.created)} created, "
                f"{len(result.replaced)} replaced.",
            )
            return redirect_page(request, workspace)
    context = {"workspace": workspace, "section": "transfer", "form": form, "problems": problems}
    return render_page(
        request, "front/transfer_import.html", "front/import_form.html", context, status=422
    )


@workspace_view
def export_objects(request: HttpRequest, workspace: Workspace) -> HttpResponse:
    response = HttpResponse(export_manifests(workspace), content_type="application/yaml")
    response["Content-Disposition"] = f'attachment; filename="{workspace.slug}.yaml"'
    return response


@require_POST
@object_edit_view
def bulk(request: HttpRequest, workspace: Workspace) -> HttpResponse:
    """One step of a bulk creation: the next chunk, then the progress bar.

    Each step is its own request, so the bar moves as chunks are written; the fragment a step
    returns asks for the next one as soon as htmx swaps it in (a button does it without
    JavaScript). Numbering goes on from the highest existing ``{name}-{i}``.
    """
    form = BulkForm(request.POST)
    if not form.is_valid():
        return _bulk_page(request, workspace, form, status=422)
    count, done = form.cleaned_data["count"], form.cleaned_data["done"] or 0
    step = min(CHUNK_SIZE, count - done)
    try:
        names = bulk_create(workspace, form.cleaned_data["template"], step) if step > 0 else []
    except Refused as refused:
        return _bulk_page(request, workspace, form, refused.problems, status=422)
    wake_scheduler(workspace)
    done += len(names)
    following = BulkForm(initial={**form.cleaned_data, "done": done})
    context = {"last": names[-1] if names else "", "count": count, "done": done}
    return _bulk_page(request, workspace, following, progress=context)


def _bulk_page(
    request: HttpRequest,
    workspace: Workspace,
    form: BulkForm,
    problems: list[Any] = (),
    progress: dict[str, Any] | None = None,
    status: int = 200,
) -> HttpResponse:
    context = {
        "workspace": workspace,
        "section": "transfer",
        "bulk": form,
        "problems": list(problems),
        "progress": progress,
    }
    return render_page(request, "front/transfer_bulk.html", "front/bulk_form.html", context, status)
