"""The permit console: pods waiting at Permit, and a person's Approve / Reject."""

from __future__ import annotations

from typing import Any

from django import forms
from django.contrib import messages
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect
from django.views.decorators.http import require_POST

from playground.front.access import workspace_view
from playground.front.commands import send_command
from playground.front.configuration import runs_plugin_at
from playground.front.pages import render_page
from playground.front.pod_groups import GroupView, groups_of, pod_group
from playground.front.queue_board import Board, board_of
from playground.scheduling.plugins import WAIT_FOR_APPROVAL
from playground.workspaces.models import SchedulerCommand, Workspace


class DecisionForm(forms.Form):
    """Allow or reject one waiting pod, for one pending plugin or (no plugin) for all."""

    uid = forms.CharField(max_length=64)
    decision = forms.ChoiceField(
        choices=[(k, k) for k in (SchedulerCommand.ALLOW, SchedulerCommand.REJECT)]
    )
    plugin = forms.CharField(max_length=253, required=False)
    message = forms.CharField(max_length=1000, required=False)

    def payload(self) -> dict[str, str]:
        data = self.cleaned_data
        payload = {"uid": data["uid"]}
        if data["plugin"]:
            payload["plugin"] = data["plugin"]
        if data["decision"] == SchedulerCommand.REJECT and data["message"]:
            payload["message"] = data["message"]
        return payload


@workspace_view
def permit(request: HttpRequest, workspace: Workspace) -> HttpResponse:
    context = {"section": "permit", **permit_context(workspace, board_of(workspace))}
    return render_page(request, "front/permit.html", "front/permit_console.html", context)


@require_POST
@workspace_view
def decide(request: HttpRequest, workspace: Workspace) -> HttpResponse:
    form = DecisionForm(request.POST)
    if not form.is_valid():
        return HttpResponse("Invalid decision.", status=400)
    send_command(workspace, request.user, form.cleaned_data["decision"], form.payload())
    note = f"{form.cleaned_data['decision'].capitalize()} sent to the scheduler."
    if request.htmx:
        context = {**permit_context(workspace, board_of(workspace)), "note": note}
        return render_page(request, "front/permit.html", "front/permit_console.html", context)
    messages.success(request, note)
    return redirect("permit", workspace.slug)


def permit_context(workspace: Workspace, board: Board) -> dict[str, Any]:
    """Waiting pods, each with its pending plugins and the seconds each one has left; with
    none, whether the configuration makes pods wait for a person (the page says how to)."""
    waiting = [
        {
            **entry,
            "plugins": [
                (plugin, (entry.get("secondsLeft") or {}).get(plugin))
                for plugin in entry.get("pendingPlugins", ())
            ],
        }
        for entry in board.lists.get("waiting", [])
    ]
    context = {
        "workspace": workspace,
        "waiting": waiting,
        "sections": by_pod_group(workspace, waiting, board),
        "approval": WAIT_FOR_APPROVAL,
    }
    if not waiting:
        configuration = workspace.current_configuration()
        context["approval_enabled"] = configuration is not None and runs_plugin_at(
            configuration.text, "permit", WAIT_FOR_APPROVAL, configuration.feature_gates
        )
    return context


def by_pod_group(
    workspace: Workspace, waiting: list[dict[str, Any]], board: Board
) -> list[tuple[GroupView | None, list[dict[str, Any]]]]:
    """The waiting pods, a gang's members together under their group (with its quorum), in
    the order the first of each is listed; pods outside groups as they come, without one."""
    groups = groups_of(workspace, [entry.get("uid", "") for entry in waiting])
    sections: list[tuple[GroupView | None, list[dict[str, Any]]]] = []
    index: dict[tuple[str, str], int] = {}
    for entry in waiting:
        key = groups.get(entry.get("uid", ""))
        if key is None:
            sections.append((None, [entry]))
            continue
        if key not in index:
            index[key] = len(sections)
            sections.append((pod_group(workspace, *key, board), []))
        sections[index[key]][1].append(entry)
    return sections
