"""The step debugger in a real browser: the scheduler stops at a breakpoint and the pages say so;
Step, Continue and Abort answer the stop; the stop survives a reload and shows the same in a
second browser, where a command is applied once; other workspaces keep scheduling; and (with
Redis, where the scheduler runs in a worker process of its own) a worker killed while stopped
hands the workspace to another, which rebuilds and carries on.
"""

from __future__ import annotations

import re
import time
from collections.abc import Iterator

import pytest
from django.conf import settings
from django.contrib.auth import get_user_model
from django.db import connections
from playwright.sync_api import Page, expect

from playground.workspaces.cluster import DatabaseCluster
from playground.workspaces.models import SchedulerCommand, SchedulerLease, Workspace
from tests.browser.server import PlaygroundServer
from tests.browser.steps import (
    LIVE_TIMEOUT_MS,
    create_in_editor,
    follow_link,
    from_the_database,
    log_in,
    mark_page,
    page_is_the_same,
    pod_yaml,
)

LEASE_SECONDS = "5"
"""A short lease, so a killed worker's workspace is taken over within seconds."""
CLICK_ANSWER_MS = 10_000


@pytest.fixture
def server(demo, tmp_path) -> Iterator[PlaygroundServer]:
    """The playground with a short scheduler lease (see LEASE_SECONDS)."""
    env = {"SCHEDULER_LEASE_SECONDS": LEASE_SECONDS}
    playground = PlaygroundServer(connections["default"].settings_dict, tmp_path, env).start()
    yield playground
    playground.stop()


# ----------------------------------------------------------------------------------------------
# Steps


def open_debugger(page: Page, demo: dict[str, str], slug: str = "demo") -> None:
    log_in(page, demo)
    page.goto(f"/w/{slug}/debugger/")
    expect(page.get_by_role("heading", name="Debugger")).to_be_visible()
    expect(page.get_by_test_id("not-stopped")).to_be_visible()


def set_breakpoint(page: Page, point: str, pod: str, node: str = "") -> None:
    form = page.get_by_test_id("breakpoint-form")
    form.get_by_test_id("breakpoint-point").select_option(label=point)
    form.get_by_test_id("breakpoint-pod").fill(pod)
    if node:
        form.get_by_test_id("breakpoint-node").fill(node)
    form.get_by_role("button", name="Set breakpoint").click()
    expect(page.get_by_test_id("breakpoints-note")).to_contain_text("Breakpoint set")
    breakpoints_in_force()


def breakpoints_in_force() -> None:
    """Waits until the scheduler has read the breakpoints (executed every ``breakpoints``
    command): the page says "Breakpoint set" once it is stored, and on a busy machine the
    service may take seconds to start or to reach the command. A pod created before would be
    scheduled without stopping, and the stop waited for in vain."""

    def pending() -> int:
        commands = SchedulerCommand.objects.filter(kind=SchedulerCommand.BREAKPOINTS)
        return commands.filter(done_at__isnull=True).count()

    deadline = time.monotonic() + LIVE_TIMEOUT_MS / 1000
    while from_the_database(pending):
        assert time.monotonic() < deadline, "the scheduler did not read the breakpoints"
        time.sleep(0.05)


def stop_section(page: Page):
    return page.get_by_test_id("debugger-stop")


def heading(page: Page) -> str:
    return stop_section(page).get_by_role("heading").first.inner_text()


def click(page: Page, command: str) -> None:
    stop_section(page).locator(f'button[data-command="{command}"]').click()


def expect_stopped_at(page: Page, text: str, timeout: int = LIVE_TIMEOUT_MS) -> None:
    expect(stop_section(page).get_by_role("heading").first).to_contain_text(
        f"Stopped at {text}", timeout=timeout
    )


def stop_id(page: Page) -> str:
    return stop_section(page).locator('input[name="stop"]').first.get_attribute("value")


def expect_next_stop(page: Page, before: str, timeout: int = CLICK_ANSWER_MS) -> None:
    """Waits for a stop other than ``before``. Between two stops the section says the
    scheduler runs, with an empty stop id: a wait for "not ``before``" alone ends there, and a
    command clicked next would land on the stop after, skipping one (CI saw a Step loop run
    past the end of the attempt that way)."""
    another = re.compile(r"^(?!" + re.escape(before) + r"$).+")
    expect(stop_section(page).locator('input[name="stop"]').first).to_have_attribute(
        "value", another, timeout=timeout
    )


# ----------------------------------------------------------------------------------------------
# Tests


