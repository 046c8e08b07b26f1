"""Binding-cycle work runs on the service's thread, whichever thread asks for it."""

from __future__ import annotations

import threading

from playground.scheduling.scheduler import ServiceThreadExecutor


def test_work_from_the_service_thread_runs_at_once():
    executor = ServiceThreadExecutor()
    ran = []

    executor.submit(lambda: ran.append(threading.get_ident()))

    assert ran == [threading.get_ident()]


def test_work_from_another_thread_waits_for_the_service_thread():
    executor = ServiceThreadExecutor()
    ran = []
    timer = threading.Thread(target=lambda: executor.submit(lambda: ran.append("timeout")))
    timer.start()
    timer.join()
    assert ran == []

    assert executor.run_pending() == 1
    assert ran == ["timeout"]
