"""Injectable clocks: the real one, and a fake one that tests and simulations step by hand.

Everything in the engine that waits (backoff, permit timeouts, expiry) reads time and sets
timers through a Clock, so a simulation never sleeps and a test never flakes.
"""

from __future__ import annotations

import heapq
import itertools
import threading
import time
from collections.abc import Callable
from typing import Protocol


class Timer(Protocol):
    def stop(self) -> bool:
        """Cancels the timer; True if it had not fired yet."""
        ...


class Clock(Protocol):
    def now(self) -> float:
        """Seconds since an arbitrary epoch."""
        ...

    def after_func(self, delay: float, callback: Callable[[], None]) -> Timer:
        """Calls ``callback`` once ``delay`` seconds have passed."""
        ...


class _RealTimer:
    __slots__ = ("_timer",)

    def __init__(self, delay: float, callback: Callable[[], None]) -> None:
        self._timer = threading.Timer(delay, callback)
        self._timer.daemon = True
        self._timer.start()

    def stop(self) -> bool:
        alive = self._timer.is_alive() and not self._timer.finished.is_set()
        self._timer.cancel()
        return alive


class RealClock:
    """Wall-clock time; timers run on daemon threads."""

    def now(self) -> float:
        return time.time()

    def after_func(self, delay: float, callback: Callable[[], None]) -> Timer:
        return _RealTimer(max(0.0, delay), callback)


class _FakeTimer:
    __slots__ = ("callback", "deadline", "fired", "stopped")

    def __init__(self, deadline: float, callback: Callable[[], None]) -> None:
        self.deadline = deadline
        self.callback = callback
        self.fired = False
        self.stopped = False

    def stop(self) -> bool:
        pending = not (self.fired or self.stopped)
        self.stopped = True
        return pending


class FakeClock:
    """A clock that only moves when told; timers fire, in deadline order, as it passes them."""

    def __init__(self, start: float = 0.0) -> None:
        self._now = start
        self._timers: list[tuple[float, int, _FakeTimer]] = []
        self._sequence = itertools.count()
        self._lock = threading.Lock()

    def now(self) -> float:
        return self._now

    def after_func(self, delay: float, callback: Callable[[], None]) -> Timer:
        timer = _FakeTimer(self._now + max(0.0, delay), callback)
        with self._lock:
            heapq.heappush(self._timers, (timer.deadline, next(self._sequence), timer))
        return timer

    def step(self, seconds: float) -> None:
        """Moves time forward, firing every timer whose deadline is reached on the way."""
        self.set_time(self._now + seconds)

    def set_time(self, when: float) -> None:
        while True:
            with self._lock:
                if not self._timers or self._timers[0][0] > when:
                    break
                deadline, _, timer = heapq.heappop(self._timers)
            self._now = max(self._now, deadline)
            if not timer.stopped:
                timer.fired = True
                timer.callback()
        self._now = max(self._now, when)

    def next_deadline(self) -> float | None:
        """When the earliest live timer fires, or None: lets a simulation jump straight there."""
        with self._lock:
            live = [deadline for deadline, _, timer in self._timers if not timer.stopped]
        return min(live) if live else None
