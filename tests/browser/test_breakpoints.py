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


def submit(page: Page, stop_at: str, **fields: str) -> None:
    """Fills the form (``fields``: label → text) and sets the breakpoint."""
    form = page.get_by_test_id("breakpoint-form")
    form.get_by_label("Stop at").select_option(label=stop_at)
    for label, text in fields.items():
        form.get_by_label(label).fill(text)
    form.get_by_role("button", name="Set breakpoint").click()


def set_breakpoint_at_score(page: Page) -> None:
    submit(page, "Score", Plugin="NodeResourcesFit")
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


def test_a_breakpoint_on_a_node_that_does_not_exist_is_set_with_a_warning(context, demo):
    page = context.new_page()
    log_in(page, demo)
    page.goto("/w/demo/debugger/")
    submit(page, "Filter", Node="no-such-node")

    expect(page.get_by_test_id("breakpoints-note")).to_have_text(
        "Breakpoint set: Filter · node no-such-node. No node is named no-such-node in this "
        "workspace now: it stops only once one is."
    )
    row = page.get_by_test_id("breakpoint")
    expect(row).to_have_count(1)
    expect(row.get_by_test_id("breakpoint-warning")).to_have_text("no node no-such-node now")

    # A breakpoint on a node that exists says nothing of the kind.
    submit(page, "Score", Node="b-medium-2")
    expect(page.get_by_test_id("breakpoints-note")).to_have_text(
        "Breakpoint set: Score · node b-medium-2."
    )
    expect(page.get_by_test_id("breakpoint")).to_have_count(2)
    expect(page.get_by_test_id("breakpoint-warning")).to_have_count(1)
