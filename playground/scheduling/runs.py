"""The long-running tasks this process runs (scheduler services, cluster mirrors), and how to
stop them.

Each such task holds a worker thread and a lease for as long as it runs. A worker told to stop
(or the embedded worker stopping) asks every run of every kind to end at once and waits for
them (``stop_every_run``), each releasing its lease so a successor starts at once, or, with
``release=False``, leaving it to lapse as a killed worker would. A worker whose threads also
run binding tasks keeps some free for them: ``limit`` caps how many runs of one kind it takes
at once.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Generic, TypeVar

T = TypeVar("T")


@dataclass(slots=True)
class Run(Generic[T]):
    """One task running in this process, and how to stop it."""

    task: T
    stop: threading.Event = field(default_factory=threading.Event)
    release: bool = True
    """Whether the task gives its lease up as it stops (set by ``Runs.stop_all``)."""
    ended: threading.Event = field(default_factory=threading.Event)


class Runs(Generic[T]):
    """The runs of one kind of task in this process."""

    def __init__(self) -> None:
        self._runs: dict[int, Run[T]] = {}
        self._lock = threading.Lock()
        self.most: int | None = None
        """At most this many at once (None: no limit)."""
        KINDS.append(self)

    def limit(self, most: int | None) -> None:
        self.most = most

    def full(self) -> bool:
        with self._lock:
            return self.most is not None and len(self._runs) >= self.most

    def tasks(self) -> list[T]:
        with self._lock:
            return [run.task for run in self._runs.values()]

    @contextmanager
    def running(self, task: T) -> Iterator[Run[T]]:
        """Counts ``task`` as running until the block ends; its run says when to stop."""
        run = Run(task)
        with self._lock:
            self._runs[id(run)] = run
        try:
            yield run
        finally:
            with self._lock:
                self._runs.pop(id(run), None)
            run.ended.set()

    def stop_all(self, release: bool = True, timeout: float | None = 10.0) -> int:
        """Asks every run to stop and waits for them (``timeout`` seconds at most); returns how
        many there were."""
        runs = self.ask_to_stop(release)
        wait_for(runs, timeout)
        return len(runs)

    def ask_to_stop(self, release: bool = True) -> list[Run[T]]:
        """Asks every run to stop, without waiting; returns them."""
        with self._lock:
            runs = list(self._runs.values())
        for run in runs:
            run.release = release
            run.stop.set()
        return runs


KINDS: list[Runs] = []
"""Every kind of run in this process (each ``Runs`` adds itself)."""


def stop_every_run(release: bool = True, timeout: float | None = 10.0) -> int:
    """Asks every run of every kind to stop, then waits for them; returns how many there were.

    Services and mirrors stop at the same time: each stop is a release of a lease (and of the
    cluster's Lease) over the network, and one kind after the other took twice as long.
    """
    runs = [run for kind in KINDS for run in kind.ask_to_stop(release)]
    wait_for(runs, timeout)
    return len(runs)


def wait_for(runs: list[Run], timeout: float | None) -> None:
    """Waits until every run has ended, ``timeout`` seconds at most in all."""
    deadline = None if timeout is None else time.monotonic() + timeout
    for run in runs:
        run.ended.wait(None if deadline is None else max(0.0, deadline - time.monotonic()))
