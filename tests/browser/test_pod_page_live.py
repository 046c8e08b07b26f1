"""A pod's page while the scheduler keeps trying: new attempts arrive over the websocket, the
latest one's tables are redrawn without a click, and a trace of an older attempt the person
opened stays open (each attempt redraws the attempts table)."""

from __future__ import annotations

from playwright.sync_api import Page, expect

from tests.browser.steps import (
    LIVE_TIMEOUT_MS,
    create_in_editor,
    log_in,
    mark_page,
    page_is_the_same,
    pod_yaml,
)

POD = "default/giant"
POD_YAML = pod_yaml("giant", "20")
NODE_YAML = """\
apiVersion: v1
kind: Node
metadata:
  name: huge-1
  labels:
    kubernetes.io/hostname: huge-1
    topology.kubernetes.io/zone: zone-a
status:
  capacity: {cpu: "64", memory: 256Gi, pods: "110"}
  allocatable: {cpu: "64", memory: 256Gi, pods: "110"}
"""


def test_an_open_trace_stays_open_while_the_next_attempt_arrives(context, demo):
    page = context.new_page()
    log_in(page, demo)
    create_in_editor(page, POD_YAML, f"Saved Pod {POD}.")
    open_pod_page(page)
    attempts = page.locator("#pod-attempts > tbody > tr:not(:has(> td.trace))")
    expect(attempts.first).to_contain_text("Unschedulable", timeout=LIVE_TIMEOUT_MS)
    expect(attempts.first).to_contain_text("Insufficient cpu")
    attempts.first.get_by_role("link", name="Trace").click()
    first_trace = page.locator("#pod-attempts .attempt-trace").first
    expect(first_trace.get_by_role("table", name="Filter", exact=True)).to_be_visible()
    mark_page(page)

    # Someone adds a node big enough, in another tab: the scheduler retries the pod (room for
    # the demo's batch/huge too, which waits for such a node and goes first, by priority).
    create_in_editor(context.new_page(), NODE_YAML, "Saved Node huge-1.")

    expect(attempts).to_have_count(2, timeout=LIVE_TIMEOUT_MS)
    expect(attempts.first).to_contain_text("huge-1")
    assert page_is_the_same(page), "the attempts arrive without a reload"
    # The latest attempt's tables are redrawn above, without a click: huge-1 passed.
    latest = page.locator("#latest-attempt")
    expect(latest).to_contain_text("Attempt 2 Scheduled on huge-1")
    huge = latest.get_by_role("table", name="Filter", exact=True).get_by_role("row", name="huge-1")
    expect(huge).not_to_contain_text("Insufficient")
    expect(page.locator("#pod-state")).to_have_text("bound on huge-1", timeout=LIVE_TIMEOUT_MS)
    still_open = page.locator("#pod-attempts .attempt-trace")
    expect(still_open).to_have_count(1)
    expect(still_open.get_by_role("table", name="Filter", exact=True)).to_contain_text(
        "Insufficient cpu"
    )


def open_pod_page(page: Page) -> None:
    page.get_by_role("link", name=POD).click()
    expect(page.get_by_role("heading", name=f"Pod {POD}")).to_be_visible()
