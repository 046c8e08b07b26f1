"""The PodGroups page and a group's page in a real browser, with the workspace's scheduler
running the pod-group cycle (gates GenericWorkload and GangScheduling): a gang held at
PreEnqueue until its last member exists, then placed whole, its quorum bar filling without a
reload; a gang that cannot fit, with the reason on both pages; and the debugger stopped as a
gang's cycle starts.

The groups are stored straight into the database (the import and the editor do not take them
yet, docs/workloads.md); the member that completes the gang is added through the workspace's
cluster, as the editor would, so the scheduler hears of it."""

from __future__ import annotations

import pytest
from django.contrib.auth import get_user_model
from playwright.sync_api import Page, expect

from playground.workspaces.cluster import DatabaseCluster
from playground.workspaces.models import SchedulerConfiguration, Workspace
from tests.browser.steps import (
    LIVE_TIMEOUT_MS,
    follow_link,
    from_the_database,
    log_in,
    mark_page,
    page_is_the_same,
)
from tests.browser.test_debugger import (
    CLICK_ANSWER_MS,
    click,
    expect_stopped_at,
    open_debugger,
    set_breakpoint,
    stop_section,
)
from tests.browser.test_debugger_page import row_of
from tests.playground.front.rows import node, store
from tests.playground.front.test_pod_groups_page import member, pod_group

GATES = "GenericWorkload=true,GangScheduling=true"
CONFIGURATION = "apiVersion: kubescheduler.config.k8s.io/v1\nkind: KubeSchedulerConfiguration\n"
GONE_SHORT = "pod group is unschedulable"


@pytest.fixture
def gangs(demo) -> Workspace:
    """Two workers of 4 CPUs; ``trainer``, a gang of 3 x 1 CPU with two members so far; and
    ``giant``, a gang of 3 x 3 CPUs, of which only two fit."""
    admin = get_user_model().objects.get(username=demo["username"])
    workspace = Workspace.objects.create(name="Gangs", slug="gangs", owner=admin)
    SchedulerConfiguration.objects.create(
        workspace=workspace, revision=1, text=CONFIGURATION, feature_gates=GATES
    )
    for name in ("w0", "w1"):
        store(workspace, node(name, cpu="4"))
    store(workspace, pod_group("trainer", 3))
    for name in ("trainer-0", "trainer-1"):
        store(workspace, member(name, "trainer", cpu="1"))
    store(workspace, pod_group("giant", 3))
    for index in range(3):
        store(workspace, member(f"giant-{index}", "giant", cpu="3"))
    return workspace


def test_a_gangs_quorum_bar_fills_live_and_a_gang_that_cannot_fit_says_why(gangs, context, demo):
    page = context.new_page()
    log_in(page, demo)
    page.goto("/w/gangs/")
    # The top bar shifts as the new workspace's scheduler starts (its badge grows): a click
    # could press one place and let go of another, and open nothing (CI saw it once).
    follow_link(page, "Pod groups")
    expect(page.get_by_role("heading", name="Pod groups", exact=True)).to_be_visible()

    trainer = group_panel(page, "default/trainer")
    expect(trainer.locator(".quorum-text")).to_have_text("0 of 3 placed, waiting for 3")
    expect(trainer.get_by_role("row", name="default/trainer-0")).to_contain_text(
        "held at PreEnqueue by GangScheduling", timeout=LIVE_TIMEOUT_MS
    )
    expect(trainer.locator(".condition")).to_contain_text("not set yet")
    mark_page(page)

    from_the_database(lambda: DatabaseCluster(gangs).add(member("trainer-2", "trainer", cpu="1")))

    expect(trainer.locator(".quorum-text")).to_have_text("3 of 3 placed", timeout=LIVE_TIMEOUT_MS)
    expect(trainer.locator(".condition")).to_contain_text("True Scheduled")
    for index in range(3):
        row = trainer.get_by_role("row", name=f"default/trainer-{index}")
        expect(row).to_contain_text("bound", timeout=LIVE_TIMEOUT_MS)
    assert page_is_the_same(page), "the groups were redrawn without a reload"
    page.set_viewport_size({"width": 1280, "height": 900})
    brand = row_of(page, "header.topbar .brand")
    assert abs(row_of(page, "header.topbar .account") - brand) < 4, "the top bar keeps to a row"

    giant = group_panel(page, "default/giant")
    expect(giant.locator(".condition")).to_contain_text(
        f"False Unschedulable {GONE_SHORT}", timeout=LIVE_TIMEOUT_MS
    )
    expect(giant.locator(".quorum-text")).to_contain_text("of 3 placed, waiting for")


def test_a_groups_page_shows_why_it_failed_and_what_each_member_was_tried_on(gangs, context, demo):
    page = context.new_page()
    log_in(page, demo)
    page.goto("/w/gangs/pod-groups/")
    follow_link(page, "default/giant")
    expect(page.get_by_role("heading", name="Pod group default/giant")).to_be_visible()

    why = page.get_by_role("region", name="Why the group failed")
    expect(why).to_contain_text(
        f"PodGroupScheduled Unschedulable: {GONE_SHORT}", timeout=LIVE_TIMEOUT_MS
    )
    # One member fits nowhere once two are placed; the two that fit wait for the quorum.
    expect(why).to_contain_text("0/2 nodes are available: 2 Insufficient cpu.")
    expect(why).to_contain_text(
        f"{GONE_SHORT}, waiting for minCount pods from a gang to be scheduled"
    )
    for index in range(3):
        attempt = page.get_by_role("region", name=f"Attempt of default/giant-{index}")
        expect(attempt.get_by_role("table", name="Filter", exact=True)).to_be_visible(
            timeout=LIVE_TIMEOUT_MS
        )


def group_panel(page: Page, key: str):
    return page.get_by_role("region", name=f"Pod group {key}")


def test_the_debugger_stops_as_a_gangs_cycle_starts_and_steps_into_its_first_member(
    gangs, context, demo
):
    page = context.new_page()
    open_debugger(page, demo, slug="gangs")
    set_breakpoint(page, "Pod group cycle", "default/trainer-2")

    from_the_database(lambda: DatabaseCluster(gangs).add(member("trainer-2", "trainer", cpu="1")))

    expect_stopped_at(page, "the cycle of pod group default/trainer")
    summary = stop_section(page).get_by_test_id("stop-summary")
    expect(summary).to_contain_text("Members, in the order the cycle tries them: default/trainer-")
    expect(summary).to_contain_text("breakpoint podGroup pod default/trainer-2")
    first = summary.locator("strong").first.inner_text()

    click(page, "next")  # the end of the first member's first extension point
    expect_stopped_at(page, "preFilter", timeout=CLICK_ANSWER_MS)
    expect(stop_section(page).get_by_test_id("stop-summary")).to_contain_text(f"Pod {first}")

    click(page, "run")
    expect(page.get_by_test_id("not-stopped")).to_be_visible(timeout=CLICK_ANSWER_MS)
    page.goto("/w/gangs/pod-groups/")
    expect(group_panel(page, "default/trainer").locator(".quorum-text")).to_have_text(
        "3 of 3 placed", timeout=LIVE_TIMEOUT_MS
    )
