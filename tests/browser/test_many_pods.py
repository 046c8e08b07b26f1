"""A few hundred pods, in a real browser: find some on the pods page, delete them in bulk, and
read the queue chart of the burst.

A person bulk-creates 200 small pods that fit and 30 that fit nowhere, filters the pods page by
label, state and name (the filter stays in the URL, across pages), deletes every stuck pod
matching the filter and two ticked ones after confirming, and sees them gone from the pods page
and from the queue board open in another tab. The queue chart has a time window and axes with
units.
"""

from __future__ import annotations

import re

from playwright.sync_api import Page, expect

from tests.browser.steps import (
    LIVE_TIMEOUT_MS,
    bulk_create,
    log_in,
    mark_page,
    page_is_the_same,
)

FITS, STUCK = 200, 30


def test_a_person_finds_and_deletes_pods_among_hundreds(context, demo):
    page = context.new_page()
    log_in(page, demo)
    bulk_create(page, "burst", "10m", FITS)
    bulk_create(page, "stuck", "100", STUCK)
    board = context.new_page()
    board.goto("/w/demo/queue/")
    expect(board.locator("#column-unschedulable")).to_contain_text(
        "default/stuck-", timeout=LIVE_TIMEOUT_MS
    )
    mark_page(board)

    filter_by_label_and_state(page)
    filter_by_name_across_pages(page)
    delete_all_matching(page)
    expect(board.locator("#queue-board")).not_to_contain_text(
        "default/stuck-", timeout=LIVE_TIMEOUT_MS
    )
    assert page_is_the_same(board), "the board forgets the deleted pods without a reload"
    delete_ticked(page)
    read_the_queue_chart(board)


def filter_by_label_and_state(page: Page) -> None:
    page.goto("/w/demo/pods/")
    mark_page(page)
    form = page.get_by_role("search", name="Filter pods")
    form.get_by_label("Labels").fill("app=stuck")
    form.get_by_label("State").select_option("unschedulable")
    form.get_by_role("button", name="Filter").click()
    # Stuck pods become unschedulable as the scheduler tries them: the table follows live.
    expect(page.locator("#pods-table")).to_contain_text(
        f"{STUCK} pods match the filter", timeout=LIVE_TIMEOUT_MS
    )
    expect(pod_links(page)).to_have_count(STUCK)
    assert all(name.startswith("default/stuck-") for name in pod_links(page).all_inner_texts())
    expect(page).to_have_url(re.compile(r"state=unschedulable&labels=app%3Dstuck"))
    assert page_is_the_same(page), "filtering swaps the list in"


def filter_by_name_across_pages(page: Page) -> None:
    form = page.get_by_role("search", name="Filter pods")
    form.get_by_label("Labels").fill("")
    form.get_by_label("State").select_option("")
    form.get_by_label("Name", exact=True).fill("burst-1")
    form.get_by_role("button", name="Filter").click()
    # burst-1, burst-10 to 19 and burst-100 to 199: 111 pods, on two pages of 100.
    expect(page.locator("#pods-table")).to_contain_text("111 pods match the filter")
    expect(pod_links(page)).to_have_count(100)
    page.get_by_role("link", name="next →").click()
    expect(page.locator(".pagination")).to_contain_text("page 2 of 2 (111)")
    expect(page).to_have_url(re.compile(r"name=burst-1&page=2"))
    expect(pod_links(page)).to_have_count(11)
    assert all("burst-1" in name for name in pod_links(page).all_inner_texts())


def delete_all_matching(page: Page) -> None:
    page.goto("/w/demo/pods/?labels=app%3Dstuck")
    expect(pod_links(page)).to_have_count(STUCK)
    page.get_by_role("button", name="Delete all matching the filter…").click()
    expect(page.get_by_role("heading", name=f"Delete {STUCK} pods?")).to_be_visible()
    page.get_by_role("button", name=f"Delete {STUCK} pods").click()
    expect(page.locator(".flash.success")).to_have_text(f"Deleted {STUCK} pods.")
    expect(page).to_have_url(re.compile(r"/w/demo/pods/\?labels=app%3Dstuck$"))
    expect(page.locator("#pods-table")).to_contain_text("No pod matches the filter.")


def delete_ticked(page: Page) -> None:
    page.goto("/w/demo/pods/?name=burst-7")
    chosen = ["default/burst-7", "default/burst-70"]
    for name in chosen:
        page.get_by_role("checkbox", name=f"Select {name}", exact=True).check()
    page.get_by_role("button", name="Delete selected…").click()
    expect(page.get_by_role("heading", name="Delete 2 pods?")).to_be_visible()
    page.get_by_role("button", name="Delete 2 pods").click()
    expect(page.locator(".flash.success")).to_have_text("Deleted 2 pods.")
    names = pod_links(page).all_inner_texts()
    assert "default/burst-71" in names
    assert not set(chosen) & set(names)


def read_the_queue_chart(board: Page) -> None:
    chart = board.locator("svg.chart")
    expect(chart).to_have_attribute("aria-label", "Queue sizes (pods) over the last 5 min")
    expect(chart.locator(".axis.y .title")).to_have_text("pods")
    expect(chart.locator(".axis.x text").last).to_have_text("time before the latest sample")
    expect(chart.locator(".axis.x text", has_text="\N{MINUS SIGN}1 min")).to_be_visible()
    board.get_by_role("navigation", name="Time window").get_by_role("link", name="1 min").click()
    expect(board).to_have_url(re.compile(r"/w/demo/queue/\?window=60$"))
    expect(chart.locator(".axis.x text", has_text="\N{MINUS SIGN}30 s")).to_be_visible()
    # The stuck pods waited in the queue within the last minute: the pods axis reaches them.
    pods_axis = chart.locator(".axis.y text:not(.title)").all_text_contents()
    assert max(int(label) for label in pods_axis) >= STUCK, pods_axis


def pod_links(page: Page):
    return page.locator("#pods-table tbody td:nth-child(2) a")
