"""The Metrics tab, in a real browser: a person schedules pods, opens the tab from the
workspace's navigation, reads the numbers, charts and PromQL, switches the window and sees the
page refresh itself as the scheduler samples (every 10 s)."""

from __future__ import annotations

import re

from playwright.sync_api import expect

from tests.browser.steps import bulk_create, log_in, mark_page, page_is_the_same

SAMPLED_MS = 40_000
"""A sample every 10 s, a refresh every 10 s: the page shows a new sample within ~20 s."""


def test_a_person_reads_the_scheduler_s_metrics_over_a_window(context, demo):
    page = context.new_page()
    log_in(page, demo)
    bulk_create(page, "fits", "10m", 5)
    bulk_create(page, "stuck", "100", 2)

    page.goto("/w/demo/")
    page.get_by_role("navigation").get_by_role("link", name="Metrics", exact=True).click()
    expect(page).to_have_url(re.compile(r"/w/demo/metrics/$"))
    expect(page.get_by_role("heading", name="Metrics", exact=True)).to_be_visible()
    mark_page(page)

    # The numbers: the page refreshes itself until a sample counts the pods' attempts.
    unschedulable = page.locator('#metrics-totals tr[data-result="unschedulable"] .count')
    expect(unschedulable).to_have_text(re.compile(r"^[1-9]\d*$"), timeout=SAMPLED_MS)
    scheduled = page.locator('#metrics-totals tr[data-result="scheduled"] .count')
    expect(scheduled).to_have_text(re.compile(r"^[1-9]\d*$"), timeout=SAMPLED_MS)
    expect(page.locator("#metrics-p50")).to_have_text(re.compile(r"\d.* (ms|s)$"))
    expect(page.locator("#metrics-plugins")).to_contain_text("NodeResourcesFit")
    assert page_is_the_same(page), "the numbers came with the page's own refresh"

    # The charts, each with its PromQL.
    for chart in ("attempts", "latency", "pending"):
        figure = page.locator(f"#chart-{chart}")
        expect(figure.locator("svg.chart")).to_be_visible()
        expect(figure.locator(".promql")).to_contain_text('workspace="')
    expect(page.locator("#chart-attempts polyline.scheduled")).to_have_count(1)

    # A refresh brings the next sample without a reload.
    latest = page.locator("#metrics-coverage time").get_attribute("datetime")
    expect(page.locator("#metrics-coverage time")).not_to_have_attribute(
        "datetime", latest, timeout=SAMPLED_MS
    )
    assert page_is_the_same(page)

    # Another window: in the URL, shown as chosen, and kept by the refresh.
    page.get_by_role("navigation", name="Time window").get_by_role("link", name="1 h").click()
    expect(page).to_have_url(re.compile(r"window=1h"))
    expect(page.locator("#metrics-totals h2")).to_have_text("Over the last 1 h")
    expect(page.locator('nav[aria-label="Time window"] a[aria-current]')).to_have_text("1 h")
    expect(page.locator("#metrics-body")).to_have_attribute("hx-get", re.compile(r"window=1h"))

    page.goto("/w/demo/metrics/?window=abc")
    expect(page.locator(".errors")).to_contain_text('window: unknown value "abc"')
