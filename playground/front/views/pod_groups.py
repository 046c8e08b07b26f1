"""The PodGroups page (every group of the workspace, live) and a group's own page (its members
and each one's latest attempt in the group's cycle: filter matrix, scores, node, and why the
group failed)."""

from __future__ import annotations

from typing import Any

from django.db.models import Q
from django.http import Http404, HttpRequest, HttpResponse
from django.template.loader import render_to_string

from playground.front.access import workspace_view
from playground.front.pages import render_page
from playground.front.pod_groups import GroupView, pod_group, pod_groups
from playground.front.queue_board import Board
from playground.front.views.pods import attempt_tables
from playground.workspaces.models import SchedulingAttempt, Workspace, latest_attempt_numbers

FAILED = ("Unschedulable", "Error")
"""Attempt results that mean the member was not placed (``SchedulingAttempt.result``)."""


@workspace_view
def groups(request: HttpRequest, workspace: Workspace) -> HttpResponse:
    context = {"section": "pod-groups", **groups_context(workspace)}
    return render_page(request, "front/pod_groups.html", "front/pod_groups_table.html", context)


@workspace_view
def group_detail(
    request: HttpRequest, workspace: Workspace, namespace: str, name: str
) -> HttpResponse:
    context = group_context(workspace, namespace, name)
    if context is None:
        raise Http404("No such pod group.")
    return render_page(request, "front/pod_group.html", "front/pod_group_members.html", context)


def groups_context(workspace: Workspace, board: Board | None = None) -> dict[str, Any]:
    """Every group with its members; the live consumer renders it from a published board."""
    return {"workspace": workspace, "groups": pod_groups(workspace, board)}


def group_context(
    workspace: Workspace,
    namespace: str,
    name: str,
    board: Board | None = None,
    attempts: bool = True,
) -> dict[str, Any] | None:
    """The group, its members and (unless not ``attempts``) each member's latest attempt with
    its tables; None when the workspace has no such group."""
    group = pod_group(workspace, namespace, name, board)
    if group is None:
        return None
    tried = member_attempts(workspace, group) if attempts else []
    return {
        "workspace": workspace,
        "section": "pod-groups",
        "group": group,
        "attempts": tried,
        "failures": failures(tried),
    }


def member_attempts(workspace: Workspace, group: GroupView) -> list[dict[str, Any]]:
    """Each member's latest attempt (in member order, those with none left out), with the
    tables of the pod page: what the group's last cycle tried for it."""
    numbers = latest_attempt_numbers(workspace.pk, (member.pod.uid for member in group.members))
    query = Q(pk__in=[])
    for uid, number in numbers.items():
        query |= Q(pod_uid=uid, number=number)
    rows = SchedulingAttempt.objects.filter(query, workspace=workspace)
    latest = {attempt.pod_uid: attempt for attempt in rows}
    entries = []
    for member in group.members:
        attempt = latest.get(member.pod.uid)
        if attempt is not None:
            context = {"workspace": workspace, **attempt_tables(attempt)}
            tables = render_to_string("front/attempt_trace.html", context)
            entries.append({"member": member, "attempt": attempt, "tables": tables})
    return entries


def failures(attempts: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The members whose latest attempt failed, each with its message."""
    return [entry for entry in attempts if entry["attempt"].result in FAILED]
