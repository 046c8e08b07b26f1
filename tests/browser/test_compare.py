"""The Compare page in a real browser: a snapshot scheduled under three profiles, the
progress while they run, one variant cancelled, the result side by side, and a pod that
landed differently followed to its attempt in two variants and stepped through."""

from __future__ import annotations

import re

import yaml
from playwright.sync_api import Page, expect

from tests.browser.steps import log_in
from tests.playground.compare.scenario import BIN_PACKING, SPREADING
from tests.playground.front.rows import node, pod

NODES, PENDING = 40, 1200
"""Enough pods that the variants run for seconds: long enough to see them and cancel one."""
RESULT_TIMEOUT_MS = 120_000


def snapshot() -> str:
    objects = [node(f"node-{n:02}") for n in range(NODES)]
    objects += [pod(f"web-{n:04}", cpu="100m", memory="64Mi") for n in range(PENDING)]
    return yaml.safe_dump_all(objects, default_flow_style=True, width=10_000)


def test_a_person_compares_three_profiles_cancels_one_and_follows_a_differing_pod(context, demo):
    page = context.new_page()
    log_in(page, demo)
    page.goto("/w/demo/")
    page.get_by_role("link", name="Compare", exact=True).click()
    expect(page.get_by_role("heading", name="Compare profiles")).to_be_visible()
    fill_the_form(page)
    page.get_by_role("button", name="Run").click()

    expect(page.get_by_role("heading", name=re.compile(r"Comparison \d+"))).to_be_visible()
    expect(page.get_by_label("Progress of packing")).to_be_visible()
    page.get_by_role("button", name="Cancel spreading").click()
    expect(variant_row(page, 2)).to_have_attribute("data-state", "cancelled")
    expect(page.locator("#comparison-state")).to_have_text("done", timeout=RESULT_TIMEOUT_MS)

    metrics = page.locator("#metrics")
    expect(metrics.locator("thead th")).to_have_text(["Metric", "revision 1", "packing"])
    expect(metrics.locator("td.better").first).to_be_visible()
    expect(page.get_by_role("img", name="Utilization histogram of packing")).to_be_visible()
    expect(page.get_by_role("img", name="Node by profile heatmap")).to_be_visible()

    first = page.locator("#differing-pods tbody tr").first
    pod_key = first.get_attribute("data-pod")
    links = first.locator("a.attempt-link")
    expect(links).to_have_count(2)
    nodes = [cell.split(" · ")[0] for cell in first.locator("td").all_inner_texts()[1:]]
    assert nodes[0] != nodes[1], nodes
    result_url = page.url

    for link_name, node_name, variant in (
        ("attempts in revision 1", nodes[0], "revision 1"),
        ("attempts in packing", nodes[1], "packing"),
    ):
        page.goto(result_url)
        page.locator(f'#differing-pods tr[data-pod="{pod_key}"]').get_by_role(
            "link", name=link_name
        ).click()
        heading = f"Attempt 1 of pod {pod_key} under {variant}"
        expect(page.get_by_role("heading", name=heading)).to_be_visible()
        expect(page.locator("main")).to_contain_text(f"on {node_name}")
        expect(page.locator(".ranking .chosen").first).to_contain_text(node_name)
    page.get_by_role("link", name="Step through").click()
    expect(page.locator("#replay-position")).to_contain_text("0 of")
    page.get_by_role("link", name="Last", exact=True).click()
    expect(page.locator("#replay-forward")).to_have_count(0)


def fill_the_form(page: Page) -> None:
    page.get_by_label("a snapshot").check()
    page.get_by_label("Paste objects").fill(snapshot())
    for index, (name, text) in enumerate((("packing", BIN_PACKING), ("spreading", SPREADING))):
        slot = page.locator(f"#variant-{index + 1}")
        slot.get_by_label("Use").select_option("yaml")
        slot.get_by_label("Name", exact=True).fill(name)
        slot.get_by_label("KubeSchedulerConfiguration").fill(text)


def variant_row(page: Page, index: int):
    return page.locator(f"#variant-{index}")
