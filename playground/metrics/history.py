"""The history the Metrics tab draws from: a workspace's series, sampled as the scheduler runs.

A sample reads the same registry ``/metrics`` serves (every process's values in multiprocess
mode) and keeps the workspace's series of four families, in a compact form:

    {"le": [finite bucket bounds],
     "attempts": [[result, profile, count], ...],
     "durations": [[result, profile, [cumulative count per bound, +Inf last], sum], ...],
     "pending": [[queue, pods], ...],
     "unschedulable": [[plugin, profile, pods], ...]}

Series at 0 are left out (absent reads as 0). The scheduler service samples when it starts,
every ``SAMPLE_INTERVAL`` seconds of wall time while it runs, and when it stops. Samples are
stored as runs: a sample equal to the one the service stored last only moves that row's
``until``, so an idle scheduler keeps one row rather than 8,640 a day. A service's first sample
always starts a new row, so the time it was stopped stays a gap rather than a flat run. Runs
that ended more than ``RETENTION`` ago are pruned, at most once every ``PRUNE_INTERVAL``.
"""

from __future__ import annotations

import logging
import math
import time
from collections.abc import Callable, Iterator
from datetime import UTC, datetime, timedelta
from typing import Any

from django.db import IntegrityError, transaction
from prometheus_client.samples import Sample

from framework.metrics import DEFINITIONS
from playground.metrics.models import MetricsSample
from playground.metrics.registry import exported_families
from playground.workspaces.models import Workspace

logger = logging.getLogger(__name__)

SAMPLE_INTERVAL = 10.0
"""Seconds of wall time between two samples of a running scheduler."""
RETENTION = timedelta(hours=24)
PRUNE_INTERVAL = 300.0
"""Seconds between two prunings by one scheduler service."""

ATTEMPTS = "scheduler_schedule_attempts_total"
DURATION = "scheduler_scheduling_attempt_duration_seconds"
PENDING = "scheduler_pending_pods"
UNSCHEDULABLE = "scheduler_unschedulable_pods"
BOUNDS = list(DEFINITIONS[DURATION].buckets)
"""The finite bucket bounds of the attempt duration histogram (upstream's)."""
SAMPLE_NAMES = (ATTEMPTS, f"{DURATION}_bucket", f"{DURATION}_sum", PENDING, UNSCHEDULABLE)


def sample_values(workspace_id: int) -> dict[str, Any]:
    """The workspace's series of the four families, in the stored form (module docstring)."""
    attempts: dict[tuple[str, str], float] = {}
    buckets: dict[tuple[str, str], dict[float, float]] = {}
    sums: dict[tuple[str, str], float] = {}
    pending: dict[str, float] = {}
    unschedulable: dict[tuple[str, str], float] = {}
    for sample in _samples(workspace_id):
        labels = sample.labels
        if sample.name == ATTEMPTS:
            attempts[labels["result"], labels["profile"]] = sample.value
        elif sample.name == f"{DURATION}_bucket":
            key = (labels["result"], labels["profile"])
            buckets.setdefault(key, {})[float(labels["le"])] = sample.value
        elif sample.name == f"{DURATION}_sum":
            sums[labels["result"], labels["profile"]] = sample.value
        elif sample.name == PENDING:
            pending[labels["queue"]] = sample.value
        elif sample.name == UNSCHEDULABLE:
            unschedulable[labels["plugin"], labels["profile"]] = sample.value
    return {
        "le": BOUNDS,
        "attempts": [[*key, value] for key, value in sorted(attempts.items()) if value],
        "durations": [
            [*key, [counts.get(bound, 0.0) for bound in [*BOUNDS, math.inf]], sums.get(key, 0.0)]
            for key, counts in sorted(buckets.items())
            if counts.get(math.inf)
        ],
        "pending": [[queue, value] for queue, value in sorted(pending.items()) if value],
        "unschedulable": [[*key, value] for key, value in sorted(unschedulable.items()) if value],
    }


def _samples(workspace_id: int) -> Iterator[Sample]:
    for family in exported_families(SAMPLE_NAMES, str(workspace_id)):
        yield from family.samples


def take_sample(
    workspace_id: int, now: float | None = None, last: MetricsSample | None = None
) -> MetricsSample | None:
    """Stores the workspace's series now, as the row holding them; None when the workspace is
    gone. ``last`` is the row this service stored last: when the series still equal its values,
    it is extended to now rather than a new row inserted."""
    at = datetime.fromtimestamp(time.time() if now is None else now, tz=UTC)
    values = sample_values(workspace_id)
    if last is not None and last.values == values and _extend(last, at):
        return last
    return _insert(workspace_id, at, values)


def _extend(row: MetricsSample, until: datetime) -> bool:
    """Moves the run's end to ``until``; False when the row is gone (with its workspace)."""
    if not MetricsSample.objects.filter(pk=row.pk).update(until=until):
        return False
    row.until = until
    return True


def _insert(workspace_id: int, at: datetime, values: dict[str, Any]) -> MetricsSample | None:
    try:
        # The service stops after its workspace was deleted, too; a deletion racing this
        # insert breaks the foreign key when it commits.
        with transaction.atomic():
            if not Workspace.objects.filter(pk=workspace_id).exists():
                return None
            return MetricsSample.objects.create(
                workspace_id=workspace_id, taken_at=at, until=at, values=values
            )
    except IntegrityError:
        logger.info("workspace %s is gone: its metrics are not sampled", workspace_id)
        return None


def prune(now: float | None = None) -> int:
    """Deletes every workspace's runs that ended more than RETENTION ago; returns how many."""
    cutoff = datetime.fromtimestamp(time.time() if now is None else now, tz=UTC) - RETENTION
    deleted, _ = MetricsSample.objects.filter(until__lt=cutoff).delete()
    return deleted


class Sampler:
    """Samples one workspace every SAMPLE_INTERVAL of wall time (``wall``: ``time.time`` by
    default; the scheduler's own clock may be fake) and prunes now and then.

    One Sampler lives as long as one run of the scheduler service: the row it stored last is
    the only one it extends, so a new service starts a new row."""

    def __init__(self, workspace_id: int, wall: Callable[[], float] = time.time) -> None:
        self.workspace_id = workspace_id
        self.wall = wall
        self._sampled = -math.inf
        self._pruned = -math.inf
        self._last: MetricsSample | None = None

    def tick(self) -> None:
        """Samples when SAMPLE_INTERVAL has passed since the last sample."""
        now = self.wall()
        if now - self._sampled < SAMPLE_INTERVAL:
            return
        self.sample(now)

    def sample(self, now: float | None = None) -> None:
        """Samples now (the service also does when it stops), pruning if it is time to."""
        now = self.wall() if now is None else now
        self._sampled = now
        self._last = take_sample(self.workspace_id, now, self._last)
        if now - self._pruned >= PRUNE_INTERVAL:
            self._pruned = now
            prune(now)
