"""The Metrics tab: numbers over the chosen window from stored samples, choices, access."""

from __future__ import annotations

import re
import time
from datetime import UTC, datetime

import pytest
from django.urls import reverse

from playground.metrics.history import BOUNDS
from playground.metrics.models import MetricsSample

pytestmark = pytest.mark.django_db

PROFILE = "default-scheduler"


def store(workspace, seconds_ago, attempts=(), durations=(), pending=(), unschedulable=()):
    """A sample taken ``seconds_ago``; ``durations``: (result, profile, {bucket index: count})
    with counts per bucket (made cumulative here)."""
    rows = []
    for result, profile, per_bucket in durations:
        counts, total = [], 0
        for index in range(len(BOUNDS) + 1):
            total += per_bucket.get(index, 0)
            counts.append(total)
        rows.append([result, profile, counts, 0.0])
    values = {
        "le": BOUNDS,
        "attempts": [list(row) for row in attempts],
        "durations": rows,
        "pending": [list(row) for row in pending],
        "unschedulable": [list(row) for row in unschedulable],
    }
    taken_at = datetime.fromtimestamp(time.time() - seconds_ago, tz=UTC)
    return MetricsSample.objects.create(
        workspace=workspace, taken_at=taken_at, until=taken_at, values=values
    )


def page(client, workspace, **query):
    url = reverse("workspace-metrics", args=[workspace.slug])
    response = client.get(url, query)
    assert response.status_code == 200
    return response.content.decode()


def cell(html, row_attribute, value, column):
    match = re.search(
        rf'<tr {row_attribute}="{re.escape(value)}">.*?<td class="{column}">([^<]*)</td>', html
    )
    assert match, (row_attribute, value, column)
    return match.group(1)


def test_attempts_are_counted_over_the_window_with_their_rate(logged_in, workspace):
    store(workspace, 600, attempts=[("scheduled", PROFILE, 10)])
    store(workspace, 300, attempts=[("scheduled", PROFILE, 40), ("unschedulable", PROFILE, 3)])
    store(workspace, 0, attempts=[("scheduled", PROFILE, 70), ("unschedulable", PROFILE, 6)])
    html = page(logged_in, workspace)
    assert cell(html, "data-result", "scheduled", "count") == "60"
    assert float(cell(html, "data-result", "scheduled", "rate")) == pytest.approx(60 / 600, 0.01)
    assert cell(html, "data-result", "unschedulable", "count") == "6"


def test_a_counter_that_restarted_counts_from_zero_again(logged_in, workspace):
    store(workspace, 600, attempts=[("scheduled", PROFILE, 50)])
    store(workspace, 300, attempts=[("scheduled", PROFILE, 10)])  # a new scheduler process
    store(workspace, 0, attempts=[("scheduled", PROFILE, 30)])
    assert cell(page(logged_in, workspace), "data-result", "scheduled", "count") == "30"


def test_samples_before_the_window_are_not_counted(logged_in, workspace):
    store(workspace, 1000, attempts=[("scheduled", PROFILE, 5)])
    store(workspace, 800, attempts=[("scheduled", PROFILE, 15)])
    store(workspace, 0, attempts=[("scheduled", PROFILE, 17)])
    assert cell(page(logged_in, workspace), "data-result", "scheduled", "count") == "2"
    html = page(logged_in, workspace, window="1h")
    assert cell(html, "data-result", "scheduled", "count") == "12"


def test_p50_and_p99_come_from_the_window_s_bucket_increases(logged_in, workspace):
    # Before the window's growth: 100 attempts in the 8-16 ms bucket, which stay as they were.
    store(workspace, 600, durations=[("scheduled", PROFILE, {4: 100})])
    # Then 10 more attempts between 1 and 2 ms: the window's p50 is in there.
    store(workspace, 0, durations=[("scheduled", PROFILE, {1: 10, 4: 100})])
    html = page(logged_in, workspace)
    p50 = re.search(r'id="metrics-p50">([^<]*)<', html).group(1)
    p99 = re.search(r'id="metrics-p99">([^<]*)<', html).group(1)
    assert p50 == "1.5 ms"  # 0.001 + 0.001 * (5 / 10)
    assert p99 == "1.99 ms"  # 0.001 + 0.001 * (9.9 / 10)


def test_pending_pods_now_are_the_latest_sample_s(logged_in, workspace):
    store(workspace, 60, pending=[("active", 9)])
    store(workspace, 0, pending=[("active", 2), ("unschedulable", 4)])
    html = page(logged_in, workspace)
    assert '<span class="pending" data-queue="active">active 2</span>' in html
    assert '<span class="pending" data-queue="unschedulable">unschedulable 4</span>' in html


