"""Samples of a workspace's /metrics series: what one holds, when they are taken and pruned."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from playground.metrics import history
from playground.metrics.history import Sampler, sample_values, take_sample
from playground.metrics.models import MetricsSample
from playground.metrics.workspace_metrics import WorkspaceMetrics
from playground.workspaces.models import Workspace

pytestmark = pytest.mark.django_db

START = 1_800_000_000.0


def test_a_sample_holds_the_workspace_s_series_and_no_other_s():
    mine, other = WorkspaceMetrics(424242), WorkspaceMetrics(434343)
    before = sample_values(424242)
    mine.inc("scheduler_schedule_attempts_total", result="scheduled", profile="p")
    mine.observe(
        "scheduler_scheduling_attempt_duration_seconds", 0.003, result="scheduled", profile="p"
    )
    mine.set("scheduler_unschedulable_pods", 2, plugin="NodeResourcesFit", profile="p")
    other.inc("scheduler_schedule_attempts_total", 5, result="error", profile="p")
    values = sample_values(424242)

    assert _attempts(values) - _attempts(before) == {("scheduled", "p", 1.0)} - _attempts(before)
    assert all(row[0] != "error" for row in values["attempts"])
    (duration,) = [row for row in values["durations"] if row[:2] == ["scheduled", "p"]]
    bounds = [*values["le"], float("inf")]
    # 0.003 s lands in the 4 ms bucket and every one above it (cumulative counts).
    assert [bound for bound, count in zip(bounds, duration[2], strict=True) if count] == [
        bound for bound in bounds if bound >= 0.004
    ]
    assert ["NodeResourcesFit", "p", 2.0] in values["unschedulable"]


def _attempts(values):
    return {tuple(row) for row in values["attempts"]}


def test_series_at_zero_are_left_out():
    metrics = WorkspaceMetrics(454545)
    metrics.set("scheduler_pending_pods", 3, queue="active")
    metrics.set("scheduler_pending_pods", 0, queue="active")
    assert sample_values(454545)["pending"] == []


def test_the_sampler_waits_the_interval_of_wall_time(workspace):
    wall = [START]
    sampler = Sampler(workspace.pk, wall=lambda: wall[0])
    for now in (START, START + 5, START + 9.9, START + 10, START + 15, START + 20):
        wall[0] = now
        sampler.tick()
    taken = MetricsSample.objects.filter(workspace=workspace).values_list("taken_at", flat=True)
    assert [at.timestamp() for at in taken] == [START, START + 10, START + 20]


def test_samples_older_than_a_day_are_pruned_every_few_minutes(workspace):
    def old_sample() -> MetricsSample:
        at = datetime.fromtimestamp(START, tz=UTC) - history.RETENTION - timedelta(seconds=1)
        return MetricsSample.objects.create(workspace=workspace, taken_at=at, values={})

    first = old_sample()
    wall = [START]
    sampler = Sampler(workspace.pk, wall=lambda: wall[0])
    sampler.tick()
    assert not MetricsSample.objects.filter(pk=first.pk).exists()
    second = old_sample()
    wall[0] = START + history.PRUNE_INTERVAL - 1
    sampler.tick()
    assert MetricsSample.objects.filter(pk=second.pk).exists()  # not pruned again yet
    wall[0] = START + history.PRUNE_INTERVAL + 9  # the next sample, 10 s after that one
    sampler.tick()
    assert not MetricsSample.objects.filter(pk=second.pk).exists()
    assert MetricsSample.objects.filter(workspace=workspace).count() == 3


def test_a_day_old_sample_is_kept(workspace):
    at = datetime.fromtimestamp(START, tz=UTC) - history.RETENTION + timedelta(seconds=1)
    MetricsSample.objects.create(workspace=workspace, taken_at=at, values={})
    assert history.prune(START) == 0


def test_deleting_the_workspace_deletes_its_samples(workspace):
    take_sample(workspace.pk, START)
    workspace.delete()
    assert not MetricsSample.objects.exists()


def test_a_workspace_that_is_gone_is_not_sampled(workspace):
    gone = workspace.pk
    Workspace.objects.filter(pk=gone).delete()
    assert take_sample(gone, START) is None
    assert not MetricsSample.objects.exists()