def test_stop_at_score_step_through_its_plugins_continue_and_the_board_said_stopped(context, demo):
    page = context.new_page()
    open_debugger(page, demo)
    set_breakpoint(page, "Score", "default/stepper")
    mark_page(page)
    board = context.new_page()
    board.goto("/w/demo/queue/")

    pod = context.new_page()
    create_in_editor(pod, pod_yaml("stepper", "100m"), "Saved Pod default/stepper.")

    expect_stopped_at(page, "score · ")
    expect(stop_section(page)).to_contain_text("breakpoint score")
    first_plugin = heading(page).removeprefix("Stopped at score · ").strip()
    # The raw scores of the first Score plugin are in, for every node that passed Filter.
    scores = stop_section(page).get_by_role("table", name="Score")
    expect(scores.locator("thead")).to_contain_text(first_plugin)
    assert scores.locator("tbody tr").count() >= 3
    raw = scores.locator("tbody tr").first.locator("td").nth(1).inner_text()
    assert re.fullmatch(r"\d+", raw), raw
    # Every workspace page says where the scheduler stopped; the queue board too.
    where = f"stopped at Score · {first_plugin} · pod default/stepper"
    expect(board.locator("#service-state")).to_have_text(where, timeout=CLICK_ANSWER_MS)
    expect(board.get_by_test_id("stopped-at")).to_contain_text(where.removeprefix("stopped at "))

    # Step through each Score plugin, to the end of the extension point.
    seen = [first_plugin]
    while "(end of the extension point)" not in heading(page):
        before = stop_id(page)
        click(page, "step")
        expect_next_stop(page, before)
        text = heading(page)
        if text.startswith("Stopped at score · ") and "(end of" not in text:
            seen.append(text.removeprefix("Stopped at score · ").strip())
    # Each Score plugin once (NormalizeScore's calls, stepped through as well, come after).
    assert len(seen) >= 3 and len(set(seen)) == len(seen), seen
    assert "NodeResourcesFit" in seen
    expect(stop_section(page).get_by_role("table", name="Score").locator("thead")).to_contain_text(
        seen[-1]
    )

    click(page, "continue")
    expect(page.get_by_test_id("not-stopped")).to_be_visible(timeout=CLICK_ANSWER_MS)
    expect(board.locator("#service-state")).to_have_text(
        "scheduler running", timeout=CLICK_ANSWER_MS
    )
    follow_link(pod, "default/stepper")
    expect(pod.locator("#pod-state")).to_contain_text("bound on", timeout=LIVE_TIMEOUT_MS)
    assert page_is_the_same(page), "the stops came and went without a reload"


def test_a_filter_breakpoint_on_one_node_then_abort_requeues_the_pod_with_its_reason(context, demo):
    page = context.new_page()
    open_debugger(page, demo)
    set_breakpoint(page, "Filter", "default/aborted", node="b-medium-2")

    pod = context.new_page()
    create_in_editor(pod, pod_yaml("aborted", "100m"), "Saved Pod default/aborted.")

    expect_stopped_at(page, "filter · ")
    expect(stop_section(page).get_by_role("heading").first).to_contain_text("node b-medium-2")
    # Filter runs node by node for this cycle: other nodes' verdicts are in, b-medium-2's first.
    matrix = stop_section(page).get_by_role("table", name="Filter", exact=True)
    expect(matrix.get_by_role("row", name=re.compile("b-medium-2"))).to_be_visible()

    click(page, "abort")
    expect(page.get_by_test_id("not-stopped")).to_be_visible(timeout=CLICK_ANSWER_MS)
    follow_link(pod, "default/aborted")
    attempts = pod.locator("#pod-attempts > tbody > tr")
    expect(attempts.first).to_contain_text("Error", timeout=LIVE_TIMEOUT_MS)
    expect(attempts.first).to_contain_text("aborted by the debugger at filter")
    expect(pod.locator("#pod-state")).not_to_contain_text("bound")

    # Requeued, the pod comes back after its backoff, and meets the breakpoint again.
    expect(stop_section(page).get_by_test_id("stop-summary")).to_contain_text(
        "attempt 2", timeout=LIVE_TIMEOUT_MS
    )
    expect(pod.get_by_test_id("debugger-stop")).to_contain_text("Stopped at filter")
    click(page, "run")
    expect(pod.locator("#pod-state")).to_contain_text("bound on", timeout=LIVE_TIMEOUT_MS)


def another_workspace_with_a_node() -> None:
    other = Workspace.objects.create(
        name="Other", slug="other", owner=get_user_model().objects.get(username="admin")
    )
    DatabaseCluster(other).add(
        {
            "apiVersion": "v1",
            "kind": "Node",
            "metadata": {"name": "lone", "labels": {"kubernetes.io/hostname": "lone"}},
            "status": {"allocatable": {"cpu": "8", "memory": "16Gi", "pods": "110"}},
        }
    )


