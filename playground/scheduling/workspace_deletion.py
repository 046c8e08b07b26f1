"""Deleting a workspace: its scheduler service stops first, then everything in it goes.

A running service writes to its workspace all the time (attempts, the queue's status, pod
conditions, events, binding outcomes). Deleting the workspace under it breaks those writes with
errors in the log, and on PostgreSQL the delete itself can fail (a row inserted meanwhile still
references the workspace) or deadlock with a pod update. So the service is asked to stop (a
``stop`` command, executed at its next tick: it writes what it has and releases its lease), and
the workspace is deleted once no service holds the lease, or once a lease left by a worker
that died has lapsed.
"""

from __future__ import annotations

import time

from django.conf import settings
from django.db import transaction
from django.utils import timezone

from playground.scheduling import lease
from playground.workspaces.models import SchedulerCommand, SchedulerLease, Workspace

POLL_SECONDS = 0.05
"""How often the lease is looked at while waiting for the service to stop."""
DELETING = "deleting-the-workspace"
"""What the lease is reserved for while the workspace is deleted: no service task has it."""


def delete_workspace(workspace: Workspace, timeout: float | None = None) -> bool:
    """Stops the workspace's scheduler service, then deletes the workspace with all it holds.

    Waits at most ``timeout`` seconds (default: the lease's duration) for the service; returns
    False if it did not stop in time (the workspace is deleted all the same).
    """
    stopped = stop_scheduler(workspace.pk, timeout)
    with transaction.atomic():
        # Writers that come now wait for these locks, then find no workspace. They are taken
        # in the order a late binding task takes them (lease, then workspace): no deadlock.
        for locked in (
            SchedulerLease.objects.select_for_update().filter(workspace_id=workspace.pk),
            Workspace.objects.select_for_update().filter(pk=workspace.pk),
        ):
            list(locked.values_list("pk", flat=True))
        workspace.delete()
    return stopped


def stop_scheduler(workspace_id: int, timeout: float | None = None) -> bool:
    """Asks the workspace's service to stop, waits until no live service holds its lease, and
    then keeps the lease for the deletion: otherwise the watchdog (or a page) could start a new
    service between the stop and the delete, whose writes would then fail.

    True once the lease is kept (at once when no service ran), False when ``timeout`` seconds
    passed first.
    """
    seconds = float(settings.SCHEDULER_LEASE_SECONDS)
    deadline = time.monotonic() + (seconds if timeout is None else timeout)
    pending = SchedulerCommand.objects.filter(
        workspace_id=workspace_id, kind=SchedulerCommand.STOP, done_at__isnull=True
    )
    while not lease.reserve_start(workspace_id, DELETING, timezone.now(), seconds):
        # Asked again whenever no stop is pending: a service that lost its lease mid-tick may
        # have a successor (the watchdog's) that never saw the first one.
        if not pending.exists():
            SchedulerCommand.objects.create(workspace_id=workspace_id, kind=SchedulerCommand.STOP)
        if time.monotonic() >= deadline:
            return False
        time.sleep(POLL_SECONDS)
    return True
