"""The SchedulerLease: one holder at a time, generations that fence, reserved starts."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from playground.scheduling import lease
from playground.workspaces.models import SchedulerLease, Workspace

pytestmark = pytest.mark.django_db

NOW = datetime(2026, 1, 1, tzinfo=UTC)
SECONDS = 15


def later(seconds: float) -> datetime:
    return NOW + timedelta(seconds=seconds)


def test_a_free_lease_is_taken_with_a_new_generation(workspace):
    assert lease.acquire(workspace.pk, "a", NOW, SECONDS) == 1
    row = SchedulerLease.objects.get(workspace=workspace)
    assert (row.holder, row.expires_at) == ("a", later(SECONDS))


def test_its_holder_takes_it_again_in_the_same_generation(workspace):
    lease.acquire(workspace.pk, "a", NOW, SECONDS)
    assert lease.acquire(workspace.pk, "a", later(1), SECONDS) == 1


def test_a_live_lease_is_refused_to_others(workspace):
    lease.acquire(workspace.pk, "a", NOW, SECONDS)
    assert lease.acquire(workspace.pk, "b", later(SECONDS - 1), SECONDS) is None


def test_an_expired_lease_is_taken_over_in_the_next_generation(workspace):
    lease.acquire(workspace.pk, "a", NOW, SECONDS)
    assert lease.acquire(workspace.pk, "b", later(SECONDS), SECONDS) == 2
    assert not lease.renew(workspace.pk, "a", 1, later(SECONDS + 1), SECONDS)


def test_a_renewal_keeps_others_out(workspace):
    lease.acquire(workspace.pk, "a", NOW, SECONDS)
    assert lease.renew(workspace.pk, "a", 1, later(10), SECONDS)
    assert lease.acquire(workspace.pk, "b", later(SECONDS + 1), SECONDS) is None


def test_a_released_lease_is_free_at_once(workspace):
    lease.acquire(workspace.pk, "a", NOW, SECONDS)
    assert lease.release(workspace.pk, "a", 1, later(1))
    assert lease.acquire(workspace.pk, "b", later(1), SECONDS) == 2


def test_only_the_current_generation_passes_the_fence(workspace):
    lease.acquire(workspace.pk, "a", NOW, SECONDS)
    lease.acquire(workspace.pk, "b", later(SECONDS), SECONDS)
    assert lease.holds(workspace.pk, 2)
    assert not lease.holds(workspace.pk, 1)


def test_a_reserved_start_keeps_the_lease_for_the_task_it_enqueued(workspace):
    assert lease.reserve_start(workspace.pk, "t1", NOW, SECONDS)
    assert not lease.reserve_start(workspace.pk, "t2", later(1), SECONDS)
    assert lease.acquire(workspace.pk, "other", later(1), SECONDS) is None
    assert lease.acquire(workspace.pk, "worker:t1", later(2), SECONDS, task_id="t1") == 1


def test_a_start_is_not_reserved_while_a_service_holds_the_lease(workspace):
    lease.acquire(workspace.pk, "a", NOW, SECONDS)
    assert not lease.reserve_start(workspace.pk, "t1", later(1), SECONDS)
    assert lease.reserve_start(workspace.pk, "t1", later(SECONDS + 1), SECONDS)


def test_a_lease_of_a_missing_workspace_cannot_be_taken(workspace):
    Workspace.objects.filter(pk=workspace.pk).delete()
    assert lease.acquire(workspace.pk, "a", NOW, SECONDS) is None
    assert not lease.reserve_start(workspace.pk, "t1", NOW, SECONDS)
