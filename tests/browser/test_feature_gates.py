"""The feature gates on the profile page, in a real browser: bad gates are refused with the
field and upstream's words, nothing typed is lost; good ones are applied as a revision, and the
page then shows, live, that the scheduler runs with them."""

from __future__ import annotations

from playwright.sync_api import expect

from tests.browser.steps import log_in

NOT_APPLIED = "Not applied: the configuration has problems."
GATES = "InPlacePodLevelResourcesVerticalScaling=false,PodLevelResources=false"
LIVE_TIMEOUT_MS = 30_000


def test_feature_gates_are_checked_applied_and_shown_as_the_scheduler_runs_them(context, demo):
    page = context.new_page()
    log_in(page, demo)
    page.goto("/w/demo/profile/")
    expect(page.get_by_role("heading", name="Scheduler configuration")).to_be_visible()
    editor, gates = (
        page.get_by_label("KubeSchedulerConfiguration"),
        page.get_by_label("Feature gates"),
    )
    text = editor.input_value()

    gates.fill("PodLevelResources=false,Nope=1")
    expect(page.locator("#config-check li")).to_have_text(
        "--feature-gates: unrecognized feature gate: Nope"
    )
    page.get_by_role("button", name="Apply").click()

    refusal = page.get_by_role("alert").filter(has_text=NOT_APPLIED)
    expect(refusal.locator("li")).to_have_text(["--feature-gates: unrecognized feature gate: Nope"])
    expect(refusal.locator("li code")).to_have_text("--feature-gates")
    expect(page.get_by_label("Feature gates")).to_have_value("PodLevelResources=false,Nope=1")
    expect(page.get_by_label("KubeSchedulerConfiguration")).to_have_value(text)

    page.get_by_label("Feature gates").fill("PodLevelResources=false")
    expect(page.locator("#config-check li")).to_have_text(
        "--feature-gates: InPlacePodLevelResourcesVerticalScaling is enabled, but depends on "
        "features that are disabled: [PodLevelResources]"
    )
    page.get_by_label("Feature gates").fill(GATES)
    changed = page.get_by_test_id("changed-gates")
    expect(changed).to_contain_text("InPlacePodLevelResourcesVerticalScaling=false")
    expect(changed).to_contain_text("PodLevelResources=false (Beta, default true)")
    page.get_by_label("Note").fill("pod-level resources off")
    page.get_by_role("button", name="Apply").click()

    expect(page.get_by_text("Revision 2 is the latest")).to_be_visible()
    expect(page.get_by_label("Feature gates")).to_have_value(GATES)
    row = page.locator("tbody tr").filter(has_text="pod-level resources off")
    expect(row.locator("code")).to_have_text(GATES)
    expect(page.get_by_test_id("running-configuration")).to_have_text(
        "The scheduler runs revision 2 with the feature gates "
        "InPlacePodLevelResourcesVerticalScaling=false, PodLevelResources=false.",
        timeout=LIVE_TIMEOUT_MS,
    )
