"""The in-memory broker of embedded runs, with a consumer that can be woken to stop.

Celery's consume loop for a transport without an event loop of its own (kombu's in-memory one)
waits up to 2 s per call for a message and only then looks whether the worker is stopping: the
embedded worker's stop waited for that, most of 2 s of a web process's shutdown. This transport
reads in slices of its polling interval and leaves the wait as soon as it is told to (``wake``,
with the timeout the loop expects); the loop, seeing the worker stopping, ends. The queues are
kombu's (in-memory, process-wide).
"""

from __future__ import annotations

import threading
import time
from typing import Any

from kombu.transport import memory

TRANSPORT = f"{__name__}:Transport"
"""The name Celery's ``broker_transport`` setting takes for this transport."""


class Transport(memory.Transport):
    """kombu's in-memory transport; ``wake()`` ends a wait for messages within a poll."""

    def __init__(self, client: Any, **kwargs: Any) -> None:
        super().__init__(client, **kwargs)
        self.woken = threading.Event()

    def wake(self) -> None:
        """Ends the current and every later wait for messages (the consumer is stopping)."""
        self.woken.set()

    def drain_events(self, connection: Any, timeout: float | None = None) -> None:
        deadline = None if timeout is None else time.monotonic() + timeout
        while not self.woken.is_set():
            try:
                return super().drain_events(connection, timeout=self._slice(deadline))
            except TimeoutError:
                if deadline is not None and time.monotonic() >= deadline:
                    raise
        raise TimeoutError("the consumer was woken to stop")

    def _slice(self, deadline: float | None) -> float:
        """One poll's wait, no later than the deadline."""
        poll = self.polling_interval or 0.05
        if deadline is None:
            return poll
        return max(0.0, min(poll, deadline - time.monotonic()))


def wake_consumer(connection: Any) -> None:
    """Wakes a consumer waiting on ``connection`` (a kombu connection) if it is this broker's."""
    transport = getattr(connection, "transport", None) if connection is not None else None
    if isinstance(transport, Transport):
        transport.wake()
