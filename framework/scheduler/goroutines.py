"""Work in flight, by operation: upstream's ``scheduler_goroutines`` gauge.

kube-scheduler counts the goroutines it starts for a binding cycle (``binding``) and for each
extender's Prioritize call (``prioritizing_extender``). The engine runs neither on a goroutine
of its own, but the same work is in flight over the same span: a binding cycle from its start
until its outcome (through a wait at Permit, and in the playground until the binding task's
answer returns), an extender's Prioritize while its HTTP call is out. The gauge is read on
demand, so it costs a counter update per start and end.
"""

from __future__ import annotations

import threading
from collections import Counter

from framework.metrics import GOROUTINES, Labels, Metrics


class Goroutines:
    """Running work per ``operation``; binding cycles may end on other threads."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._running: Counter[str] = Counter()

    def started(self, operation: str) -> None:
        with self._lock:
            self._running[operation] += 1

    def ended(self, operation: str) -> None:
        with self._lock:
            self._running[operation] -= 1

    def running(self, operation: str) -> int:
        with self._lock:
            return self._running[operation]

    def series(self) -> dict[Labels, float]:
        """Every operation that ever ran, 0 when none runs now (as upstream's gauge stays)."""
        with self._lock:
            return {(("operation", op),): float(n) for op, n in self._running.items()}

    def register(self, metrics: Metrics) -> None:
        metrics.gauge_source(GOROUTINES, self.series)
