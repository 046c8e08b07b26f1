"""The scheduler's state on the overview, in a real browser: Pause and Resume show at once in
the overview's panel and in the top bar, which never disagree, and the overview sends nothing
while nothing happens, so its Pause / Resume button stays the same element, clickable even
while a burst of pods is scheduled."""

from __future__ import annotations

import time

from playwright.sync_api import Locator, Page, expect

from tests.browser.steps import LIVE_TIMEOUT_MS, log_in, mark_page, page_is_the_same

CLICK_ANSWER_MS = 5_000
"""How long a click's result may take to show: the scheduler acts within a tick."""
BURST = 200
TINY_POD = """\
apiVersion: v1
kind: Pod
metadata: {name: burst, namespace: default}
spec:
  containers:
  - {name: app, image: busybox, resources: {requests: {cpu: 10m, memory: 16Mi}}}
"""
COUNT_MESSAGES = """
window.socketMessages = 0;
document.addEventListener("htmx:wsAfterMessage", () => { window.socketMessages += 1; });
"""
"""Counts what the page's websockets deliver (htmx's websocket extension fires the event)."""


def test_pause_and_resume_show_at_once_in_the_panel_and_the_top_bar(context, demo):
    overview = open_overview(context, demo)
    mark_page(overview)
    objects = context.new_page()  # a page without a stream of its own
    objects.goto("/w/demo/objects/")
    objects.wait_for_function("window.htmx && document.querySelector('[ws-connect]')")
    mark_page(objects)

    # Who holds the lease is shown, not only in a tooltip: on the overview and in the top bar.
    expect(overview.locator(".scheduler-state .lease")).to_contain_text("Lease held by")
    expect(objects.locator("#scheduler-badge .holder")).to_be_visible()

    button(overview, "Pause").click()
    expect_state(overview, "scheduler paused", timeout=CLICK_ANSWER_MS)
    expect(button(overview, "Resume")).to_be_visible()
    expect(objects.locator("#service-state")).to_have_text(
        "scheduler paused", timeout=CLICK_ANSWER_MS
    )
    assert page_is_the_same(objects), "the top bar of every page follows without a reload"

    bound, pending = settled_counts(overview)
    bulk_create(context.new_page(), BURST)
    expect(count_of(overview, "pending pods")).to_have_text(
        str(pending + BURST), timeout=LIVE_TIMEOUT_MS
    )
    assert count_of(overview, "bound pods").inner_text() == str(bound), "paused: none bound"

    button(overview, "Resume").click()
    expect_state(overview, "scheduler running", timeout=CLICK_ANSWER_MS)
    # While the pods bind, the two places agree on every look.
    deadline = time.monotonic() + 3.0
    while time.monotonic() < deadline:
        assert states(overview) == ("scheduler running", "scheduler running")
        time.sleep(0.1)
    expect(count_of(overview, "bound pods")).to_have_text(
        str(bound + BURST), timeout=LIVE_TIMEOUT_MS
    )
    assert states(overview) == ("scheduler running", "scheduler running")
    assert page_is_the_same(overview), "the overview must update without being reloaded"


def test_the_overview_keeps_its_button_while_idle_and_during_a_burst(context, demo):
    overview = open_overview(context, demo)
    bound, _ = settled_counts(overview)
    pause = button(overview, "Pause").element_handle()
    pause.evaluate("element => { element.dataset.kept = 'yes'; }")

    delivered = overview.evaluate("window.socketMessages")
    time.sleep(3.0)
    assert overview.evaluate("window.socketMessages") == delivered, (
        "an idle overview is sent nothing"
    )
    assert still_there(pause)

    bulk_create(context.new_page(), BURST)
    expect(count_of(overview, "bound pods")).not_to_have_text(str(bound), timeout=LIVE_TIMEOUT_MS)
    assert overview.evaluate("window.socketMessages") > delivered, "the burst reached the page"
    assert still_there(pause), "the counts changed, the button did not"

    pause.click(timeout=CLICK_ANSWER_MS)  # in the middle of the burst
    expect_state(overview, "scheduler paused", timeout=CLICK_ANSWER_MS)


# ----------------------------------------------------------------------------------------------


def open_overview(context, demo: dict[str, str]) -> Page:
    """The demo's overview, once its websocket has delivered the page's live state."""
    page = context.new_page()
    page.add_init_script(COUNT_MESSAGES)
    log_in(page, demo)
    page.goto("/w/demo/")
    expect(page.get_by_role("heading", name="Demo", exact=True)).to_be_visible()
    page.wait_for_function("window.socketMessages > 0")
    expect_state(page, "scheduler running", timeout=LIVE_TIMEOUT_MS)
    return page


def settled_counts(page: Page, quiet: float = 2.0) -> tuple[int, int]:
    """The overview's bound and pending pods once the demo's own pods are placed: the counts
    unchanged for ``quiet`` seconds."""
    deadline = time.monotonic() + LIVE_TIMEOUT_MS / 1000
    last, since = None, time.monotonic()
    while time.monotonic() < deadline:
        counts = (
            int(count_of(page, "bound pods").inner_text()),
            int(count_of(page, "pending pods").inner_text()),
        )
        if counts != last:
            last, since = counts, time.monotonic()
        elif time.monotonic() - since >= quiet:
            return counts
        time.sleep(0.2)
    raise AssertionError(f"the demo's pods did not settle: {last}")


def button(page: Page, name: str) -> Locator:
    return page.locator("#scheduler-state").get_by_role("button", name=name)


def expect_state(page: Page, label: str, timeout: int) -> None:
    """The top bar and the overview's panel both say ``label``."""
    expect(page.locator("#service-state")).to_have_text(label, timeout=timeout)
    expect(page.locator("#scheduler-state .badge")).to_have_text(label, timeout=timeout)


def states(page: Page) -> tuple[str, str]:
    """What the top bar and the panel say, read at the same moment."""
    return tuple(
        page.evaluate(
            "['#service-state', '#scheduler-state .badge']"
            ".map(selector => document.querySelector(selector).textContent.trim())"
        )
    )


def count_of(page: Page, what: str) -> Locator:
    row = page.locator("#overview-summary tr", has=page.get_by_text(what, exact=True))
    return row.locator("td.num")


def still_there(element) -> bool:
    return element.evaluate("element => element.isConnected && element.dataset.kept === 'yes'")


def bulk_create(page: Page, count: int) -> None:
    """Creates ``count`` tiny pods with the bulk form, as a person would in another tab."""
    page.goto("/w/demo/transfer/")
    form = page.locator("#bulk")
    form.get_by_label("Template").fill(TINY_POD)
    form.get_by_label("How many").fill(str(count))
    form.get_by_role("button", name="Create").click()
    expect(page.locator("#bulk")).to_contain_text(
        f"{count} of {count} created", timeout=LIVE_TIMEOUT_MS
    )
