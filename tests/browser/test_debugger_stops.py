"""When a debugger stop waits and when it goes on, in a real browser: Play belongs to the
attempt it was pressed in (a later stop waits for a command), and a stop that no breakpoint
left would make goes on by itself once the breakpoints change, saying so; the attempt's page
then shows the time spent stopped apart from the plugins' time."""

from __future__ import annotations

import re

from playwright.sync_api import Page, expect

from tests.browser.steps import LIVE_TIMEOUT_MS, create_in_editor, follow_link, pod_yaml
from tests.browser.test_debugger import (
    CLICK_ANSWER_MS,
    click,
    expect_stopped_at,
    open_debugger,
    set_breakpoint,
    stop_id,
    stop_section,
)

PLAY_CPU = "130m"
"""Requests no pod of the demo makes: a pod with the same signature as the one scheduled just
before it may be placed on a hint from that pod's ranking (OpportunisticBatching, docs/trace.md),
without Score, and a Score breakpoint would never stop it. The tests' pods differ likewise."""


def set_breakpoint_for_labels(page: Page, point: str, selector: str) -> None:
    form = page.get_by_test_id("breakpoint-form")
    form.get_by_test_id("breakpoint-point").select_option(label=point)
    form.get_by_test_id("breakpoint-selector").fill(selector)
    form.get_by_role("button", name="Set breakpoint").click()
    expect(page.get_by_test_id("breakpoints-note")).to_contain_text("Breakpoint set")


def expect_stopped_for(page: Page, pod: str, attempt: int = 1) -> None:
    expect(stop_section(page).get_by_test_id("stop-summary")).to_contain_text(
        f"Pod {pod}, attempt {attempt}", timeout=LIVE_TIMEOUT_MS
    )


def expect_bound(page: Page, pod: str) -> None:
    page.goto("/w/demo/pods/")
    follow_link(page, pod)
    expect(page.locator("#pod-state")).to_contain_text("bound on", timeout=LIVE_TIMEOUT_MS)


def test_play_goes_on_by_itself_only_in_the_attempt_it_was_pressed_in(context, demo):
    page = context.new_page()
    open_debugger(page, demo)
    set_breakpoint_for_labels(page, "Score", "app=playrepro")
    pods = context.new_page()

    create_in_editor(pods, pod_yaml("play-1", PLAY_CPU, "playrepro"), "Saved Pod default/play-1.")
    expect_stopped_for(page, "default/play-1")
    stop_section(page).get_by_label("Seconds per extension point").fill("0.5")
    click(page, "play")
    # It plays through to the end by itself (the "playing at" line lasts only the few seconds
    # that takes: too short to look for on a busy machine).
    expect_bound(pods, "default/play-1")

    create_in_editor(pods, pod_yaml("play-2", PLAY_CPU, "playrepro"), "Saved Pod default/play-2.")
    expect_stopped_for(page, "default/play-2")
    # A new attempt's stop waits for a command: it offers Play, and nothing plays.
    controls = stop_section(page).get_by_test_id("debugger-controls")
    expect(controls.locator('button[data-command="play"]')).to_be_visible()
    expect(controls.locator('button[data-command="pause"]')).to_have_count(0)
    expect(stop_section(page)).not_to_contain_text("playing at")
    waiting = stop_id(page)
    page.reload()  # a round trip later, the same stop still waits
    expect_stopped_for(page, "default/play-2")
    assert stop_id(page) == waiting

    click(page, "run")
    expect_bound(pods, "default/play-2")


def test_a_stop_no_breakpoint_would_make_any_more_goes_on_by_itself_and_says_so(context, demo):
    page = context.new_page()
    open_debugger(page, demo)
    set_breakpoint(page, "Filter", "default/released", node="b-medium-2")
    set_breakpoint(page, "PreBind", "default/released")
    pods = context.new_page()
    create_in_editor(pods, pod_yaml("released", "110m"), "Saved Pod default/released.")
    expect_stopped_at(page, "filter · ")

    click(page, "abort")  # requeued: attempt 2 stops at the same breakpoint
    expect_stopped_for(page, "default/released", attempt=2)
    expect_stopped_at(page, "filter · ")
    at_filter = stop_id(page)

    # Clearing the Filter breakpoint: the one left (PreBind) would not stop at Filter, so the
    # scheduler goes on from there, and stops at PreBind.
    page.get_by_test_id("breakpoint").filter(has_text="Filter").get_by_role(
        "button", name="Clear"
    ).click()
    expect_stopped_at(page, "preBind", timeout=CLICK_ANSWER_MS)
    assert stop_id(page) != at_filter
    expect(page.get_by_test_id("debugger-note")).to_contain_text(
        "continued by itself: no breakpoint stops there any more"
    )

    # Clearing all of them: the scheduler runs without stopping, and the top bar says so.
    page.get_by_test_id("breakpoints-clear").click()
    expect(page.get_by_test_id("no-breakpoints")).to_be_visible()
    expect(page.get_by_test_id("not-stopped")).to_be_visible(timeout=CLICK_ANSWER_MS)
    expect(page.get_by_test_id("debugger-note")).to_contain_text(
        "continued by itself: no breakpoint stops there any more"
    )
    expect(page.locator("#service-state")).to_have_text("scheduler running")
    expect_bound(pods, "default/released")

    # Attempt 2's page: Filter's own time, and the time it spent stopped apart.
    pods.get_by_title("attempt 2 of pod default/released").click()
    filter_row = (
        pods.get_by_role("table", name="Extension points")
        .locator("tr.point-row")
        .filter(has=pods.get_by_role("cell", name="filter", exact=True))
    )
    expect(filter_row.get_by_test_id("stopped-time")).to_have_text(re.compile(r"stopped \d+\.\d s"))
