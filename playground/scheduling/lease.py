"""Leases: which worker runs a long-running task, as kube-scheduler's leader lease.

A lease row belongs to one owner (a workspace for its SchedulerLease, a cluster connection for
its MirrorLease). One holder at a time. The holder renews before the lease expires; once it has
expired anyone may take it over, and every takeover increases ``generation``. Writes that must
not come from a deposed holder (binding a pod) are fenced by the generation they were started
under.

A start requested by ``ensure_scheduler_running`` reserves the lease for the task it enqueued
(holder ``starting:<task id>``), so a burst of requests starts one service, not one each.

The module's functions are the scheduler's (``SCHEDULER``); other tables make their own
``Leases``.
"""

from __future__ import annotations

from datetime import datetime, timedelta
from typing import Any

from django.db import IntegrityError, models, transaction

from playground.workspaces.models import SchedulerLease, Workspace

STARTING = "starting:"


class Leases:
    """The leases of one table: ``model`` has holder / generation / acquired_at / renewed_at /
    expires_at and a one-to-one ``owner`` field to ``owner_model``."""

    def __init__(self, model: type[models.Model], owner: str, owner_model: type[models.Model]):
        self.model = model
        self.owner_field = f"{owner}_id"
        self.owner_model = owner_model

    def acquire(
        self, owner_id: int, holder: str, now: datetime, seconds: float, task_id: str = ""
    ) -> int | None:
        """Takes the lease if it is free, expired, ours, or reserved for ``task_id``.

        Returns the generation now held, or None when someone else holds it (or the owner is
        gone). The write is a compare-and-set on what was read, so of two workers racing for
        the same lease exactly one wins, on SQLite as on PostgreSQL.
        """
        lease = self._lease(owner_id)
        if lease is None:
            return None
        reserved_for_us = bool(task_id) and lease.holder == STARTING + task_id
        if lease.holder not in ("", holder) and not reserved_for_us and is_held(lease, now):
            return None
        changes = {
            "holder": holder,
            "renewed_at": now,
            "expires_at": now + timedelta(seconds=seconds),
        }
        generation = lease.generation
        if lease.holder != holder:
            generation += 1
            changes.update(generation=generation, acquired_at=now)
        return generation if self._compare_and_set(lease, **changes) else None

    def renew(
        self, owner_id: int, holder: str, generation: int, now: datetime, seconds: float
    ) -> bool:
        """Extends the lease; False once another holder took it over (or the owner is gone)."""
        renewed = self._rows(owner_id).filter(holder=holder, generation=generation)
        return renewed.update(renewed_at=now, expires_at=now + timedelta(seconds=seconds)) == 1

    def release(self, owner_id: int, holder: str, generation: int, now: datetime) -> bool:
        """Gives the lease up at once, so a successor need not wait for it to expire."""
        released = self._rows(owner_id).filter(holder=holder, generation=generation)
        return released.update(holder="", expires_at=now) == 1

    def reserve_start(self, owner_id: int, task_id: str, now: datetime, seconds: float) -> bool:
        """Reserves a free or expired lease for a task about to be enqueued.

        False when a live holder (or another reservation) has it. The generation is unchanged:
        the task takes it over when it starts, or the reservation lapses like any lease.
        """
        lease = self._lease(owner_id)
        if lease is None or is_held(lease, now):
            return False
        return self._compare_and_set(
            lease, holder=STARTING + task_id, expires_at=now + timedelta(seconds=seconds)
        )

    def holds(self, owner_id: int, generation: int) -> bool:
        """Whether ``generation`` is still the current one: the fence of binding tasks.

        Call it inside the transaction that makes the fenced write. It writes the row
        (changing nothing), which locks it until the transaction ends on PostgreSQL and takes
        the write lock on SQLite, so no takeover can slip in between the check and the write.
        """
        fenced = self._rows(owner_id).filter(generation=generation)
        return fenced.update(generation=generation) == 1

    def is_live(self, owner_id: int, now: datetime) -> bool:
        lease = self._rows(owner_id).first()
        return lease is not None and is_held(lease, now)

    def get(self, owner_id: int) -> Any:
        return self._rows(owner_id).first()

    def _rows(self, owner_id: int) -> models.QuerySet:
        return self.model.objects.filter(**{self.owner_field: owner_id})

    def _lease(self, owner_id: int) -> Any:
        """The owner's lease row, created on first use; None if the owner is gone."""
        lease = self._rows(owner_id).first()
        if lease is not None:
            return lease
        if not self.owner_model.objects.filter(pk=owner_id).exists():
            return None
        try:
            with transaction.atomic():
                return self.model.objects.create(**{self.owner_field: owner_id})
        except IntegrityError:  # created by another worker meanwhile
            return self._rows(owner_id).first()

    def _compare_and_set(self, lease: Any, **changes: object) -> bool:
        """Writes ``changes`` only if the row still is as ``lease`` was read."""
        unchanged = self.model.objects.filter(
            pk=lease.pk,
            holder=lease.holder,
            generation=lease.generation,
            expires_at=lease.expires_at,
        )
        return unchanged.update(**changes) == 1


def is_held(lease: Any, now: datetime) -> bool:
    """Whether someone holds ``lease`` at ``now`` (a worker, or a start reserved for one)."""
    return bool(lease.holder) and lease.expires_at is not None and lease.expires_at > now


SCHEDULER = Leases(SchedulerLease, "workspace", Workspace)
"""Workspaces' SchedulerLeases: who runs each scheduler service."""

acquire = SCHEDULER.acquire
renew = SCHEDULER.renew
release = SCHEDULER.release
reserve_start = SCHEDULER.reserve_start
holds = SCHEDULER.holds
is_live = SCHEDULER.is_live
