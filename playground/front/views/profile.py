"""The profile editor: the configuration's YAML and kube-scheduler's feature gates checked as
they are typed, a form per profile, the expanded plugin lists, and Apply, which hands a valid
configuration and its gates to the scheduler as a new revision."""

from __future__ import annotations

from typing import Any

from django.contrib import messages
from django.http import HttpRequest, HttpResponse
from django.shortcuts import render
from django.urls import reverse
from django.views.decorators.http import require_POST

from framework.runtime.construction import implemented_points
from framework.runtime.registry import plugin_type
from playground.front.access import workspace_view
from playground.front.commands import send_command
from playground.front.configuration import MINIMAL_CONFIGURATION, Checked, check_configuration
from playground.front.pages import redirect_page, render_page
from playground.front.profile_edits import EditError
from playground.front.profile_form import edit_configuration
from playground.front.running_configuration import running_configuration
from playground.scheduling.plugins import playground_registry
from playground.workspaces.models import SchedulerCommand, SchedulerConfiguration, Workspace
from playground.workspaces.services import add_configuration_revision

REVISIONS_SHOWN = 10


@workspace_view
def editor(request: HttpRequest, workspace: Workspace) -> HttpResponse:
    """The latest revision (or ``?revision=n``); ``?enable=<point>:<plugin>`` opens it as a
    draft with the plugin enabled there (the permit console links here that way)."""
    revision = _revision(workspace, request.GET.get("revision"))
    text = revision.text if revision else MINIMAL_CONFIGURATION
    gates = revision.feature_gates if revision else ""
    index = _index(request.GET.get("profile"))
    enable = request.GET.get("enable", "")
    if not enable:
        return render_editor(request, workspace, text, index, feature_gates=gates)
    point, _, plugin = enable.partition(":")
    try:
        text = edit_configuration(text, index, f"add:{point}", {f"add:{point}": plugin}, gates)
    except EditError as err:
        return render_editor(request, workspace, text, index, note=str(err), feature_gates=gates)
    notice = f"{plugin} is enabled at {point} in this draft: Apply hands it to the scheduler."
    return render_editor(request, workspace, text, index, notice=notice, feature_gates=gates)


@require_POST
@workspace_view
def validate(request: HttpRequest, workspace: Workspace) -> HttpResponse:
    """htmx: the check of the text and gates as typed; without JavaScript, the editor with it."""
    text, gates = request.POST.get("text", ""), request.POST.get("feature_gates", "")
    if request.htmx:
        context = {"checked": check_configuration(text, gates)}
        return render(request, "front/config_check.html", context)
    index = _index(request.POST.get("profile"))
    return render_editor(request, workspace, text, index, feature_gates=gates)


@require_POST
@workspace_view
def edit(request: HttpRequest, workspace: Workspace) -> HttpResponse:
    """One button of the profile form: the editor comes back with the changed text."""
    text, gates = request.POST.get("text", ""), request.POST.get("feature_gates", "")
    index = _index(request.POST.get("show", request.POST.get("profile")))
    op, note = request.POST.get("op", ""), ""
    if op:
        try:
            text = edit_configuration(text, index, op, request.POST, gates)
        except EditError as err:
            note = str(err)
    return render_editor(request, workspace, text, index, note=note, feature_gates=gates)


def render_editor(
    request: HttpRequest,
    workspace: Workspace,
    text: str,
    index: int,
    note: str = "",
    status: int = 200,
    notice: str = "",
    feature_gates: str = "",
) -> HttpResponse:
    """The editor with ``text`` and ``feature_gates`` as given (a refused draft comes back as
    typed); ``note`` says why a change was refused, ``notice`` what the draft holds that the
    latest revision does not."""
    checked = check_configuration(text, feature_gates)
    context = {
        "workspace": workspace,
        "section": "profile",
        "text": text,
        "feature_gates": feature_gates,
        "checked": checked,
        "profile": _selected(checked, index),
        "rows": _form_rows(checked, index),
        "note": note,
        "notice": notice,
        "revisions": workspace.configurations.all()[:REVISIONS_SHOWN],
        "current": workspace.current_configuration(),
        "running": running_configuration(workspace),
    }
    return render_page(
        request, "front/profile.html", "front/profile_editor.html", context, status=status
    )


def _selected(checked: Checked, index: int) -> Any:
    return checked.profiles[index] if 0 <= index < len(checked.profiles) else None


def _form_rows(checked: Checked, index: int) -> list[tuple[str, list, list[str]]]:
    """Per extension point: its plugins, and the plugins that may be enabled there too."""
    profile = _selected(checked, index)
    if profile is None:
        return []
    registry = playground_registry()
    offered = {name: _points(factory) for name, factory in sorted(registry.items())}
    return [
        (point, plugins, _addable(point, plugins, offered))
        for point, plugins in profile.point_rows()
    ]


def _points(factory: Any) -> list[str] | None:
    """The points the factory's plugin implements; None when its class is not known."""
    cls = plugin_type(factory)
    return implemented_points(cls) if cls is not None else None


def _addable(
    point: str, plugins: list[tuple[str, Any]], offered: dict[str, list[str] | None]
) -> list[str]:
    """Plugins not enabled at the point that implement it (any, if that is not known: the
    configuration's check then says whether it does)."""
    enabled = {name for name, _ in plugins}
    return [
        name
        for name, points in offered.items()
        if name not in enabled and (points is None or point in points)
    ]


def _revision(workspace: Workspace, number: str | None) -> SchedulerConfiguration | None:
    if number and number.isdigit():
        found = workspace.configurations.filter(revision=int(number)).first()
        if found is not None:
            return found
    return workspace.current_configuration()


def _index(value: str | None) -> int:
    return int(value) if value and value.isdigit() else 0


@require_POST
@workspace_view
def apply(request: HttpRequest, workspace: Workspace) -> HttpResponse:
    """A valid configuration and its feature gates become a new revision and go to the running
    scheduler; invalid ones come back as typed, with every problem."""
    text, gates = request.POST.get("text", ""), request.POST.get("feature_gates", "")
    index = _index(request.POST.get("profile"))
    refused = {"status": 422, "feature_gates": gates}
    if not check_configuration(text, gates).valid:
        note = "Not applied: the configuration has problems."
        return render_editor(request, workspace, text, index, note=note, **refused)
    note = request.POST.get("note", "")[:200]
    revision, problems = add_configuration_revision(workspace, text, request.user, note, gates)
    if revision is None:  # the checks above and these agree; a race is the only way here
        note = "Not applied: " + "; ".join(str(problem) for problem in problems)
        return render_editor(request, workspace, text, index, note=note, **refused)
    send_command(
        workspace,
        request.user,
        SchedulerCommand.APPLY_CONFIGURATION,
        {"revision": revision.revision},
    )
    messages.success(request, f"Revision {revision.revision} sent to the scheduler.")
    return redirect_page(request, reverse("profile", args=[workspace.slug]))
