"""The attempt under way: what an observer (the debugger) may look at, and how it may end it."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from framework.interface.status import Code, Status

if TYPE_CHECKING:
    from framework.interface.cycle_state import CycleState
    from framework.interface.types import QueuedPodInfo
    from framework.runtime.framework import Framework


@dataclass(slots=True)
class Cycle:
    """One pod's scheduling attempt: its queue entry, its CycleState and its profile.

    The scheduler names the cycle it is running (``Scheduler.current_cycle``) while the cycle's
    plugins run, binding cycle included, so an observer can show the state plugins wrote.
    """

    pod_info: QueuedPodInfo
    state: CycleState
    framework: Framework

    @property
    def attempt(self) -> int:
        """1 for a pod's first attempt (the queue counts attempts as it pops the pod)."""
        return self.pod_info.attempts


class AttemptAborted(Exception):
    """Raised by an observer to end the attempt under way with an Error status.

    The scheduler takes it as upstream takes an Error from a plugin at that point: before
    assume, the failure handler requeues the pod; after assume, Unreserve and Forget first; in
    the binding cycle, the binding cycle's error path. It is not raised once Bind has run.
    """

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message

    def status(self) -> Status:
        return Status(Code.ERROR, self.message)
