"""The Metrics tab over samples stored as runs shows what it shows over one row per sample."""

from __future__ import annotations

from dataclasses import replace
from datetime import UTC, datetime

import pytest

from playground.front.metrics_tab import WINDOWS, metrics_tab, run_times
from playground.metrics.history import SAMPLE_INTERVAL, Sampler, sample_values
from playground.metrics.models import MetricsSample
from playground.metrics.workspace_metrics import WorkspaceMetrics
from playground.workspaces.models import Workspace

pytestmark = pytest.mark.django_db

START = 1_800_000_000.0
PROFILE = "p"
RUNS = ((0, 3600), (4200, 6000))
"""Two runs of the service (seconds after START, first and last sample), 10 minutes apart."""
STOPPED_AT = 3 + RUNS[0][1]
"""The first run's stop sample, off the 10-s grid."""
NOW = START + RUNS[-1][1] + 4
"""4 s after the last sample: the 5 min, 15 min and 1 h windows start inside a run."""


def _counted(metrics: WorkspaceMetrics, offset: int) -> None:
    """A scheduler busy for a minute every ~12 minutes, its gauges moving now and then."""
    if offset % 700 < 60:
        metrics.inc("scheduler_schedule_attempts_total", 3, result="scheduled", profile=PROFILE)
        metrics.inc("scheduler_schedule_attempts_total", result="unschedulable", profile=PROFILE)
        for seconds in (0.002, 0.004, 0.3):
            metrics.observe(
                "scheduler_scheduling_attempt_duration_seconds",
                seconds,
                result="scheduled",
                profile=PROFILE,
            )
    metrics.set("scheduler_pending_pods", offset // 1000 % 3, queue="active")
    metrics.set(
        "scheduler_unschedulable_pods",
        offset // 1500 % 2 * 2,
        plugin="NodeResourcesFit",
        profile=PROFILE,
    )


@pytest.fixture
def histories(user) -> tuple[int, int]:
    """(compressed, one row each): a workspace whose services stored their samples as runs,
    and one holding the same samples one row each, as before runs."""
    compressed = Workspace.objects.create(name="Runs", slug="runs", owner=user).pk
    one_each = Workspace.objects.create(name="Rows", slug="rows", owner=user).pk
    metrics = WorkspaceMetrics(compressed)
    for first, last in RUNS:
        wall = [START + first]
        sampler = Sampler(compressed, wall=lambda wall=wall: wall[0])
        offsets = [*range(first, last + 1, int(SAMPLE_INTERVAL))]
        if first == 0:
            offsets.append(STOPPED_AT)
        for offset in offsets:
            _counted(metrics, offset)
            wall[0] = START + offset
            sampler.sample()
            at = datetime.fromtimestamp(START + offset, tz=UTC)
            values = sample_values(compressed)
            MetricsSample.objects.create(
                workspace_id=one_each, taken_at=at, until=at, values=values
            )
    return compressed, one_each


def test_the_tab_over_runs_equals_the_tab_over_one_row_per_sample(histories):
    compressed, one_each = histories
    for window in WINDOWS:
        for profile in ("", PROFILE):
            query = {"window": window.value, "profile": profile}
            over_runs = metrics_tab(compressed, query, NOW)
            over_rows = metrics_tab(one_each, query, NOW)

            assert over_rows.attempts and over_rows.charts["pending"].lines, query
            assert replace(over_runs, workspace_id=0) == replace(over_rows, workspace_id=0), query


def test_runs_take_far_fewer_rows(histories):
    compressed, one_each = histories
    runs = MetricsSample.objects.filter(workspace_id=compressed).count()
    rows = MetricsSample.objects.filter(workspace_id=one_each).count()
    assert rows == (3600 + 1800) // SAMPLE_INTERVAL + 3
    assert runs < rows / 4


@pytest.mark.parametrize(
    ("since", "want"),
    [
        (0, [0, 10, 20, 25]),  # every 10 s from the first sample, then the last
        (-100, [0, 10, 20, 25]),
        (10, [10, 20, 25]),  # the window starts on the run's grid
        (11, [20, 25]),  # ... or between two of its samples
        (21, [25]),
        (25, [25]),
    ],
)
def test_a_run_stands_for_a_sample_every_interval_from_the_window_s_start(since, want):
    assert run_times(0, 25, since) == want


def test_a_run_of_one_sample_is_that_sample():
    assert run_times(40, 40, 0) == [40]
