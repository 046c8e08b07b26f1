"""Celery tasks: a workspace's scheduler service, and its binding cycles.

``run_scheduler_service`` (queue ``scheduler``) runs one SchedulerService until its lease is
lost, the workspace is deleted or the worker stops; ``run_binding_cycles`` (queue ``binding``)
binds a batch of pods. Both take JSON arguments only. ``ensure_scheduler_running`` starts a service
for a workspace that has none alive; views call it, and so does the watchdog.
"""

from __future__ import annotations

import logging
import os
import socket
import uuid
from typing import Any

from celery import shared_task
from celery.signals import worker_ready, worker_shutting_down
from django.conf import settings
from django.db import close_old_connections, connections
from django.utils import timezone

from playground.scheduling import lease, runs, watchdog
from playground.scheduling.binding import BindingRequest, run_bindings
from playground.scheduling.runs import Runs
from playground.scheduling.service import SchedulerService
from playground.workspaces.models import Workspace

logger = logging.getLogger(__name__)

SCHEDULER_QUEUE = "scheduler"
POLL_SECONDS = 0.05
"""How long an idle service waits before looking at the change log and commands again."""


SERVICES: Runs[SchedulerService] = Runs()
"""The scheduler services this process runs."""


def limit_services(most: int | None) -> None:
    """At most ``most`` services at once in this process (None: no limit)."""
    SERVICES.limit(most)


@shared_task(bind=True, ignore_result=True, acks_late=False)
def run_scheduler_service(self: Any, workspace_id: int) -> str:
    """Runs the workspace's scheduler until it loses the lease or is stopped."""
    if SERVICES.full():
        return "no room for another service in this worker"
    task_id = self.request.id or uuid.uuid4().hex
    holder = f"{socket.gethostname()}:{os.getpid()}:{task_id}"
    service = SchedulerService(
        workspace_id, holder, task_id=task_id, dispatch=_send_to_binding_tasks
    )
    try:
        if not service.start():
            return "another worker holds the lease"
        with SERVICES.running(service) as run:
            why = service.run(run.stop, getattr(settings, "SCHEDULER_POLL_SECONDS", POLL_SECONDS))
            service.stop(release=run.release)
        return why
    except Workspace.DoesNotExist:
        return "the workspace is gone"
    finally:
        service.recorder.close()
        connections.close_all()  # this thread may not run another service for a long time


@shared_task(ignore_result=True)
def run_binding_cycles(requests: list[dict[str, Any]]) -> str:
    """Bind and PostBind for a batch of pods; each outcome goes back to the service as a
    command."""
    try:
        outcomes = run_bindings([BindingRequest.from_json(request) for request in requests])
        bound = sum(1 for outcome in outcomes if outcome.payload["status"] is None)
        return f"bound {bound} of {len(outcomes)}"
    finally:
        close_old_connections()


def _send_to_binding_tasks(batch: list[BindingRequest]) -> None:
    run_binding_cycles.delay([request.to_json() for request in batch])


def ensure_scheduler_running(workspace: Workspace | int) -> bool:
    """Starts the workspace's scheduler service unless one holds a live lease.

    True when a start was requested. The lease is reserved for the task enqueued, so calls in
    quick succession (every view calls this) start one service, not several.
    """
    workspace_id = workspace if isinstance(workspace, int) else workspace.pk
    task_id = uuid.uuid4().hex
    seconds = float(settings.SCHEDULER_LEASE_SECONDS)
    if not lease.reserve_start(workspace_id, task_id, timezone.now(), seconds):
        return False
    run_scheduler_service.apply_async(args=[workspace_id], task_id=task_id)
    return True


def ensure_all_schedulers_running() -> int:
    """Starts the services that are missing; returns how many were requested."""
    return sum(
        ensure_scheduler_running(pk) for pk in Workspace.objects.values_list("pk", flat=True)
    )


watchdog.keep_running(ensure_all_schedulers_running)


# ----------------------------------------------------------------------------------------------
# Services running in this process


def stop_services(release: bool = True, timeout: float | None = 10.0) -> int:
    """Stops every service this process runs and waits for them; returns how many there were.

    ``release=False`` leaves their leases to lapse, as a killed worker would: the successor
    has to wait for the expiry.
    """
    return SERVICES.stop_all(release, timeout)


def running_services() -> list[SchedulerService]:
    return SERVICES.tasks()


@worker_shutting_down.connect
def _stop_runs_on_shutdown(**_: Any) -> None:
    """A worker told to stop hands its leases over at once instead of letting them lapse: its
    services' and its mirrors' (``playground.clusters.tasks``), all at the same time. Its
    watchdog stops first: it would see the leases just released and reserve them again for
    successors (``starting:<task>``), left held behind the exiting worker."""
    watchdog.stop_watchdog()
    runs.stop_every_run(release=True, timeout=None)


@worker_ready.connect
def _watch_workspaces(sender: Any, **_: Any) -> None:
    """A worker of the scheduler queue (production) runs the watchdog that starts services."""
    if SCHEDULER_QUEUE in {queue.name for queue in sender.task_consumer.queues}:
        watchdog.start_watchdog()
