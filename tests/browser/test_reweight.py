"""Reweight in a real browser: a pod the workspace's scheduler placed where two Score plugins
disagree (NodeAffinity wants node-a, NodeResourcesFit node-b); on its attempt page a slider
moves the winner in place, the totals matching what the engine scores when a profile with
those weights schedules the same pod; a tie, a refused weight and Reset; "Compare with these
weights" opens the Compare page with a profile that validates and has the new weights. And the
same panel without JavaScript: number fields and Recompute."""

from __future__ import annotations

import time
from urllib.parse import parse_qs, urlsplit

import pytest
import yaml
from django.contrib.auth import get_user_model
from playwright.sync_api import Page, expect

from framework.simulator import Simulation
from playground.front.configuration import check_configuration
from playground.workspaces.models import (
    AttemptTrace,
    SchedulerConfiguration,
    SchedulingAttempt,
    Workspace,
)
from tests.browser.conftest import TIMEOUT_MS
from tests.browser.steps import LIVE_TIMEOUT_MS, follow_link, log_in, mark_page, page_is_the_same
from tests.playground.front.reweight_scenario import CONFIG, NODES, OBJECTS, WEB, with_weights
from tests.playground.front.rows import store

POD = "default/web"
STILL = "With these weights node-a still wins, with 152."
MOVED = "With these weights node-b would win instead of node-a, with 279."


@pytest.fixture
def disagreeing(demo) -> Workspace:
    """The scenario's nodes, its busy pod on node-a and the pending web pod, scheduled by the
    workspace's own scheduler under the scenario's configuration (revision 1)."""
    admin = get_user_model().objects.get(username=demo["username"])
    workspace = Workspace.objects.create(name="Reweigh", slug="reweigh", owner=admin)
    SchedulerConfiguration.objects.create(workspace=workspace, revision=1, text=CONFIG)
    for manifest in yaml.safe_load_all(NODES + "---\n" + WEB):
        store(workspace, manifest)
    return workspace


def open_the_attempt(page: Page) -> None:
    page.goto("/w/reweigh/pods/")
    follow_link(page, POD)
    first = page.locator("#pod-attempts > tbody > tr").first
    expect(first).to_contain_text("Scheduled", timeout=LIVE_TIMEOUT_MS)
    first.get_by_role("link", name="1", exact=True).click()
    expect(page.get_by_role("heading", name=f"Attempt 1 of pod {POD}")).to_be_visible()


def wait_for_the_attempt(page: Page, url: str) -> None:
    """Loads the attempt's page once the scheduler has stored it and its trace (no live
    updates here): the panel reads the Score tables from the trace, which is written just
    after the attempt's row, so a page loaded in between has no panel yet."""
    deadline = time.monotonic() + LIVE_TIMEOUT_MS / 1000
    while page.goto(url).status == 404 or not panel(page).count():
        assert time.monotonic() < deadline, "the scheduler stored no scored attempt of web"
        page.wait_for_timeout(250)


def panel(page: Page):
    return page.get_by_role("region", name="Reweight")


def ranking(page: Page) -> dict[str, int]:
    """node -> the total the page shows now."""
    rows = panel(page).get_by_role("table", name="Reweighted ranking").locator("tbody tr")
    cells = [row.locator("td").all_inner_texts() for row in rows.all()]
    return {row[0].removesuffix(" ★"): int(row[-2]) for row in cells}  # total: before rank


def engine_totals(config: str) -> tuple[str, dict[str, int]]:
    """Where the engine puts the web pod under ``config``, and its final scores."""
    attempt = Simulation(config, OBJECTS).run()[0].attempt
    return attempt.node, attempt.final_scores


