"""Why pending, in a real browser against the workspace's own scheduler: a pod that fits
nowhere gets its panel under the latest attempt once the scheduler has tried it (the reasons
as bars, the plugin that rejected most in its own colour, the closest node with what it
lacks and the missing part of its usage bar, a countdown to its next try that moves), and the
pods list gives the short why in a tooltip on hover. And a pod placed by preemption: its
first attempt's page names the node nominated and the criterion that decided."""

from __future__ import annotations

import pytest
from django.contrib.auth import get_user_model
from playwright.sync_api import Page, expect

from playground.workspaces.cluster import DatabaseCluster
from playground.workspaces.models import Workspace
from tests.browser.steps import LIVE_TIMEOUT_MS, log_in
from tests.playground.front.explain_scenario import preempting_objects, stuck_objects
from tests.playground.front.rows import store


@pytest.fixture
def stuck(demo) -> Workspace:
    """The scenario's nodes, the pod running on node-a and the big pod, which fits nowhere."""
    admin = get_user_model().objects.get(username=demo["username"])
    workspace = Workspace.objects.create(name="Why", slug="why", owner=admin)
    for manifest in stuck_objects():
        store(workspace, manifest)
    return workspace


def why_panel(page: Page):
    return page.get_by_role("region", name="Why pending")


def test_the_pod_page_shows_why_the_pod_is_pending(stuck, context, demo):
    page = context.new_page()
    log_in(page, demo)
    page.goto("/w/why/pods/uid-big/")
    panel = why_panel(page)
    expect(panel).to_be_visible(timeout=LIVE_TIMEOUT_MS)

    # The reasons as bars, NodeResourcesFit (2 of 3 nodes) the one that rejected most.
    reasons = panel.get_by_role("table", name="Reasons across nodes")
    most = reasons.locator("tr.most-rejecting")
    expect(most).to_contain_text("NodeResourcesFit")
    expect(most).to_contain_text("Insufficient cpu")
    expect(most.get_by_role("img", name="2 of 3 nodes")).to_be_visible()
    expect(reasons.locator("svg.reason-bar")).to_have_count(2)

    # The closest node and what it lacks, the missing CPU marked on its usage bar.
    closest = panel.get_by_role("list", name="Closest nodes").locator('li[data-node="node-a"]')
    expect(closest).to_contain_text("needs 1.5 CPU more: 2.5 free of 4")
    expect(closest.locator("rect.short")).to_have_count(1)
    expect(closest.get_by_role("img", name="cpu: needs 4, 2.5 free of 4")).to_be_visible()
    expect(panel.get_by_role("list", name="What would requeue it")).to_contain_text(
        "NodeResourcesFit"
    )

    # Its next try, counted down in the browser.
    countdown = panel.locator(".countdown")
    expect(countdown).to_be_visible()
    before = seconds(countdown.inner_text())
    page.wait_for_timeout(1500)
    after = seconds(countdown.inner_text())
    assert 0 < after < before, (before, after)


def test_the_pods_list_gives_the_short_why_on_hover(stuck, context, demo):
    page = context.new_page()
    log_in(page, demo)
    page.goto("/w/why/pods/")
    row = page.get_by_role("row").filter(has_text="default/big")
    expect(row.locator(".badge")).to_have_text("unschedulable", timeout=LIVE_TIMEOUT_MS)
    expect(
        page.get_by_role("row").filter(has_text="default/busy").locator(".why-tip")
    ).to_have_count(0)
    tip = row.get_by_role("tooltip")
    expect(tip).to_be_hidden()
    row.locator(".why-tip").hover()
    expect(tip).to_be_visible()
    expect(tip).to_contain_text("NodeResourcesFit rejected 2 of 3 nodes; closest: ")


def seconds(text: str) -> float:
    """The countdown's figure ("287 s left") in seconds."""
    return float(text.split()[0])


@pytest.fixture
def preempting(demo) -> Workspace:
    """Two nodes, each full with one pod (priorities 10 and 5), and a pod of priority 1000 that
    fits only by evicting one: the workspace's scheduler preempts node-b's."""
    admin = get_user_model().objects.get(username=demo["username"])
    workspace = Workspace.objects.create(name="Preempt", slug="preempt", owner=admin)
    cluster = DatabaseCluster(workspace)  # admitted: priorities resolved from their classes
    objects, preemptor = preempting_objects()
    for manifest in [*objects, preemptor]:
        cluster.add(manifest)
    return workspace


def test_the_attempt_page_explains_the_preemption(preempting, context, demo):
    page = context.new_page()
    log_in(page, demo)
    page.goto("/w/preempt/pods/uid-urgent/")
    expect(page.locator("#pod-state")).to_contain_text("bound on node-b", timeout=LIVE_TIMEOUT_MS)
    page.goto("/w/preempt/pods/uid-urgent/attempts/1/")
    panel = page.get_by_role("region", name="Preemption")
    expect(panel.get_by_test_id("nominated-node")).to_have_text("node-b")
    expect(panel.get_by_test_id("decided-by")).to_have_text("highest-priority victim lowest")
    criteria = panel.get_by_role("list", name="Criteria in kube-scheduler's order")
    expect(criteria.locator("li.decided")).to_have_text("highest-priority victim lowest ← decided")
    candidates = panel.get_by_role("table", name="Candidate nodes")
    expect(candidates.locator("tr.nominated")).to_contain_text("default/victim-b (5)")
