"""A pod's page watches its pod: when the scheduler tries it again, each extension point of the
attempt appears in the Live panel as it completes, before the attempt is stored and listed."""

from __future__ import annotations

from playwright.sync_api import expect

from tests.browser.steps import (
    LIVE_TIMEOUT_MS,
    create_in_editor,
    log_in,
    mark_page,
    page_is_the_same,
    pod_yaml,
)
from tests.browser.test_pod_page_live import NODE_YAML

POD = "default/giant"


def test_a_pods_extension_points_appear_live_on_its_page(context, demo):
    page = context.new_page()
    log_in(page, demo)
    create_in_editor(page, pod_yaml("giant", "20"), f"Saved Pod {POD}.")  # fits on no demo node
    # The list the link is in is redrawn live: follow its address rather than click it.
    page.goto(page.get_by_role("link", name=POD).get_attribute("href"))
    expect(page.get_by_role("heading", name=f"Pod {POD}")).to_be_visible()
    live = page.locator("#live-trace")
    # The service answers the page's watch once it has read it: from then on it streams this
    # pod's trace events, PreEnqueue included.
    expect(live).to_contain_text("The scheduler follows this page:", timeout=LIVE_TIMEOUT_MS)
    expect(page.locator("#pod-attempts > tbody > tr").first).to_contain_text(
        "Unschedulable", timeout=LIVE_TIMEOUT_MS
    )
    # The panel sits above the latest attempt's tables.
    assert page.evaluate(
        "document.querySelector('#live-trace').compareDocumentPosition("
        "document.querySelector('#latest-attempt')) & Node.DOCUMENT_POSITION_FOLLOWING"
    )
    mark_page(page)

    # A node big enough, added in another tab: the scheduler tries the pod again.
    create_in_editor(context.new_page(), NODE_YAML, "Saved Node huge-1.")

    points = live.get_by_role("table", name="Live extension points")
    # The whole attempt, in order: PreEnqueue let it in when the node came; one node fits, so
    # nothing is scored; Bind and PostBind ran in a binding task and came with its outcome.
    expect(points.locator("tr.point-row > td:first-child")).to_have_text(
        ["preEnqueue", "preFilter", "filter", "reserve", "permit", "preBind", "bind", "postBind"],
        timeout=LIVE_TIMEOUT_MS,
    )
    expect(live).to_contain_text(f"{POD} · attempt")
    fit = points.locator("tr.plugin-row", has_text="NodeResourcesFit").first
    expect(fit).to_contain_text("Success")
    expect(page.locator("#pod-state")).to_have_text("bound on huge-1", timeout=LIVE_TIMEOUT_MS)
    assert page_is_the_same(page), "the points arrived without a reload"
