"""A person's first visit, in a real browser: from the login form to a pod's score table.

One walk through the product's main path, each step asserting what the person sees: log in
(a wrong password first), open the demo workspace, break the scheduler configuration and read
upstream's message as they type, fix it and apply it, create a pod, watch the queue board (open
in another tab, never reloaded) show it bound, and read its attempt's filter and score tables
on its page, without a click.
The weight applied on the way shows up in that score table: the running scheduler took it.
"""

from __future__ import annotations

import re

from playwright.sync_api import Page, expect

from tests.browser.steps import LIVE_TIMEOUT_MS, log_in, mark_page, page_is_the_same
from tests.browser.tables import filter_matrix, ranking, score_table

DEMO_NODES = {
    "control-plane-1",
    "a-small-1",
    "a-medium-1",
    "a-large-1",
    "b-small-1",
    "b-medium-1",
    "b-medium-2",
    "c-small-1",
    "c-medium-1",
    "c-gpu-1",
    "c-gpu-2",
    "t-train-1",
    "t-train-2",
    "t-train-3",
}
NOT_REJECTED = {"✓", "—", "skipped"}
"""Filter cells of a node no plugin rejected: passed, not reached, or skipped at PreFilter."""
IMAGE_LOCALITY_WEIGHT = 5
POD = "default/walker"
POD_YAML = """\
apiVersion: v1
kind: Pod
metadata:
  name: walker
  namespace: default
  labels:
    app: walker
spec:
  containers:
  - name: web
    image: nginx:1.27
    resources:
      requests:
        cpu: 250m
        memory: 256Mi
"""


def test_a_person_walks_from_login_to_a_bound_pods_score_table(context, demo):
    page = context.new_page()
    log_in_after_a_wrong_password(page, demo)
    open_demo_workspace(page)
    apply_a_configuration_after_fixing_it(page)
    board = context.new_page()
    open_queue_board(board)
    create_pod(page)
    node = watch_pod_get_bound(board)
    read_attempt(board, node)


def log_in_after_a_wrong_password(page: Page, demo: dict[str, str]) -> None:
    page.goto("/")
    expect(page.get_by_role("heading", name="Log in")).to_be_visible()
    page.get_by_label("Username").fill(demo["username"])
    page.get_by_label("Password").fill("not the password")
    page.get_by_role("button", name="Log in").click()
    expect(page.locator(".errors")).to_contain_text("Please enter a correct username and password")
    log_in(page, demo)


def open_demo_workspace(page: Page) -> None:
    page.get_by_role("link", name="Demo", exact=True).click()
    expect(page.get_by_role("heading", name="Demo", exact=True)).to_be_visible()
    expect(page.get_by_text("Three zones, mixed node sizes")).to_be_visible()
    # Filled in over the websocket by the scheduler service's state.
    expect(page.locator("#service-state")).to_have_text(
        "scheduler running", timeout=LIVE_TIMEOUT_MS
    )


def apply_a_configuration_after_fixing_it(page: Page) -> None:
    page.get_by_role("link", name="Profile").click()
    expect(page.get_by_role("heading", name="Scheduler configuration")).to_be_visible()
    expect(page.get_by_text("Revision 1 is the latest")).to_be_visible()
    editor = page.get_by_label("KubeSchedulerConfiguration")
    defaults = editor.input_value()
    assert "percentageOfNodesToScore: 0\n" in defaults

    # Typing checks the text: upstream's message and field path, with no submission.
    mark_page(page)
    editor.fill(
        defaults.replace("percentageOfNodesToScore: 0\n", "percentageOfNodesToScore: 120\n")
    )
    problem = page.locator("#config-check li")
    expect(problem).to_have_text(
        "percentageOfNodesToScore: Invalid value: 120: not in valid range [0-100]"
    )
    expect(problem.locator("code")).to_have_text("percentageOfNodesToScore")
    assert page_is_the_same(page), "checking the text must not submit the form"

    page.get_by_role("button", name="Apply").click()
    refusal = page.locator(".flash.error")
    expect(refusal).to_contain_text("Not applied: the configuration has problems.")
    expect(refusal.locator("li")).to_have_text(
        ["percentageOfNodesToScore: Invalid value: 120: not in valid range [0-100]"]
    )
    expect(page.get_by_text("Revision 1 is the latest")).to_be_visible()

    fixed = weighted(defaults, "ImageLocality", IMAGE_LOCALITY_WEIGHT)
    page.get_by_label("KubeSchedulerConfiguration").fill(fixed)
    expect(page.locator("#config-check")).to_contain_text("✓ Valid — 1 profile: default-scheduler")
    page.get_by_label("Note").fill("images count five times")
    page.get_by_role("button", name="Apply").click()
    expect(page.locator(".flash.success")).to_have_text("Revision 2 sent to the scheduler.")
    expect(page.get_by_text("Revision 2 is the latest, by admin.")).to_be_visible()
    expect(
        page.get_by_role("row", name=re.compile(r"^2 \S+ admin .* images count five times"))
    ).to_be_visible()


