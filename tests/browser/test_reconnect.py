"""Pages open across a restart of the playground, in a real browser: while the server is
down they say so ("disconnected, reconnecting…") instead of showing what the dead server last
sent as current, and once it is back their websockets reconnect by themselves and the pages
show the state again (the new worker holding the scheduler's lease), without a reload."""

from __future__ import annotations

from playwright.sync_api import Page, expect

from tests.browser.steps import LIVE_TIMEOUT_MS, log_in, mark_page, page_is_the_same

DISCONNECTED = "disconnected, reconnecting…"


def test_open_pages_say_they_are_disconnected_and_catch_up_after_a_restart(context, demo, server):
    overview = context.new_page()  # a page with a websocket of its own
    log_in(overview, demo)
    overview.goto("/w/demo/")
    objects = context.new_page()  # a page with only the top bar's
    objects.goto("/w/demo/objects/")
    pages = (overview, objects)
    holders = {}
    for page in pages:
        holders[page] = running_under_some_worker(page)
        expect(sign(page)).to_be_hidden()
        mark_page(page)

    server.stop()
    for page in pages:
        expect(sign(page)).to_be_visible()
        expect(sign(page)).to_have_text(DISCONNECTED)

    server.start()
    for page in pages:
        expect(sign(page)).to_be_hidden(timeout=LIVE_TIMEOUT_MS)
        expect(page.locator("#scheduler-badge .holder")).not_to_have_text(
            holders[page], timeout=LIVE_TIMEOUT_MS
        )
        assert running_under_some_worker(page) != holders[page]
        assert page_is_the_same(page), "the page must catch up without being reloaded"


def sign(page: Page):
    return page.get_by_role("status").filter(has_text=DISCONNECTED)


def running_under_some_worker(page: Page) -> str:
    """The top bar says the scheduler runs; the worker holding its lease, as shown."""
    expect(page.locator("#service-state")).to_have_text(
        "scheduler running", timeout=LIVE_TIMEOUT_MS
    )
    holder = page.locator("#scheduler-badge .holder")
    expect(holder).not_to_be_empty()
    return holder.inner_text()
