"""A person's Allow / Reject of a pod waiting at Permit, decided once.

Two browsers may click at the same moment: Allow and Reject of the same pod, or the same
plugin twice. Their commands reach the service one after the other (it executes a
workspace's commands in order, alone under its lease), and this module makes the second
one a no-op that says what the first decided (``already decided: rejected by Quota: …``)
instead of acting again. Upstream's waiting pod silently drops a second outcome; a person
who clicked deserves to be told.

Each wait is remembered by its engine ``WaitingPod``: the outcome it delivered stays readable
after the pod left the waiting map, and a pod that waits again (a later attempt) starts a new
record, so a stale click never decides a new wait.
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from framework.interface.status import Code

REMEMBERED_WAITS = 1000
"""Finished waits kept to answer late clicks (oldest forgotten first)."""
DEFAULT_REJECT_MESSAGE = "rejected in the permit console"
ALREADY_DECIDED = "already decided: "


@dataclass(slots=True)
class _Wait:
    waiting: Any
    """The engine's WaitingPod."""
    allowed_by: list[str] = field(default_factory=list)
    """The plugins a person allowed, in order."""


class PermitDecisions:
    """Allows and rejects waiting pods, each plugin's decision taken once."""

    def __init__(self, waiting_pod: Callable[[str], Any]) -> None:
        self._waiting_pod = waiting_pod
        self._waits: OrderedDict[str, _Wait] = OrderedDict()

    def allow(self, uid: str, plugin: str = "") -> str:
        """Allows for ``plugin``, or for every plugin still pending when none is named."""
        wait, plugins, refused = self._decidable(uid, plugin)
        if wait is None:
            return refused
        for name in plugins:
            wait.waiting.allow(name)
        wait.allowed_by += plugins
        still = wait.waiting.get_pending_plugins()
        done = f"allowed by {', '.join(plugins)}"
        return f"{done}; still waiting for {', '.join(still)}" if still else done

    def reject(self, uid: str, plugin: str = "", message: str = "") -> str:
        """Rejects the pod in the name of ``plugin`` (default: its first pending plugin)."""
        wait, plugins, refused = self._decidable(uid, plugin)
        if wait is None:
            return refused
        name = next(iter(plugins), "")
        wait.waiting.reject(name, message or DEFAULT_REJECT_MESSAGE)
        return f"rejected by {name}"

    def _decidable(self, uid: str, plugin: str) -> tuple[_Wait | None, list[str], str]:
        """The pod's undecided wait and the plugins a decision is for (``plugin``, or all
        still pending); or None and why nothing can be done."""
        wait, refused = self._current(uid)
        if wait is None:
            return None, [], refused
        pending = wait.waiting.get_pending_plugins()
        if not plugin:
            return wait, pending, ""
        if plugin not in pending:
            return None, [], self._not_pending(wait, plugin)
        return wait, [plugin], ""

    def _current(self, uid: str) -> tuple[_Wait | None, str]:
        """The pod's current wait, still undecided; or None and why nothing can be done."""
        waiting = self._waiting_pod(uid)
        known = self._waits.get(uid)
        if waiting is None:
            if known is not None and known.waiting.outcome() is not None:
                return None, ALREADY_DECIDED + _describe(known)
            return None, "no such pod waits at Permit"
        if known is None or known.waiting is not waiting:
            known = self._remember(uid, _Wait(waiting))
        if waiting.outcome() is not None:
            return None, ALREADY_DECIDED + _describe(known)
        return known, ""

    def _not_pending(self, wait: _Wait, plugin: str) -> str:
        if plugin in wait.allowed_by:
            return f"{ALREADY_DECIDED}allowed by {plugin}"
        return f"the pod does not wait for {plugin}"

    def _remember(self, uid: str, wait: _Wait) -> _Wait:
        self._waits[uid] = wait
        self._waits.move_to_end(uid)
        while len(self._waits) > REMEMBERED_WAITS:
            self._waits.popitem(last=False)
        return wait


def _describe(wait: _Wait) -> str:
    """What ended a wait: the people's allows, or the rejection (a person's or a timeout)."""
    status = wait.waiting.outcome()
    if status.code == Code.SUCCESS:
        return f"allowed by {', '.join(wait.allowed_by) or 'every plugin'}"
    reason = status.message()
    plugin = status.plugin
    return f"rejected by {plugin}: {reason}" if plugin else f"rejected: {reason}"