def test_another_workspace_keeps_scheduling_while_one_is_stopped(context, demo):
    from_the_database(another_workspace_with_a_node)
    page = context.new_page()
    open_debugger(page, demo)
    set_breakpoint(page, "PreFilter", "default/held")
    create_in_editor(context.new_page(), pod_yaml("held", "100m"), "Saved Pod default/held.")
    expect_stopped_at(page, "preFilter")

    elsewhere = context.new_page()
    elsewhere.goto("/w/other/objects/new/")
    elsewhere.get_by_label("manifest (YAML)").fill(pod_yaml("free", "100m"))
    elsewhere.get_by_role("button", name="Create").click()
    expect(elsewhere.locator(".flash.success")).to_have_text("Saved Pod default/free.")
    follow_link(elsewhere, "default/free")
    expect(elsewhere.locator("#pod-state")).to_have_text("bound on lone", timeout=LIVE_TIMEOUT_MS)

    page.reload()
    expect_stopped_at(page, "preFilter")  # the demo is still stopped
    click(page, "run")
    expect(page.get_by_test_id("not-stopped")).to_be_visible(timeout=CLICK_ANSWER_MS)


def test_a_stop_survives_a_reload_and_a_second_browser_and_a_command_applies_once(
    context, browser, server, demo
):
    page = context.new_page()
    open_debugger(page, demo)
    set_breakpoint(page, "Reserve", "default/shared")
    create_in_editor(context.new_page(), pod_yaml("shared", "100m"), "Saved Pod default/shared.")
    expect_stopped_at(page, "reserve")
    stopped = stop_id(page)

    page.reload()
    expect_stopped_at(page, "reserve")
    assert stop_id(page) == stopped

    second = browser.new_context(base_url=server.url).new_page()
    open_debugger_stopped(second, demo)
    assert stop_id(second) == stopped
    assert heading(second) == heading(page)

    # Both click Continue on the stop they see: one command applies, the other is told.
    click(page, "continue")
    click(second, "continue")
    expect(page.get_by_test_id("not-stopped")).to_be_visible(timeout=CLICK_ANSWER_MS)
    expect(second.get_by_test_id("not-stopped")).to_be_visible(timeout=CLICK_ANSWER_MS)
    outcomes = debug_outcomes_once_both_are_answered()
    assert outcomes[0].startswith("continue at default/shared attempt 1: reserve")
    assert outcomes[1] == f"ignored: the scheduler is no longer at stop {stopped}"
    second.context.close()


def debug_outcomes_once_both_are_answered() -> list[str]:
    """The two debug commands' outcomes, sorted. The pages show the stop gone as soon as the
    scheduler goes on, a moment before it writes the command it applied as done and answers
    the other one."""
    deadline = time.monotonic() + CLICK_ANSWER_MS / 1000
    while True:
        outcomes = sorted(
            from_the_database(
                lambda: list(
                    SchedulerCommand.objects.filter(kind="debug").values_list("outcome", flat=True)
                )
            )
        )
        if (len(outcomes) == 2 and all(outcomes)) or time.monotonic() > deadline:
            assert len(outcomes) == 2
            return outcomes
        time.sleep(0.05)


def lease_of_the_demo() -> SchedulerLease:
    return SchedulerLease.objects.get(workspace__slug="demo")


def open_debugger_stopped(page: Page, demo: dict[str, str]) -> None:
    log_in(page, demo)
    page.goto("/w/demo/debugger/")
    expect(stop_section(page)).to_contain_text("Stopped at")


@pytest.mark.skipif(
    not settings.REDIS_URL, reason="the scheduler runs in a worker process of its own with Redis"
)
def test_a_worker_killed_while_stopped_hands_the_workspace_over_and_the_pod_is_not_lost(
    context, server, demo
):
    page = context.new_page()
    open_debugger(page, demo)
    set_breakpoint(page, "Permit", "default/survivor")
    pod = context.new_page()
    create_in_editor(pod, pod_yaml("survivor", "100m"), "Saved Pod default/survivor.")
    expect_stopped_at(page, "permit")
    before = stop_id(page)
    holder = from_the_database(lease_of_the_demo).holder

    server.kill_worker()
    server.start_worker()

    # The new worker takes the lapsed lease over, rebuilds from the database (the stop is
    # lost), and the pod, still pending there, reaches the breakpoint again.
    expect_next_stop(page, before, timeout=LIVE_TIMEOUT_MS * 2)
    expect_stopped_at(page, "permit")
    lease = from_the_database(lease_of_the_demo)
    assert lease.holder != holder
    assert stop_id(page).split("-")[0] == str(lease.generation)
    click(page, "continue")
    follow_link(pod, "default/survivor")
    expect(pod.locator("#pod-state")).to_contain_text("bound on", timeout=LIVE_TIMEOUT_MS)
