"""The permit console: pods waiting at Permit, and a person's Approve / Reject.

A decision is a SchedulerCommand; the page waits a moment for the service to execute it and
shows its outcome, so of two people clicking at once one reads what was done and the other
``already decided: …`` (the service takes each decision once: ``permit_decisions``).
"""

from __future__ import annotations

import time
from typing import Any

from django import forms
from django.contrib import messages
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect
from django.utils import timezone
from django.views.decorators.http import require_POST

from playground.front.access import workspace_view
from playground.front.commands import send_command, wait_for_outcome
from playground.front.configuration import runs_plugin_at
from playground.front.pages import render_page
from playground.front.pod_groups import GroupView, groups_of, pod_group
from playground.front.queue_board import Board, board_of
from playground.scheduling.label_selector_permit import LABEL_SELECTOR_PERMIT
from playground.scheduling.plugins import WAIT_FOR_APPROVAL
from playground.workspaces.models import SchedulerCommand, Workspace

OUTCOME_WAIT_SECONDS = 3.0
"""How long a decision waits for the service's outcome before saying it was sent."""
DECISIONS = [(k, k) for k in (SchedulerCommand.ALLOW, SchedulerCommand.REJECT)]


class DecisionForm(forms.Form):
    """Allow or reject one waiting pod, for one pending plugin or (no plugin) for all."""

    uid = forms.CharField(max_length=64)
    decision = forms.ChoiceField(choices=DECISIONS)
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


class AllShownForm(forms.Form):
    """Allow or reject, for all their pending plugins, every pod the page showed (``uids``):
    a pod that began to wait after the page was drawn is not decided unseen."""

    decision = forms.ChoiceField(choices=DECISIONS)
    uids = forms.CharField(max_length=64 * 1000)

    def clean_uids(self) -> list[str]:
        return list(dict.fromkeys(self.cleaned_data["uids"].split()))


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
    kind = form.cleaned_data["decision"]
    shown = _waiting_names(workspace)
    command = send_command(workspace, request.user, kind, form.payload())
    return _after_decision(request, workspace, _outcome_note(kind, [command], shown))


@require_POST
@workspace_view
def decide_all(request: HttpRequest, workspace: Workspace) -> HttpResponse:
    form = AllShownForm(request.POST)
    if not form.is_valid():
        problems = "; ".join(f"{name}: {' '.join(errs)}" for name, errs in form.errors.items())
        return HttpResponse(f"Invalid decision: {problems}", status=400)
    kind = form.cleaned_data["decision"]
    shown = _waiting_names(workspace)
    commands = [
        send_command(workspace, request.user, kind, {"uid": uid})
        for uid in form.cleaned_data["uids"]
    ]
    return _after_decision(request, workspace, _outcome_note(kind, commands, shown))


def _waiting_names(workspace: Workspace) -> dict[str, str]:
    """uid -> "namespace/name" of the pods waiting as the page showed them."""
    waiting = board_of(workspace).lists.get("waiting", [])
    return {entry.get("uid", ""): entry.get("pod", "") for entry in waiting}


def _outcome_note(kind: str, commands: list[SchedulerCommand], names: dict[str, str]) -> str:
    """What the service did with each decision (``already decided: …`` when someone was
    faster), or that it was sent when no running scheduler answered in time. The commands
    share one wait: the service executes them in the same tick."""
    deadline = time.monotonic() + OUTCOME_WAIT_SECONDS
    outcomes = [
        wait_for_outcome(command, max(0.0, deadline - time.monotonic())) for command in commands
    ]
    if any(outcome is None for outcome in outcomes):
        return f"{kind.capitalize()} sent to the scheduler."
    uids = [command.payload.get("uid", "") for command in commands]
    return "; ".join(
        f"{names.get(uid) or uid}: {outcome}" for uid, outcome in zip(uids, outcomes, strict=True)
    )


def _after_decision(request: HttpRequest, workspace: Workspace, note: str) -> HttpResponse:
    if request.htmx:
        context = {**permit_context(workspace, board_of(workspace)), "note": note}
        return render_page(request, "front/permit.html", "front/permit_console.html", context)
    messages.success(request, note)
    return redirect("permit", workspace.slug)


def permit_context(workspace: Workspace, board: Board) -> dict[str, Any]:
    """Waiting pods, each with its pending plugins and the seconds each one has left (as of
    now: the service published them a moment ago); with none, whether the configuration
    makes pods wait for a person (the page says how to)."""
    age = _age_seconds(board)
    waiting = [
        {**entry, "plugins": _pending_with_time_left(entry, age)}
        for entry in board.lists.get("waiting", [])
    ]
    context = {
        "workspace": workspace,
        "waiting": waiting,
        "all_shown_buttons": [
            (SchedulerCommand.ALLOW, "Approve all shown"),
            (SchedulerCommand.REJECT, "Reject all shown"),
        ],
        "shown_uids": " ".join(entry.get("uid", "") for entry in waiting),
        "sections": by_pod_group(workspace, waiting, board),
        "approval": WAIT_FOR_APPROVAL,
        "label_selector_permit": LABEL_SELECTOR_PERMIT,
    }
    if not waiting:
        configuration = workspace.current_configuration()
        context["approval_enabled"] = configuration is not None and runs_plugin_at(
            configuration.text, "permit", WAIT_FOR_APPROVAL, configuration.feature_gates
        )
    return context


def _pending_with_time_left(entry: dict[str, Any], age: float) -> list[tuple[str, float | None]]:
    """(plugin, seconds left or None) for each plugin the pod still waits for: each plugin
    has its own timeout, so each its own countdown."""
    left = entry.get("secondsLeft") or {}
    return [
        (plugin, None if left.get(plugin) is None else round(max(0.0, left[plugin] - age), 1))
        for plugin in entry.get("pendingPlugins", ())
    ]


def _age_seconds(board: Board) -> float:
    """How long ago the service published the board (0 when unknown)."""
    if board.updated is None:
        return 0.0
    return max(0.0, (timezone.now() - board.updated).total_seconds())


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