def test_plugins_are_ranked_by_their_average_over_the_window(logged_in, workspace):
    store(workspace, 600, unschedulable=[("NodeResourcesFit", PROFILE, 6)])
    store(
        workspace,
        300,
        unschedulable=[("NodeResourcesFit", PROFILE, 0), ("TaintToleration", PROFILE, 2)],
    )
    store(workspace, 0, unschedulable=[("TaintToleration", PROFILE, 2)])
    html = page(logged_in, workspace)
    # NodeResourcesFit: 6 pods for 300 s of 600 -> 3; TaintToleration: 2 for 300 s -> 1.
    assert cell(html, "data-plugin", "NodeResourcesFit", "average") == "3.00"
    assert cell(html, "data-plugin", "NodeResourcesFit", "peak") == "6"
    assert cell(html, "data-plugin", "NodeResourcesFit", "now") == "0"
    assert cell(html, "data-plugin", "TaintToleration", "average") == "1.00"
    assert html.index('data-plugin="NodeResourcesFit"') < html.index(
        'data-plugin="TaintToleration"'
    )


def test_a_profile_can_be_chosen(logged_in, workspace):
    store(workspace, 300, attempts=[("scheduled", "a", 1), ("scheduled", "b", 1)])
    store(workspace, 0, attempts=[("scheduled", "a", 4), ("scheduled", "b", 11)])
    assert cell(page(logged_in, workspace), "data-result", "scheduled", "count") == "13"
    html = page(logged_in, workspace, profile="b")
    assert cell(html, "data-result", "scheduled", "count") == "10"
    assert "profile=&quot;b&quot;" in html  # in the PromQL beside the numbers


def test_unknown_values_are_named_and_the_defaults_used(logged_in, workspace):
    store(workspace, 300, attempts=[("scheduled", PROFILE, 1)])
    store(workspace, 0, attempts=[("scheduled", PROFILE, 2)])
    html = page(logged_in, workspace, window="abc", profile="nope")
    assert "window: unknown value &quot;abc&quot;: choose one of 5m, 15m, 1h, 6h, 24h" in html
    assert "profile: no samples of profile &quot;nope&quot; in this window" in html
    assert "Over the last 15 min" in html
    assert cell(html, "data-result", "scheduled", "count") == "1"


def test_without_samples_the_page_says_why(logged_in, workspace):
    html = page(logged_in, workspace)
    assert "No samples yet in the last 15 min: the scheduler samples every 10 s" in html


def test_a_history_shorter_than_the_window_says_how_much_it_covers(logged_in, workspace):
    store(workspace, 90, attempts=[("scheduled", PROFILE, 1)])
    store(workspace, 0, attempts=[("scheduled", PROFILE, 2)])
    assert "the history covers only 90 s of the 15 min window" in page(logged_in, workspace)
    store(workspace, 600, attempts=[("scheduled", PROFILE, 0)])
    assert "the history covers only 10 min of the 15 min window" in page(logged_in, workspace)
    store(workspace, 890, attempts=[("scheduled", PROFILE, 0)])  # within a step of the start
    assert "the history covers only" not in page(logged_in, workspace)


def test_another_workspace_s_samples_are_not_shown(logged_in, workspace, user):
    from playground.workspaces.models import Workspace

    other = Workspace.objects.create(name="Other", slug="other", owner=user)
    store(other, 300, attempts=[("scheduled", PROFILE, 1)])
    store(other, 0, attempts=[("scheduled", PROFILE, 50)])
    assert "No samples yet" in page(logged_in, workspace)


def test_the_charts_and_their_promql_are_drawn(logged_in, workspace):
    for ago, count in ((600, 0), (300, 30), (0, 90)):
        store(workspace, ago, attempts=[("scheduled", PROFILE, count)], pending=[("active", 1)])
    html = page(logged_in, workspace)
    for chart in ("attempts", "latency", "pending"):
        assert f'id="chart-{chart}"' in html
    assert re.search(r'<polyline class="scheduled" [^>]*points="[\d., ]+"', html)
    assert re.search(r'<polyline class="active" [^>]*points="[\d., ]+"', html)
    want = (
        f"sum by (result) (rate(scheduler_schedule_attempts_total"
        f"{{workspace=&quot;{workspace.pk}&quot;}}[30s]))"
    )
    assert want in html


def test_htmx_gets_the_body_that_polls_itself_with_the_choice(htmx, workspace):
    html = page(htmx, workspace, window="1h")
    assert "<h1>" not in html
    assert 'hx-trigger="every 10s"' in html
    assert f"/w/{workspace.slug}/metrics/?window=1h&amp;profile=" in html
    # A day's samples take a while to add up: the long windows refresh less often.
    assert 'hx-trigger="every 60s"' in page(htmx, workspace, window="24h")


def test_staff_get_a_link_to_metrics(logged_in, workspace, user):
    assert 'href="/metrics"' not in page(logged_in, workspace)
    user.is_staff = True
    user.save()
    assert 'href="/metrics"' in page(logged_in, workspace)


def test_anonymous_visitors_are_sent_to_log_in(client, workspace):
    response = client.get(reverse("workspace-metrics", args=[workspace.slug]))
    assert response.status_code == 302 and response["Location"].startswith("/login/")


def test_people_outside_the_workspace_get_a_404(client, stranger, workspace):
    client.force_login(stranger)
    assert client.get(reverse("workspace-metrics", args=[workspace.slug])).status_code == 404
