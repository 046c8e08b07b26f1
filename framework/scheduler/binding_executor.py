"""Where binding cycles run: inline (simulations, tests) or on threads (a live scheduler).

Upstream starts a goroutine per binding cycle. A simulation runs it at once instead, which is
the same as a binding that finishes before the next scheduling cycle starts.
"""

from __future__ import annotations

import threading
from collections.abc import Callable


class InlineExecutor:
    """Runs each binding cycle immediately, in the caller's thread."""

    def submit(self, work: Callable[[], None]) -> None:
        work()


class ThreadExecutor:
    """Runs each binding cycle on its own daemon thread, as upstream's goroutines."""

    def __init__(self) -> None:
        self._threads: list[threading.Thread] = []

    def submit(self, work: Callable[[], None]) -> None:
        thread = threading.Thread(target=work, daemon=True, name="binding-cycle")
        self._threads = [t for t in self._threads if t.is_alive()]
        self._threads.append(thread)
        thread.start()

    def join(self, timeout: float | None = None) -> None:
        for thread in list(self._threads):
            thread.join(timeout)
