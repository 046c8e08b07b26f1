"""The Metrics tab is drawn from the same numbers as /metrics: a real scheduler service
schedules known pods, samples, and the page says what /metrics says for the workspace."""

from __future__ import annotations

import math
import re

import pytest
from django.urls import reverse

from playground.front.metrics_tab import duration_text, run_times
from playground.metrics.history import SAMPLE_INTERVAL
from playground.metrics.models import MetricsSample
from playground.metrics.window import histogram_quantile
from tests.playground.front.test_metrics_page import cell
from tests.playground.metrics.scrape import value
from tests.playground.scheduling.manifests import node_manifest, pod_manifest
from tests.playground.scheduling.test_metrics_export import TOKEN, scrape
from tests.playground.scheduling.test_service import settle

pytestmark = pytest.mark.django_db

PROFILE = "default-scheduler"
DURATION = "scheduler_scheduling_attempt_duration_seconds"


def test_the_page_shows_what_metrics_says_for_the_workspace(
    client, settings, user, make_service, workspace, cluster, binding_tasks
):
    settings.METRICS_TOKEN = TOKEN
    ws = str(workspace.pk)
    cluster.add(node_manifest("n1", cpu="1"))
    for name in ("a", "b", "c"):
        cluster.add(pod_manifest(name, cpu="300m"))
    cluster.add(pod_manifest("big", cpu="2"))
    cluster.add(pod_manifest("bigger", cpu="3"))
    before = scrape(client)
    service = make_service()
    assert service.start()  # the first sample
    settle(service, binding_tasks)
    service.metrics.publish_gauges(force=True)
    after = scrape(client)
    service.history.sample()

    client.force_login(user)
    html = client.get(reverse("workspace-metrics", args=[workspace.slug])).content.decode()

    def delta(name: str, **labels: str) -> float:
        return value(after, name, workspace=ws, **labels) - value(
            before, name, workspace=ws, **labels
        )

    attempts = "scheduler_schedule_attempts_total"
    for result, want in (("scheduled", 3), ("unschedulable", 2)):
        assert delta(attempts, result=result, profile=PROFILE) == want
        assert cell(html, "data-result", result, "count") == str(want)
    bounds = {dict(labels)["le"] for name, labels in after if name == f"{DURATION}_bucket"}
    results = ("scheduled", "unschedulable", "error")
    buckets = [
        (
            float(le),
            sum(delta(f"{DURATION}_bucket", result=r, profile=PROFILE, le=le) for r in results),
        )
        for le in sorted(bounds, key=float)
    ]
    assert math.isinf(buckets[-1][0]) and buckets[-1][1] == 5
    for q, shown in ((0.5, "metrics-p50"), (0.99, "metrics-p99")):
        want = duration_text(histogram_quantile(q, buckets))
        assert re.search(rf'id="{shown}">([^<]*)<', html).group(1) == want
    pending = value(after, "scheduler_pending_pods", queue="unschedulable", workspace=ws)
    assert pending == 2
    assert f'data-queue="unschedulable">unschedulable {pending:.0f}</span>' in html
    fit = value(
        after,
        "scheduler_unschedulable_pods",
        plugin="NodeResourcesFit",
        profile=PROFILE,
        workspace=ws,
    )
    assert fit == 2
    assert cell(html, "data-plugin", "NodeResourcesFit", "now") == "2"
    service.stop()


def test_the_service_samples_when_it_starts_every_interval_and_when_it_stops(
    make_service, workspace, cluster, binding_tasks
):
    cluster.add(node_manifest("n1", cpu="1"))
    service = make_service()
    wall = [1_800_000_000.0]
    service.history.wall = lambda: wall[0]
    assert service.start()
    for step in (1, 5, SAMPLE_INTERVAL, SAMPLE_INTERVAL + 1, 2 * SAMPLE_INTERVAL):
        wall[0] = 1_800_000_000.0 + step
        assert service.tick()
    wall[0] += 1
    cluster.add(pod_manifest("late", cpu="5"))
    settle(service, binding_tasks)
    service.metrics.publish_gauges(force=True)
    service.stop()
    taken = list(MetricsSample.objects.filter(workspace=workspace))
    # The idle samples are one run; the last sample changed, so it starts a row of its own.
    runs = [(row.taken_at.timestamp(), row.until.timestamp()) for row in taken]
    offsets = [
        at - 1_800_000_000.0
        for taken_at, until in runs
        for at in run_times(taken_at, until, since=1_800_000_000.0)
    ]
    assert offsets == [0, SAMPLE_INTERVAL, 2 * SAMPLE_INTERVAL, 2 * SAMPLE_INTERVAL + 1]
    assert [until - taken_at for taken_at, until in runs] == [2 * SAMPLE_INTERVAL, 0]
    # The last sample is taken after the service zeroed its gauges, as /metrics shows them.
    assert taken[-1].values["pending"] == []
    assert any(row[0] == "unschedulable" for row in taken[-1].values["attempts"])


def test_a_failing_last_sample_does_not_keep_the_lease(make_service, workspace):
    service = make_service()
    assert service.start()

    def broken(now=None):
        raise RuntimeError("the database went away")

    service.history.sample = broken
    service.stop()
    assert make_service("worker-b").start(), "the lease was released for a successor"
