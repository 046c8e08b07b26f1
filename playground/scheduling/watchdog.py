"""The watchdog: starts the scheduler service of every workspace that has none alive, and the
mirror of every connection linked to a workspace.

A service (or mirror) that dies (its worker killed) leaves its lease to lapse; the watchdog
notices and enqueues a successor, which takes over and rebuilds from the database (or re-lists
the cluster). It runs in the embedded worker and in production's scheduler workers, once per
process.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable, Sequence

from django.conf import settings
from django.db import close_old_connections

logger = logging.getLogger(__name__)


class Watchdog:
    """A daemon thread calling each of ``checks`` every ``interval`` seconds (the list is read
    each round: a check added later is called too)."""

    def __init__(
        self, checks: Sequence[Callable[[], object]], interval: float | None = None
    ) -> None:
        self.checks = checks
        self.interval = interval or float(settings.SCHEDULER_LEASE_SECONDS) / 2
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, name="scheduler-watchdog", daemon=True)

    def start(self) -> Watchdog:
        self._thread.start()
        return self

    def stop(self, timeout: float | None = 10.0) -> None:
        self._stop.set()
        if self._thread.is_alive():
            self._thread.join(timeout)

    def _run(self) -> None:
        while not self._stop.wait(self.interval):
            for check in self.checks:
                try:
                    check()
                except Exception:  # the database or broker is away: try again next time
                    logger.exception("the watchdog's %s failed", check.__name__)
                finally:
                    close_old_connections()


_watchdog: Watchdog | None = None
_lock = threading.Lock()
_checks: list[Callable[[], object]] = []


def keep_running(check: Callable[[], object]) -> None:
    """Adds a check to the process's watchdog. The tasks modules hand theirs in as they are
    imported (``ensure_all_schedulers_running``, ``ensure_all_mirrors_running``): this module
    is below them and imports neither."""
    if check not in _checks:
        _checks.append(check)


def start_watchdog() -> Watchdog:
    """The process's watchdog, started on first call."""
    global _watchdog
    with _lock:
        if _watchdog is None:
            _watchdog = Watchdog(_checks).start()
        return _watchdog


def stop_watchdog() -> None:
    global _watchdog
    with _lock:
        watchdog, _watchdog = _watchdog, None
    if watchdog is not None:
        watchdog.stop()
