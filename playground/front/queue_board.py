"""The scheduler's queues as the service last published them (SchedulerStatus).

The service stores ``queue`` as ``{list name: [entry, ...]}`` and ``waiting_pods`` as a list of
entries; an entry is a dict with at least ``pod`` ("namespace/name") and ``uid``, plus what the
list is about (``backoffSeconds``, ``plugins`` and ``message``, ``pendingPlugins``...). This
module is the one place that reads that shape.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from playground.workspaces.models import SchedulerStatus, Workspace

BOARD = (
    ("active", "Active", "pop order"),
    ("backoff", "Backoff", "time left"),
    ("unschedulable", "Unschedulable", "rejecting plugins"),
    ("gated", "Gated", "scheduling gates"),
    ("inFlight", "In flight", "being scheduled"),
    ("waiting", "Waiting at Permit", "pending plugins"),
    ("binding", "Binding", "binding cycle"),
)
"""(list name, title, what the list shows) in the order a pod moves through them."""


@dataclass(slots=True)
class Board:
    lists: dict[str, list[dict[str, Any]]] = field(default_factory=dict)
    sizes: list[list[float]] = field(default_factory=list)
    updated: Any = None

    def columns(self) -> list[tuple[str, str, str, list[dict[str, Any]]]]:
        return [(name, title, about, self.lists.get(name, [])) for name, title, about in BOARD]

    def where(self) -> dict[str, tuple[str, dict[str, Any]]]:
        """uid -> (list name, entry) for every pod on the board."""
        return {
            entry.get("uid", ""): (name, entry)
            for name, _, _ in BOARD
            for entry in self.lists.get(name, [])
        }


def board_of(workspace: Workspace) -> Board:
    status = SchedulerStatus.objects.filter(workspace=workspace).first()
    if status is None:
        return Board()
    return board_from(status.queue, status.waiting_pods, status.queue_sizes, status.updated)


def board_from(
    queue: dict[str, Any] | None,
    waiting_pods: list[dict[str, Any]] | None,
    sizes: list[list[float]] | None = None,
    updated: Any = None,
) -> Board:
    lists = {name: list((queue or {}).get(name, [])) for name, _, _ in BOARD}
    if waiting_pods:
        lists["waiting"] = list(waiting_pods)
    return Board(lists=lists, sizes=list(sizes or []), updated=updated)
