"""What a new person looks for first, in a real browser: a workspace of their own with the demo
cluster in it, and how to make pods wait at Permit for their decision.

The first test creates a workspace from the form, choosing the demo cluster, and finds its
nodes and pods (its scheduler places the pending ones). The second starts from the empty Permit
page: its hint links to the profile form with WaitForApproval already enabled at permit; once
applied, a new pod waits on the Permit page (its row's cells lined up) until it is approved.
"""

from __future__ import annotations

import re

from playwright.sync_api import Page, expect

from playground.workspaces.demo import demo_nodes
from tests.browser.steps import LIVE_TIMEOUT_MS, create_in_editor, log_in

DEMO_NODES = [node["metadata"]["name"] for node in demo_nodes()]
DEMO_PODS = ("kube-system/coredns-1", "shop/urgent", "shop/web-0", "batch/nightly", "batch/huge")
POD = "default/patient"
POD_YAML = """\
apiVersion: v1
kind: Pod
metadata:
  name: patient
  namespace: default
spec:
  containers:
  - name: app
    image: nginx:1.27
    resources:
      requests:
        cpu: 100m
        memory: 64Mi
"""
CELL_BOXES = (
    "row => [...row.cells].map(c => { const b = c.getBoundingClientRect(); "
    "return [b.top, b.bottom]; })"
)


def test_a_workspace_created_with_the_demo_cluster_shows_its_nodes_and_pods(context, demo):
    page = context.new_page()
    log_in(page, demo)

    page.get_by_label("Name").fill("Trial")
    page.get_by_role("radio", name=re.compile("^the demo cluster")).check()
    page.get_by_role("button", name="Create").click()
    expect(page.get_by_role("heading", name="Trial", exact=True)).to_be_visible()
    assert page.url.endswith("/w/trial/")

    page.get_by_role("link", name="Nodes", exact=True).click()
    for node in DEMO_NODES:
        expect(page.get_by_role("link", name=node, exact=True)).to_be_visible()

    page.get_by_role("link", name="Pods", exact=True).click()
    for pod in DEMO_PODS:
        expect(page.get_by_role("link", name=pod, exact=True)).to_be_visible()
    # The new workspace's own scheduler places its pending pods.
    web = page.get_by_role("row").filter(has=page.get_by_role("link", name="shop/web-0"))
    expect(web).to_contain_text("bound", timeout=LIVE_TIMEOUT_MS)


def test_the_empty_permit_page_leads_to_the_profile_form_that_makes_pods_wait(context, demo):
    page = context.new_page()
    log_in(page, demo)
    page.get_by_role("link", name="Demo", exact=True).click()
    page.get_by_role("link", name="Permit", exact=True).click()

    expect(page.get_by_text("No pod waits at Permit.")).to_be_visible()
    expect(page.locator("#permit-console")).to_contain_text(
        "enable WaitForApproval at the permit extension point"
    )
    page.get_by_role("link", name="Enable WaitForApproval at permit…").click()

    enable_it_in_the_profile_form(page)
    create_pod(page)
    approve_it_on_the_permit_page(page)


def enable_it_in_the_profile_form(page: Page) -> None:
    expect(page.get_by_role("heading", name="Scheduler configuration")).to_be_visible()
    expect(page.locator(".flash").first).to_have_text(
        "WaitForApproval is enabled at permit in this draft: Apply hands it to the scheduler."
    )
    expect(page.locator("#point-permit")).to_contain_text("WaitForApproval")
    expect(page.locator("#config-check")).to_contain_text("✓ Valid")
    assert "WaitForApproval" in page.get_by_label("KubeSchedulerConfiguration").input_value()
    page.get_by_role("button", name="Apply").click()
    expect(page.locator(".flash.success")).to_have_text("Revision 2 sent to the scheduler.")


def create_pod(page: Page) -> None:
    create_in_editor(page, POD_YAML, f"Saved Pod {POD}.")


def approve_it_on_the_permit_page(page: Page) -> None:
    page.get_by_role("link", name="Permit", exact=True).click()
    row = page.locator("#permit-console tbody tr").filter(
        has=page.get_by_role("link", name=POD, exact=True)
    )
    expect(row).to_contain_text("WaitForApproval", timeout=LIVE_TIMEOUT_MS)
    tops_and_bottoms = {tuple(box) for box in row.evaluate(CELL_BOXES)}
    assert len(tops_and_bottoms) == 1, f"the row's cells do not line up: {tops_and_bottoms}"

    row.get_by_role("button", name="Approve all").click()
    page.get_by_role("link", name="Pods", exact=True).click()
    pod = page.get_by_role("row").filter(has=page.get_by_role("link", name=POD, exact=True))
    expect(pod).to_contain_text("bound", timeout=LIVE_TIMEOUT_MS)
