"""The profile editor refusing a configuration, in a real browser: after Apply, the refusal and
its reasons are in view together, in one box, without scrolling; and a negative Score weight
is refused as kube-scheduler refuses it at start (tests/framework/config/startup_cases.py).
"""

from __future__ import annotations

from playwright.sync_api import Locator, Page, expect

from tests.browser.steps import log_in
from tests.framework.config.startup_cases import HEADER, OVERFLOW, REFUSALS

NOT_APPLIED = "Not applied: the configuration has problems."
ZERO_PARALLELISM = "parallelism: Invalid value: 0: should be an integer value greater than zero"
NEGATIVE_WEIGHT = next(body for name, body, _ in REFUSALS if name.startswith("a negative weight"))


def test_a_refused_configuration_shows_its_problems_beside_the_refusal(context, demo):
    page = open_editor(context, demo)
    editor = page.get_by_label("KubeSchedulerConfiguration")
    text = editor.input_value()
    assert "parallelism: 16\n" in text
    editor.fill(text.replace("parallelism: 16\n", "parallelism: 0\n"))
    # As it is typed, the check under the YAML is in view too.
    expect(page.locator("#config-check li")).to_have_text(ZERO_PARALLELISM)
    assert_in_view(page, page.locator("#config-check li"))

    page.get_by_role("button", name="Apply").click()

    refusal = page.get_by_role("alert").filter(has_text=NOT_APPLIED)
    expect(refusal.locator("li")).to_have_text([ZERO_PARALLELISM])
    expect(refusal.locator("li code")).to_have_text("parallelism")
    assert_in_view(page, refusal)
    expect(page.get_by_text("Revision 1 is the latest")).to_be_visible()


def test_a_negative_score_weight_is_refused_with_kube_schedulers_words(context, demo):
    page = open_editor(context, demo)
    page.get_by_label("KubeSchedulerConfiguration").fill(HEADER + NEGATIVE_WEIGHT)
    profile_error = "profiles[0]: " + OVERFLOW.removeprefix("initializing profiles: ")
    expect(page.locator("#config-check li")).to_have_text(profile_error)

    page.get_by_role("button", name="Apply").click()

    refusal = page.get_by_role("alert").filter(has_text=NOT_APPLIED)
    expect(refusal.locator("li")).to_have_text([profile_error])
    assert_in_view(page, refusal)
    expect(page.get_by_text("Revision 1 is the latest")).to_be_visible()


def open_editor(context, demo) -> Page:
    page = context.new_page()
    log_in(page, demo)
    page.goto("/w/demo/profile/")
    expect(page.get_by_role("heading", name="Scheduler configuration")).to_be_visible()
    return page


def assert_in_view(page: Page, element: Locator) -> None:
    """The whole element lies inside the window as the page is, not scrolled to it."""
    box = element.bounding_box()
    assert box is not None
    scrolled = page.evaluate("window.scrollY")
    height = page.viewport_size["height"]
    assert box["y"] >= 0 and box["y"] + box["height"] <= height and scrolled == 0, (box, height)