def open_queue_board(board: Page) -> None:
    board.goto("/w/demo/queue/")
    expect(board.get_by_role("heading", name="Queue")).to_be_visible()
    expect(board.locator("#service-state")).to_have_text(
        "scheduler running", timeout=LIVE_TIMEOUT_MS
    )
    expect(board.locator("#queue-board")).not_to_contain_text(POD)
    mark_page(board)


def create_pod(page: Page) -> None:
    page.get_by_role("link", name="Demo", exact=True).click()
    page.get_by_role("link", name="New pod").click()
    expect(page.get_by_role("heading", name="New object")).to_be_visible()
    page.get_by_label("manifest (YAML)").fill(POD_YAML)
    page.get_by_role("button", name="Create").click()
    expect(page.locator(".flash.success")).to_have_text(f"Saved Pod {POD}.")
    expect(page.get_by_role("heading", name="Pods")).to_be_visible()


def watch_pod_get_bound(board: Page) -> str:
    """The pod appears in the Bound column of the board already open; returns its node."""
    bound = board.locator("#column-bound li", has_text=POD)
    expect(bound).to_be_visible(timeout=LIVE_TIMEOUT_MS)
    assert page_is_the_same(board), "the queue board must update without being reloaded"
    node = re.fullmatch(rf"{POD} on (\S+)", bound.inner_text().strip())
    assert node is not None, bound.inner_text()
    assert node[1] in DEMO_NODES
    return node[1]


def read_attempt(page: Page, node: str) -> None:
    page.locator("#column-bound").get_by_role("link", name=POD).click()
    expect(page.get_by_role("heading", name=f"Pod {POD}")).to_be_visible()
    expect(page.locator("#pod-state")).to_have_text(f"bound on {node}")
    # The latest attempt's tables are on the pod's page: no click needed.
    latest = page.locator("#latest-attempt")
    expect(latest.get_by_role("link", name="Attempt 1", exact=True)).to_be_visible()
    expect(latest.locator(".badge").first).to_have_text("Scheduled")
    trace = latest.locator(".attempt-trace")
    expect(trace.get_by_role("heading", name="Score")).to_be_visible()

    verdicts = filter_matrix(trace.get_by_role("table", name="Filter", exact=True))
    assert set(verdicts) == DEMO_NODES
    assert verdicts["b-small-1"]["NodeUnschedulable"] == "node(s) were unschedulable"
    for tainted in ("control-plane-1", "c-gpu-1", "c-gpu-2"):
        assert verdicts[tainted]["TaintToleration"] == "node(s) had untolerated taint(s)"
    feasible = {name for name, row in verdicts.items() if set(row.values()) <= NOT_REJECTED}
    assert node in feasible

    scores = score_table(trace.get_by_role("table", name="Score", exact=True))
    assert set(scores.totals) == feasible
    assert scores.weights["ImageLocality"] == IMAGE_LOCALITY_WEIGHT  # the applied revision
    assert {"NodeResourcesFit", "NodeResourcesBalancedAllocation"} <= set(scores.weights)
    for name, total in scores.totals.items():
        cells = scores.cells[name]
        assert total == sum(cell.weighted for cell in cells.values()), name
        for plugin, cell in cells.items():
            assert cell.weighted == cell.normalized * scores.weights[plugin], (name, plugin)

    ranks = ranking(trace.locator(".ranking"))
    assert ranks.chosen == node
    assert ranks.scores == scores.totals
    assert ranks.scores[node] == max(scores.totals.values())


def weighted(configuration: str, plugin: str, weight: int) -> str:
    """The default configuration's text with ``plugin``'s multiPoint weight changed."""
    entry = re.compile(rf"(- name: {plugin}\n\s+weight: )\d+\n")
    changed, count = entry.subn(rf"\g<1>{weight}\n", configuration)
    assert count == 1, f"{plugin} is not in the configuration once"
    return changed