def test_a_slider_moves_the_winner_in_place_as_the_engine_would(disagreeing, context, demo):
    page = context.new_page()
    log_in(page, demo)
    open_the_attempt(page)
    reweight = panel(page)
    verdict = reweight.get_by_role("status")
    expect(verdict).to_have_text(STILL)
    expect(reweight.get_by_role("button", name="Recompute")).to_be_hidden()
    slider = reweight.get_by_label("NodeResourcesFit weight slider")
    expect(slider).to_be_visible()
    mark_page(page)

    slider.fill("3")
    expect(verdict).to_have_text(MOVED)
    expect(reweight.get_by_label("NodeResourcesFit", exact=True)).to_have_value("3")
    shown = ranking(page)
    assert shown == {"node-b": 279, "node-a": 256}
    assert engine_totals(with_weights(1, 3)) == ("node-b", shown)

    reweight.get_by_label("NodeAffinity", exact=True).fill("41")
    reweight.get_by_label("NodeResourcesFit", exact=True).fill("100")
    expect(slider).to_have_value("100")  # beyond its range at first: the slider's range grows
    expect(verdict).to_have_text(
        "With these weights node-a and node-b tie at 9300: "
        "kube-scheduler picks one of them at random."
    )
    expect(reweight.get_by_role("cell", name="1=")).to_have_count(2)

    for affinity, fit in ((0, 2), (5, 1), (1, -1)):  # 0 counts as 1; negative on the last
        reweight.get_by_label("NodeAffinity", exact=True).fill(str(affinity))
        reweight.get_by_label("NodeResourcesFit", exact=True).fill(str(fit))
        node, totals = engine_totals(with_weights(affinity, fit))
        expect(verdict).to_contain_text(f"{node} ")
        shown_now = ranking(page)
        assert (next(iter(shown_now)), shown_now) == (node, totals), (affinity, fit)

    reweight.get_by_label("NodeAffinity", exact=True).fill("2147483648")
    expect(reweight.get_by_role("alert")).to_have_text(
        "weight.NodeAffinity: 2147483648 is out of range: a Score plugin's weight is an int32, "
        "from -2147483648 to 2147483647"
    )
    reweight.get_by_role("link", name="Reset").click()
    expect(verdict).to_have_text(STILL)
    expect(slider).to_have_value("1")
    expect(reweight.get_by_role("alert")).to_have_text("")
    assert page_is_the_same(page), "every change was drawn in place"

    slider.fill("3")
    expect(verdict).to_have_text(MOVED)
    with page.expect_request(
        lambda request: "/compare/" in request.url, timeout=TIMEOUT_MS
    ) as sent:
        reweight.get_by_role("button", name="Compare with these weights").click()
    url = urlsplit(sent.value.url)
    assert url.path == "/w/reweigh/compare/"
    query = parse_qs(url.query)
    assert query["name"] == [f"{POD} attempt 1: NodeResourcesFit 1→3"]
    profile = query["profile"][0]
    checked = check_configuration(profile)
    assert checked.valid, checked.problems
    assert checked.profiles[0].points["score"] == [("NodeAffinity", 1), ("NodeResourcesFit", 3)]
    assert engine_totals(profile) == ("node-b", shown)
    expect(page.get_by_role("heading", name="Compare profiles")).to_be_visible()
    pasted = page.locator("#variant-1")
    expect(pasted.get_by_label("Name", exact=True)).to_have_value(query["name"][0])
    expect(pasted.get_by_label("KubeSchedulerConfiguration")).to_have_value(profile)


def test_without_javascript_the_weights_are_ranked_by_the_server(
    disagreeing, browser, server, demo
):
    session = browser.new_context(base_url=server.url, java_script_enabled=False)
    session.set_default_timeout(TIMEOUT_MS)
    try:
        page = session.new_page()
        log_in(page, demo)
        wait_for_the_attempt(page, "/w/reweigh/pods/web-uid/attempts/1/")
        reweight = panel(page)
        expect(reweight.get_by_label("NodeResourcesFit weight slider")).to_be_hidden()
        reweight.get_by_label("NodeResourcesFit", exact=True).fill("3")
        reweight.get_by_role("button", name="Recompute").click()
        expect(reweight.get_by_role("status")).to_have_text(MOVED)
        assert "weight.NodeResourcesFit=3" in page.url
    finally:
        session.close()


HUGE = (1 << 63) - 50
"""A final score near MaxInt64: an extender's weight is an int64, so its share can be this big."""


@pytest.fixture
def near_overflow(disagreeing) -> str:
    """A stored attempt (the URL of its page) whose Score recorded ImageLocality at 10 on node
    a and 100 on node b, weight 1, and whose extenders gave node a all the rest of HUGE."""
    score = {
        "kind": "extensionPoint",
        "point": "score",
        "pod": "default/wrap",
        "profile": "default-scheduler",
        "code": "Success",
        "data": {
            "nodes": ["a", "b"],
            "weights": {"ImageLocality": 1},
            "raw": {"ImageLocality": [10, 100]},
            "normalized": {"ImageLocality": [10, 100]},
            "totals": [10, 100],
        },
    }
    attempt = SchedulingAttempt.objects.create(
        workspace=disagreeing,
        pod_key="default/wrap",
        pod_uid="wrap-uid",
        profile="default-scheduler",
        result="Scheduled",
        node="a",
        final_scores={"a": HUGE, "b": 100},
    )
    AttemptTrace.pack(attempt, [score]).save()
    return "/w/reweigh/pods/wrap-uid/attempts/1/"


def test_totals_wrap_around_as_go_int64_does_in_the_browser(near_overflow, context, demo):
    page = context.new_page()
    log_in(page, demo)
    page.goto(near_overflow)
    reweight = panel(page)
    verdict = reweight.get_by_role("status")
    expect(verdict).to_have_text(f"With these weights a still wins, with {HUGE}.")
    slider = reweight.get_by_label("ImageLocality weight slider")
    slider.fill("5")  # a: HUGE - 10 + 50, just below MaxInt64
    expect(verdict).to_have_text(f"With these weights a still wins, with {(1 << 63) - 10}.")
    slider.fill("6")  # a: 2**63, one past MaxInt64: the most negative int64
    expect(verdict).to_have_text("With these weights b would win instead of a, with 600.")
    assert ranking(page) == {"b": 600, "a": -(1 << 63)}
    extenders = reweight.get_by_role("table", name="Reweighted ranking").locator(
        "tbody td:nth-child(2)"
    )
    expect(extenders).to_have_text(["0", str(HUGE - 10)], timeout=TIMEOUT_MS)
