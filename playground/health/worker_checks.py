"""A worker's health, read from the database by a process beside it (an exec probe).

A scheduler worker runs its scheduler services and mirrors under leases it renews in the
database; every tick of a service renews its lease once a third of it has passed (a debugger
stop keeps renewing it), so a recent renewal is also a recent tick. The checks, in
kube-scheduler's terms:

- ``database``: the probe reaches the database (the leases are read there);
- ``leaderElection``: every scheduler lease held by this worker was renewed within
  ``max_age`` seconds. Upstream's check fails once its leader has not renewed for the lease
  duration plus 20 seconds: a leader that can neither renew nor step down is stuck, and only a
  restart mends that;
- ``mirror-leases``: the same for the leases of the live clusters' mirrors.

"This worker" is every holder named after this host (``host:pid:task``, see the tasks
modules): in Kubernetes the pod's name, so a probe sees its own container's worker.
"""

from __future__ import annotations

import socket
from collections.abc import Callable
from datetime import datetime, timedelta

from django.conf import settings
from django.db import models
from django.utils import timezone

from playground.clusters.models import MirrorLease
from playground.health.database_check import database
from playground.health.healthz import HealthCheck
from playground.workspaces.models import SchedulerLease

RENEWAL_TOLERANCE = 20.0
"""Seconds past the lease's duration a holder may go without renewing: kube-scheduler's
(``NewLeaderHealthzAdaptor(20 * time.Second)``)."""


def default_max_age() -> float:
    return float(settings.SCHEDULER_LEASE_SECONDS) + RENEWAL_TOLERANCE


def stale_leases(
    model: type[models.Model], owner: str, holder_prefix: str, max_age: float, now: datetime
) -> list[str]:
    """The leases held by ``holder_prefix``… not renewed for more than ``max_age`` seconds."""
    held = model.objects.filter(holder__startswith=holder_prefix)
    oldest = now - timedelta(seconds=max_age)
    stale = held.filter(models.Q(renewed_at__lt=oldest) | models.Q(renewed_at=None))
    return [
        f"{owner} {row[0]} (holder {row[1]})" for row in stale.values_list(f"{owner}_id", "holder")
    ]


def lease_check(
    model: type[models.Model], owner: str, holder_prefix: str, max_age: float
) -> Callable[[], None]:
    def check() -> None:
        stale = stale_leases(model, owner, holder_prefix, max_age, timezone.now())
        if stale:
            raise RuntimeError(f"not renewed for {max_age:g} s: {', '.join(stale)}")

    return check


def worker_checks(
    max_age: float | None = None, holder_prefix: str | None = None
) -> list[HealthCheck]:
    """The checks of the worker named ``holder_prefix`` (default: this host's)."""
    age = default_max_age() if max_age is None else max_age
    prefix = holder_prefix if holder_prefix is not None else f"{socket.gethostname()}:"
    return [
        HealthCheck("database", database),
        HealthCheck("leaderElection", lease_check(SchedulerLease, "workspace", prefix, age)),
        HealthCheck("mirror-leases", lease_check(MirrorLease, "connection", prefix, age)),
    ]
