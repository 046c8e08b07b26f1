"""What-if in a real browser: from the workspace's navigation to the page, a pasted pod run
through the default profile, its filter matrix and selected node swapped in, and nothing
stored."""

from __future__ import annotations

import re

from playwright.sync_api import expect

from playground.workspaces.models import ClusterObject, SchedulingAttempt
from tests.browser.steps import from_the_database, log_in, mark_page, page_is_the_same, pod_yaml

POD = "default/what-if-web"


def stored_rows() -> tuple[int, int]:
    """Rows about the what-if's pod (the demo's own scheduler stores its attempts meanwhile)."""
    return (
        SchedulingAttempt.objects.filter(pod_key=POD).count(),
        ClusterObject.objects.filter(kind="Pod", namespace="default", name="what-if-web").count(),
    )


def test_a_person_runs_a_pasted_pod_through_a_profile_and_sees_its_trace(context, demo):
    page = context.new_page()
    log_in(page, demo)
    page.goto("/w/demo/")
    page.get_by_role("navigation").get_by_role("link", name="What-if").click()
    expect(page.get_by_role("heading", name="What-if")).to_be_visible()
    mark_page(page)

    page.get_by_label("Or a pod manifest (YAML or JSON)").fill(pod_yaml("what-if-web", "500m"))
    page.get_by_role("button", name="Run what-if").click()

    outcome = page.get_by_role("region", name="Outcome")
    expect(outcome.get_by_role("heading", level=2)).to_have_text(
        f"Pod {POD} through profile default-scheduler"
    )
    expect(outcome).to_contain_text("Nothing was written.")
    matrix = outcome.get_by_role("table", name="Filter")
    expect(matrix).to_be_visible()
    expect(matrix.locator("td.fail").first).to_be_visible()  # the tainted and cordoned nodes
    selected = outcome.locator("p", has_text="selected node").locator("strong")
    node = selected.inner_text()
    assert re.fullmatch(r"[a-z]-[a-z]+-\d", node), node
    expect(outcome.locator(".ranking .chosen").first).to_have_text(f"{node} ★")
    expect(page.get_by_label("Or a pod manifest (YAML or JSON)")).to_have_value(
        pod_yaml("what-if-web", "500m")
    )
    assert page_is_the_same(page), "the outcome is swapped in, the page is not reloaded"
    assert from_the_database(stored_rows) == (0, 0), "no attempt and no pod were stored"
