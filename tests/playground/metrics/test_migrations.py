"""Samples stored before runs existed, migrated into runs (``at``: tests/playground/conftest.py)."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from playground.front.metrics_tab import metrics_tab

BEFORE_RUNS = [("metrics", "0001_initial")]
RUNS = [("metrics", "0002_runs")]
T0 = datetime(2026, 11, 29, 3, 0, tzinfo=UTC)


def test_samples_stored_one_a_row_become_runs_of_one_that_the_tab_reads_as_before(at):
    apps = at(BEFORE_RUNS)
    user = apps.get_model("auth", "User").objects.create(username="ada")
    lab = apps.get_model("workspaces", "Workspace").objects.create(
        name="Lab", slug="lab", owner=user
    )
    samples = apps.get_model("metrics", "MetricsSample").objects
    for index, attempts in enumerate([0, 3, 7]):
        values = {"attempts": [["scheduled", "default-scheduler", attempts]]} if attempts else {}
        samples.create(workspace=lab, taken_at=T0 + timedelta(seconds=10 * index), values=values)

    apps = at(RUNS)

    runs = apps.get_model("metrics", "MetricsSample").objects.order_by("taken_at")
    assert [(run.taken_at, run.until) for run in runs] == [
        (T0 + timedelta(seconds=10 * index),) * 2 for index in range(3)
    ]
    tab = metrics_tab(lab.pk, {"window": "5m"}, (T0 + timedelta(seconds=20)).timestamp())
    assert tab.samples == 3
    assert {total.result: total.count for total in tab.attempts}["scheduled"] == 7
