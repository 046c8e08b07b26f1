"""The engine's Scheduler as the service runs it.

Bind and PostBind are handed to the service (which sends them to a binding task), and binding
cycle work runs on the service's thread only: the scheduler's state and the thread's database
connection are never shared with the timer threads that fire permit timeouts.
"""

from __future__ import annotations

import threading
from collections import deque
from collections.abc import Callable, Iterator
from contextlib import contextmanager

from framework.api.pod import Pod
from framework.interface.cycle_state import CycleState
from framework.interface.status import Status
from framework.runtime.framework import Framework
from framework.scheduler.scheduler import Scheduler

BindingDispatch = Callable[[Framework, Pod, str, Callable[[Status | None], None]], None]
"""``(framework, pod, node, done)``: sends Bind + PostBind away; ``done(status)`` ends it."""


class PlaygroundScheduler(Scheduler):
    """The engine's Scheduler with Bind and PostBind handed to the service's dispatcher."""

    dispatch_binding: BindingDispatch

    def bind_pod(
        self,
        framework: Framework,
        state: CycleState,
        pod: Pod,
        host: str,
        done: Callable[[Status | None], None],
    ) -> None:
        self.dispatch_binding(framework, pod, host, done)


class ServiceThreadExecutor:
    """Runs binding-cycle work on the service's thread.

    Work submitted from that thread runs at once (like the engine's InlineExecutor); work from
    other threads (a permit timeout firing on a timer thread) waits for the next tick, so the
    scheduler and the database connection are only ever used by one thread.
    """

    def __init__(self) -> None:
        self._thread = threading.get_ident()
        self._queue: deque[Callable[[], None]] = deque()
        self._deferring = False

    def submit(self, work: Callable[[], None]) -> None:
        if threading.get_ident() == self._thread and not self._deferring:
            work()
        else:
            self._queue.append(work)

    @contextmanager
    def deferring(self) -> Iterator[None]:
        """Work submitted meanwhile waits for ``run_pending``, even from the service's thread:
        at a debugger stop, a pod allowed at Permit must not run its binding cycle inside the
        scheduling cycle that is stopped."""
        self._deferring = True
        try:
            yield
        finally:
            self._deferring = False

    def adopt_current_thread(self) -> None:
        self._thread = threading.get_ident()

    def run_pending(self) -> int:
        ran = 0
        while self._queue:
            self._queue.popleft()()
            ran += 1
        return ran


class DiscardExecutor:
    """The executor of a scheduler being replaced: its late callbacks have nothing to do."""

    def submit(self, work: Callable[[], None]) -> None:
        pass
