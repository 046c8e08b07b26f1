"""Fixtures for the scheduler service: a fake clock, captured broadcasts, services to build."""

from __future__ import annotations

import math
import time

import pytest

from framework.util.clock import FakeClock
from playground.live import broadcast
from playground.scheduling.binding import run_bindings
from playground.scheduling.service import SchedulerService


@pytest.fixture
def clock():
    """Starts at the wall-clock time (leases are compared with the database's timestamps), in
    the middle of its second: backoff ends are aligned to whole seconds, and a test starting
    in a second's last 50 ms would otherwise see a backoff of 0.0 s left."""
    return FakeClock(math.floor(time.time()) + 0.5)


@pytest.fixture
def sent(monkeypatch):
    """Every broadcast message, as (group or channel, message), instead of sending it."""
    messages: list[tuple[str, dict]] = []
    monkeypatch.setattr(broadcast, "send", lambda group, message: messages.append((group, message)))
    monkeypatch.setattr(
        broadcast, "send_to_channel", lambda channel, message: messages.append((channel, message))
    )
    return messages


class BindingTasks:
    """Stands in for the binding queue: keeps the requests of every batch sent until a test runs
    them (``batches`` keeps how they were sent)."""

    def __init__(self) -> None:
        self.requests = []
        self.batches = []

    def __call__(self, batch) -> None:
        self.requests.extend(batch)
        self.batches.append(list(batch))

    def run_all(self) -> list:
        requests, self.requests = self.requests, []
        return run_bindings(requests)


@pytest.fixture
def binding_tasks():
    return BindingTasks()


@pytest.fixture
def make_service(workspace, clock, sent, binding_tasks):
    """``make_service(holder="a", **options)``: a service of the workspace, not started.

    Attempts are written during the tick (not by a writer thread), so a test reads them as
    soon as the tick returns; test_attempt_writer.py covers the writer thread."""

    def make(holder: str = "worker-a", **options) -> SchedulerService:
        options.setdefault("clock", clock)
        options.setdefault("dispatch", binding_tasks)
        options.setdefault("status_interval", 0.0)
        options.setdefault("background_writes", False)
        return SchedulerService(workspace.pk, holder, **options)

    return make
