"""The debugger page at a stop, as a person uses it: Pause takes a plain click while the
scheduler plays (the controls stay put while the panels change under them), Abort says at once
what it did, and a reload during a stop shows the attempt's extension points so far.
"""

from __future__ import annotations

import threading

from playwright.sync_api import Page, Route, expect

from playground.workspaces.models import SchedulerCommand, SchedulerStatus
from tests.browser.steps import LIVE_TIMEOUT_MS, create_in_editor, from_the_database, pod_yaml
from tests.browser.test_debugger import (
    CLICK_ANSWER_MS,
    click,
    expect_next_stop,
    expect_stopped_at,
    open_debugger,
    set_breakpoint,
    stop_id,
    stop_section,
)

PACE = "1"
"""Seconds per extension point while playing: the attempt plays for several seconds."""


def stopped_at(context, demo, point: str, name: str) -> Page:
    """The debugger page, the scheduler stopped at ``point`` for a new pod default/<name>."""
    page = context.new_page()
    open_debugger(page, demo)
    set_breakpoint(page, point, f"default/{name}")
    create_in_editor(context.new_page(), pod_yaml(name, "100m"), f"Saved Pod default/{name}.")
    expect_stopped_at(page, point[0].lower() + point[1:])
    return page


def debug_command(command: str) -> SchedulerCommand:
    return SchedulerCommand.objects.filter(kind="debug", payload__command=command).get()


def stored_stop() -> dict | None:
    return SchedulerStatus.objects.get(workspace__slug="demo").stop


def test_pause_takes_a_plain_click_while_playing_and_the_scheduler_stays(context, demo):
    page = stopped_at(context, demo, "PreFilter", "player")
    stop_section(page).get_by_label("Seconds per extension point").fill(PACE)
    click(page, "play")
    summary = stop_section(page).get_by_test_id("stop-summary")
    expect(summary).to_contain_text(f"playing at {PACE} s per extension point")
    # It goes on by itself: the stop, and the panels with it, change under the pointer.
    expect_next_stop(page, stop_id(page), timeout=LIVE_TIMEOUT_MS)
    controls = stop_section(page).get_by_test_id("debugger-controls")
    pause = controls.locator('button[data-command="pause"]')
    pause.evaluate("button => { button.dataset.browserTestMark = 'same button' }")
    expect_next_stop(page, stop_id(page), timeout=LIVE_TIMEOUT_MS)
    # The button under the pointer is the one that was there before the stop changed.
    assert pause.get_attribute("data-browser-test-mark") == "same button"

    pause.click()  # a plain click: no force

    expect(summary).not_to_contain_text("playing", timeout=CLICK_ANSWER_MS)
    expect(controls.locator('button[data-command="play"]')).to_be_visible()
    outcome = from_the_database(lambda: debug_command("pause").outcome)
    assert outcome == "paused playing"
    # Paused, the scheduler waits where the page says it does.
    paused_at = stop_id(page)
    assert from_the_database(stored_stop)["id"] == paused_at
    click(page, "run")
    expect(page.get_by_test_id("not-stopped")).to_be_visible(timeout=CLICK_ANSWER_MS)


class HeldRequests:
    """The page's debugger commands, held on their way to the server until released: what the
    page shows meanwhile is what it shows before any answer."""

    def __init__(self, page: Page) -> None:
        self.routes: list[Route] = []
        self.arrived = threading.Event()
        page.route("**/debugger/command/", self._hold)

    def _hold(self, route: Route) -> None:
        self.routes.append(route)
        self.arrived.set()

    def release(self) -> None:
        for route in self.routes:
            route.continue_()


def test_abort_says_at_once_that_the_attempt_ends_and_the_pod_goes_back_to_the_queue(context, demo):
    page = stopped_at(context, demo, "Filter", "dropped")
    held = HeldRequests(page)

    click(page, "abort")

    # Before the server has even heard of it, the stop is marked as being aborted, and none of
    # its buttons can be clicked again.
    section = stop_section(page)
    expect(section.get_by_test_id("debugger-pending")).to_have_text(
        "Aborting: the attempt ends with an Error and the pod goes back to the queue."
    )
    for button in section.get_by_test_id("debugger-controls").get_by_role("button").all():
        expect(button).to_be_disabled()

    held.release()
    note = section.get_by_test_id("debugger-note")
    expect(note).to_contain_text(
        "The attempt of default/dropped (attempt 1) was aborted at filter", timeout=CLICK_ANSWER_MS
    )
    expect(note).to_contain_text("the pod went back to the queue")
    expect(page.get_by_test_id("not-stopped")).to_be_visible()
    expect(section.get_by_test_id("debugger-controls")).to_be_hidden()


def test_a_reload_during_a_stop_shows_the_attempts_extension_points_so_far(context, demo):
    page = stopped_at(context, demo, "Score", "reloaded")
    expect_stopped_at(page, "score")
    live = page.locator("#live-trace")

    page.reload()

    expect_stopped_at(page, "score")
    expect(live).to_contain_text("default/reloaded · attempt 1 · running score")
    points = live.get_by_role("table", name="Live extension points")
    expect(points.locator("tr.point-row > td:first-child")).to_have_text(
        ["preFilter", "filter", "preScore"]
    )
    expect(points.locator("tr.plugin-row", has_text="NodeResourcesFit").first).to_contain_text(
        "Success"
    )

    click(page, "run")
    expect(page.get_by_test_id("not-stopped")).to_be_visible(timeout=CLICK_ANSWER_MS)


def row_of(page: Page, selector: str) -> float:
    """The vertical middle of the element: elements on one row of a flex box share it."""
    box = page.locator(selector).bounding_box()
    return box["y"] + box["height"] / 2


def test_the_top_bar_s_links_stay_put_while_the_scheduler_s_badge_changes(context, demo):
    page = context.new_page()
    open_debugger(page, demo)
    badge = page.locator("header.topbar #service-state")
    expect(badge).to_have_text("scheduler running")
    links = page.locator("header.topbar .sections a")
    before = [links.nth(index).bounding_box() for index in range(links.count())]
    set_breakpoint(page, "PreFilter", "default/pointer")
    create_in_editor(context.new_page(), pod_yaml("pointer", "100m"), "Saved Pod default/pointer.")
    expect(badge).to_contain_text("stopped at PreFilter")
    # A click aimed at a link as the state changed lands on that link.
    assert [links.nth(index).bounding_box() for index in range(links.count())] == before
    click(page, "run")


def test_during_a_stop_the_top_bar_keeps_to_one_row_at_1280_px(context, demo):
    page = stopped_at(context, demo, "PreFilter", "narrow")
    page.set_viewport_size({"width": 1280, "height": 900})
    badge = page.locator("header.topbar #service-state")
    expect(badge).to_contain_text("stopped at PreFilter")
    brand = row_of(page, "header.topbar .brand")
    for part in ("#service-state", "header.topbar .sections a >> nth=-1", "header.topbar .account"):
        assert abs(row_of(page, part) - brand) < 4, part
    # The whole stop is in the badge's title, where it is cut short.
    assert "pod default/narrow" in badge.get_attribute("title")
    click(page, "run")
