"""Samples of a workspace's /metrics series: what one holds, when they are taken and pruned."""

from __future__ import annotations

from datetime import UTC, datetime

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
    metrics = WorkspaceMetrics(workspace.pk)
    for now in (START, START + 5, START + 9.9, START + 10, START + 15, START + 20):
        wall[0] = now
        metrics.inc("scheduler_schedule_attempts_total", result="scheduled", profile="p")
        sampler.tick()
    assert _runs(workspace) == [(START, START), (START + 10, START + 10), (START + 20, START + 20)]


def _runs(workspace) -> list[tuple[float, float]]:
    """(taken_at, until) of the workspace's rows, oldest first."""
    rows = MetricsSample.objects.filter(workspace=workspace).values_list("taken_at", "until")
    return [(taken_at.timestamp(), until.timestamp()) for taken_at, until in rows]


def test_an_idle_scheduler_s_samples_make_one_row_whose_until_moves(workspace):
    wall = [START]
    sampler = Sampler(workspace.pk, wall=lambda: wall[0])
    for index in range(30):
        wall[0] = START + index * history.SAMPLE_INTERVAL
        sampler.tick()
        assert _runs(workspace) == [(START, wall[0])]
    (row,) = MetricsSample.objects.filter(workspace=workspace)
    assert row.values == sample_values(workspace.pk)


def test_a_changed_sample_starts_a_new_row_and_its_run_goes_on_from_there(workspace):
    wall = [START]
    sampler = Sampler(workspace.pk, wall=lambda: wall[0])
    metrics = WorkspaceMetrics(workspace.pk)
    for offset, pending in ((0, 1), (10, 1), (20, 4), (30, 4), (40, 4), (50, 1)):
        wall[0] = START + offset
        metrics.set("scheduler_pending_pods", pending, queue="active")
        sampler.tick()
    assert _runs(workspace) == [(START, START + 10), (START + 20, START + 40), (START + 50,) * 2]
    pending = [row.values["pending"] for row in MetricsSample.objects.filter(workspace=workspace)]
    assert pending == [[["active", 1.0]], [["active", 4.0]], [["active", 1.0]]]


def test_a_restarted_service_starts_a_new_row_even_for_the_same_values(workspace):
    Sampler(workspace.pk).sample(START)
    Sampler(workspace.pk).sample(START + 600)  # after ten minutes stopped: a gap, not a run
    assert _runs(workspace) == [(START, START), (START + 600, START + 600)]
    values = MetricsSample.objects.filter(workspace=workspace).values_list("values", flat=True)
    assert values[0] == values[1]


def test_the_stop_sample_extends_the_run_when_nothing_changed(workspace):
    wall = [START]
    sampler = Sampler(workspace.pk, wall=lambda: wall[0])
    sampler.tick()
    sampler.sample(START + 3)
    assert _runs(workspace) == [(START, START + 3)]


def test_a_run_whose_workspace_was_deleted_is_not_extended_nor_restarted(workspace):
    sampler = Sampler(workspace.pk)
    sampler.sample(START)
    Workspace.objects.filter(pk=workspace.pk).delete()
    sampler.sample(START + 10)
    assert not MetricsSample.objects.exists()


def _old_run(workspace, until: float) -> MetricsSample:
    """A run that began two days before START and ended at ``until``."""
    taken_at = datetime.fromtimestamp(START, tz=UTC) - 2 * history.RETENTION
    at = datetime.fromtimestamp(until, tz=UTC)
    return MetricsSample.objects.create(workspace=workspace, taken_at=taken_at, until=at, values={})


def test_runs_that_ended_a_day_ago_are_pruned_every_few_minutes(workspace):
    def old_run() -> MetricsSample:
        return _old_run(workspace, START - history.RETENTION.total_seconds() - 1)

    first = old_run()
    wall = [START]
    sampler = Sampler(workspace.pk, wall=lambda: wall[0])
    sampler.tick()
    assert not MetricsSample.objects.filter(pk=first.pk).exists()
    second = old_run()
    wall[0] = START + history.PRUNE_INTERVAL - 1
    sampler.tick()
    assert MetricsSample.objects.filter(pk=second.pk).exists()  # not pruned again yet
    wall[0] = START + history.PRUNE_INTERVAL + 9  # the next sample, 10 s after that one
    sampler.tick()
    assert not MetricsSample.objects.filter(pk=second.pk).exists()
    assert _runs(workspace) == [(START, START + history.PRUNE_INTERVAL + 9)]  # idle: one run


def test_a_run_that_began_long_ago_but_ended_within_a_day_is_kept(workspace):
    _old_run(workspace, START - history.RETENTION.total_seconds() + 1)
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
