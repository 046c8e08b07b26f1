"""Setting and clearing a breakpoint on the debugger page, in a real browser: the form answers
in place (htmx), an invalid label selector is named next to its field with what was typed
kept, and Clear takes the breakpoint away."""

from __future__ import annotations

from playwright.sync_api import Page, expect

from tests.browser.steps import log_in, mark_page, page_is_the_same


def test_a_breakpoint_at_score_for_a_plugin_is_set_listed_refused_when_wrong_and_cleared(
    context, demo
):
    page = context.new_page()
    log_in(page, demo)
    page.get_by_role("link", name="Demo", exact=True).click()
    page.get_by_role("link", name="Debugger", exact=True).click()
    expect(page.get_by_test_id("no-breakpoints")).to_be_visible()
    mark_page(page)

    set_breakpoint_at_score(page)
    refuse_a_wrong_selector(page)
    clear_it(page)
    assert page_is_the_same(page), "each answer was swapped in, never a page load"


def set_breakpoint_at_score(page: Page) -> None:
    form = page.get_by_test_id("breakpoint-form")
    form.get_by_label("Stop at").select_option(label="Score")
    form.get_by_label("Plugin").fill("NodeResourcesFit")
    form.get_by_role("button", name="Set breakpoint").click()
    expect(page.get_by_test_id("breakpoints-note")).to_have_text(
        "Breakpoint set: Score · NodeResourcesFit."
    )
    rows = page.get_by_test_id("breakpoint")
    expect(rows).to_have_count(1)
    expect(rows.first.locator("td").nth(0)).to_have_text("Score")
    expect(rows.first.locator("td").nth(1)).to_have_text("NodeResourcesFit")
    expect(page.get_by_test_id("breakpoint-plugin")).to_have_value("")  # a fresh form


def refuse_a_wrong_selector(page: Page) -> None:
    form = page.get_by_test_id("breakpoint-form")
    form.get_by_label("Stop at").select_option(label="Filter")
    form.get_by_label("Label selector").fill("app in (web")
    form.get_by_role("button", name="Set breakpoint").click()
    error = page.get_by_test_id("error-selector")
    expect(error).to_contain_text("selector: unable to parse requirement")
    # next to its field: right under the selector's input, before the next field
    field = page.get_by_test_id("breakpoint-selector")
    expect(field).to_have_value("app in (web")
    expect(field).to_have_attribute("aria-invalid", "true")
    under = field.bounding_box()["y"] + field.bounding_box()["height"]
    assert 0 <= error.bounding_box()["y"] - under < 40
    assert error.bounding_box()["y"] < page.get_by_test_id("breakpoint-profile").bounding_box()["y"]
    expect(page.get_by_test_id("breakpoint-point")).to_have_value("filter")
    expect(page.get_by_test_id("breakpoint")).to_have_count(1)  # nothing was added


def clear_it(page: Page) -> None:
    page.get_by_test_id("breakpoint").get_by_role("button", name="Clear").click()
    expect(page.get_by_test_id("breakpoints-note")).to_have_text(
        "Breakpoint cleared: Score · NodeResourcesFit."
    )
    expect(page.get_by_test_id("breakpoint")).to_have_count(0)
    expect(page.get_by_test_id("no-breakpoints")).to_be_visible()
