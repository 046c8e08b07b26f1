"""Replay in a real browser: a pod the scheduler placed, its attempt stepped through event by
event from the stored trace, forward to Score and back, with the buttons, the arrow keys and
the range input, all on the same page (htmx swaps each step in)."""

from __future__ import annotations

import re

from playwright.sync_api import Page, expect

from tests.browser.steps import (
    LIVE_TIMEOUT_MS,
    create_in_editor,
    follow_link,
    log_in,
    mark_page,
    page_is_the_same,
    pod_yaml,
)
from tests.browser.tables import CELLS

POD = "default/replayed"


def test_a_person_steps_through_a_stored_attempt_forward_and_back(context, demo):
    page = context.new_page()
    log_in(page, demo)
    create_pod(page)
    open_the_attempt(page)
    page.get_by_role("link", name="Step through").click()
    expect(page.get_by_role("heading", name=f"Step through attempt 1 of pod {POD}")).to_be_visible()
    expect(header(page)).to_have_text("Before the first event")
    total = int(re.fullmatch(r"0 of (\d+) events replayed", position(page).inner_text())[1])
    mark_page(page)

    at = forward_to_the_first_score_call(page, total)
    raw = raw_scores(page)
    assert raw and all(re.fullmatch(r"\d+", score) for score in raw.values()), raw
    # Before Score has ended only raw scores are known: normalized, weighted and totals blank.
    rows = score_rows(page)
    assert all(row[2:4] == ["", ""] and row[-1] == "" for row in rows), rows

    page.keyboard.press("ArrowLeft")
    expect(position(page)).to_have_text(f"{at - 1} of {total} events replayed")
    expect(page.get_by_text("No Score call yet")).to_be_visible()
    expect(score_table(page)).to_have_count(0)
    page.keyboard.press("ArrowRight")
    expect(position(page)).to_have_text(f"{at} of {total} events replayed")
    expect(score_table(page)).to_be_visible()
    assert raw_scores(page) == raw
    page.get_by_role("link", name="Back", exact=True).click()
    expect(score_table(page)).to_have_count(0)

    page.get_by_label("Events replayed").fill(str(total))
    expect(position(page)).to_have_text(f"{total} of {total} events replayed")
    expect(header(page)).to_contain_text("postBind")
    totals = [row[-1] for row in score_rows(page)]
    assert totals and all(re.fullmatch(r"\d+", total) for total in totals), totals
    expect(page.locator("#replay-forward")).to_have_count(0)
    assert page.url.endswith(f"/replay/?at={total}")
    assert page_is_the_same(page), "each step is swapped in, the page is never reloaded"


def create_pod(page: Page) -> None:
    create_in_editor(page, pod_yaml("replayed", "100m"), f"Saved Pod {POD}.")


def open_the_attempt(page: Page) -> None:
    page.goto("/w/demo/pods/")
    follow_link(page, POD)
    expect(page.get_by_role("heading", name=f"Pod {POD}")).to_be_visible()
    first = page.locator("#pod-attempts > tbody > tr").first
    expect(first).to_contain_text("Scheduled", timeout=LIVE_TIMEOUT_MS)
    first.get_by_role("link", name="1", exact=True).click()
    expect(page.get_by_role("heading", name=f"Attempt 1 of pod {POD}")).to_be_visible()


def forward_to_the_first_score_call(page: Page, total: int) -> int:
    """Forward one event at a time until the header is a Score call; returns the position."""
    for at in range(1, total + 1):
        page.get_by_role("link", name="Forward", exact=True).click()
        expect(position(page)).to_have_text(f"{at} of {total} events replayed")
        if header(page).inner_text().startswith("score · "):
            expect(score_table(page)).to_be_visible()
            return at
        expect(score_table(page)).to_have_count(0)
    raise AssertionError("no Score call in the attempt")


def header(page: Page):
    return page.locator(".stop-header h2")


def position(page: Page):
    return page.locator("#replay-position")


def score_table(page: Page):
    return page.get_by_role("table", name="Score", exact=True)


def score_rows(page: Page) -> list[list[str]]:
    """The score table's node rows, each cell's text."""
    _, _, *rows = score_table(page).evaluate(CELLS)
    return [[text for text, _ in row] for row in rows]


def raw_scores(page: Page) -> dict[str, str]:
    """node → the one Score plugin's raw score so far."""
    return {row[0]: row[1] for row in score_rows(page)}
