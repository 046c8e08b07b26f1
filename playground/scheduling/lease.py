"""The SchedulerLease: which worker runs a workspace's scheduler, as kube-scheduler's leader lease.

One holder at a time. The holder renews before the lease expires; once it has expired anyone
may take it over, and every takeover increases ``generation``. Writes that must not come from
a deposed holder (binding a pod) are fenced by the generation they were started under.

A start requested by ``ensure_scheduler_running`` reserves the lease for the task it enqueued
(holder ``starting:<task id>``), so a burst of requests starts one service, not one each.
"""

from __future__ import annotations

from datetime import datetime, timedelta

from django.db import IntegrityError, transaction

from playground.workspaces.models import SchedulerLease, Workspace

STARTING = "starting:"


def acquire(
    workspace_id: int, holder: str, now: datetime, seconds: float, task_id: str = ""
) -> int | None:
    """Takes the lease if it is free, expired, ours, or reserved for ``task_id``.

    Returns the generation now held, or None when someone else holds it (or the workspace is
    gone). The write is a compare-and-set on what was read, so of two workers racing for the
    same lease exactly one wins, on SQLite as on PostgreSQL.
    """
    lease = _lease(workspace_id)
    if lease is None:
        return None
    reserved_for_us = bool(task_id) and lease.holder == STARTING + task_id
    if lease.holder not in ("", holder) and not reserved_for_us and is_held(lease, now):
        return None
    changes = {"holder": holder, "renewed_at": now, "expires_at": now + timedelta(seconds=seconds)}
    generation = lease.generation
    if lease.holder != holder:
        generation += 1
        changes.update(generation=generation, acquired_at=now)
    return generation if _compare_and_set(lease, **changes) else None


def renew(workspace_id: int, holder: str, generation: int, now: datetime, seconds: float) -> bool:
    """Extends the lease; False once another holder took it over (or the workspace is gone)."""
    renewed = SchedulerLease.objects.filter(
        workspace_id=workspace_id, holder=holder, generation=generation
    ).update(renewed_at=now, expires_at=now + timedelta(seconds=seconds))
    return renewed == 1


def release(workspace_id: int, holder: str, generation: int, now: datetime) -> bool:
    """Gives the lease up at once, so a successor need not wait for it to expire."""
    released = SchedulerLease.objects.filter(
        workspace_id=workspace_id, holder=holder, generation=generation
    ).update(holder="", expires_at=now)
    return released == 1


def reserve_start(workspace_id: int, task_id: str, now: datetime, seconds: float) -> bool:
    """Reserves a free or expired lease for a service task about to be enqueued.

    False when a live holder (or another reservation) has it. The generation is unchanged:
    the service takes it over when it starts, or the reservation lapses like any lease.
    """
    lease = _lease(workspace_id)
    if lease is None or is_held(lease, now):
        return False
    return _compare_and_set(
        lease, holder=STARTING + task_id, expires_at=now + timedelta(seconds=seconds)
    )


def holds(workspace_id: int, generation: int) -> bool:
    """Whether ``generation`` is still the current one: the fence of binding tasks.

    Call it inside the transaction that makes the fenced write. It writes the row (changing
    nothing), which locks it until the transaction ends on PostgreSQL and takes the write lock
    on SQLite, so no takeover can slip in between the check and the write.
    """
    fenced = SchedulerLease.objects.filter(workspace_id=workspace_id, generation=generation)
    return fenced.update(generation=generation) == 1


def is_live(workspace_id: int, now: datetime) -> bool:
    lease = SchedulerLease.objects.filter(workspace_id=workspace_id).first()
    return lease is not None and is_held(lease, now)


def is_held(lease: SchedulerLease, now: datetime) -> bool:
    """Whether someone holds ``lease`` at ``now`` (a worker, or a start reserved for one)."""
    return bool(lease.holder) and lease.expires_at is not None and lease.expires_at > now


def _lease(workspace_id: int) -> SchedulerLease | None:
    """The workspace's lease row, created on first use; None if the workspace is gone."""
    lease = SchedulerLease.objects.filter(workspace_id=workspace_id).first()
    if lease is not None:
        return lease
    if not Workspace.objects.filter(pk=workspace_id).exists():
        return None
    try:
        with transaction.atomic():
            return SchedulerLease.objects.create(workspace_id=workspace_id)
    except IntegrityError:  # created by another worker meanwhile
        return SchedulerLease.objects.filter(workspace_id=workspace_id).first()


def _compare_and_set(lease: SchedulerLease, **changes: object) -> bool:
    """Writes ``changes`` only if the row still is as ``lease`` was read."""
    unchanged = SchedulerLease.objects.filter(
        pk=lease.pk,
        holder=lease.holder,
        generation=lease.generation,
        expires_at=lease.expires_at,
    )
    return unchanged.update(**changes) == 1
