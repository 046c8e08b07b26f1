"""A process told to stop asks its scheduler services and its mirrors to stop at the same time.

Each run's stop releases leases over the network (the workspace's, the cluster's Lease): asked
one kind after the other, a process waited for the services before the mirrors even began.
"""

from __future__ import annotations

import threading

from playground.scheduling import runs
from playground.scheduling.runs import Runs

ASKED_SECONDS = 10.0
"""How long a stopping run waits to see the other kind asked too; only a failure waits it."""


def test_every_kind_is_asked_to_stop_before_the_process_waits_for_any():
    services, mirrors = Runs(), Runs()
    saw_the_mirror_asked: list[bool] = []
    mirror_runs: list = []
    mirror_running, service_running = threading.Event(), threading.Event()

    def mirror() -> None:
        with mirrors.running("mirror") as run:
            mirror_runs.append(run)
            mirror_running.set()
            run.stop.wait()

    def service() -> None:
        with services.running("service") as run:
            service_running.set()
            run.stop.wait()
            # A stopping service still holds its lease while the mirror is not yet asked.
            saw_the_mirror_asked.append(mirror_runs[0].stop.wait(ASKED_SECONDS))

    threads = [threading.Thread(target=mirror), threading.Thread(target=service)]
    for thread in threads:
        thread.start()
    assert mirror_running.wait(ASKED_SECONDS) and service_running.wait(ASKED_SECONDS)

    stopped = runs.stop_every_run(release=False, timeout=2 * ASKED_SECONDS)

    for thread in threads:
        thread.join()
    assert stopped == 2
    assert saw_the_mirror_asked == [True]
    assert services.tasks() == [] and mirrors.tasks() == []


def test_a_stopped_run_is_told_whether_to_release_its_lease():
    kind = Runs()
    released: list[bool] = []
    running = threading.Event()

    def task() -> None:
        with kind.running("service") as run:
            running.set()
            run.stop.wait()
            released.append(run.release)

    thread = threading.Thread(target=task)
    thread.start()
    assert running.wait(ASKED_SECONDS)

    assert runs.stop_every_run(release=False, timeout=ASKED_SECONDS) == 1
    thread.join()
    assert released == [False]
