"""The Permit console with two Permit plugins and two browsers, in real browsers.

The demo workspace is given a profile running WaitForApproval (10 minutes) and
LabelSelectorPermit (5 minutes, for pods labelled ``team: payments``). A payments pod then
waits on both: the console shows each plugin with its own countdown, ticking; approving one
keeps the pod waiting on the other, approving the other binds it. A second pod is decided
from two browser sessions at the same moment, one approving and one rejecting
WaitForApproval: exactly one acts, and both pages say so, the slower one
``already decided: …`` with what the faster did.
"""

from __future__ import annotations

import re

from playwright.sync_api import Page, expect

from tests.browser.steps import LIVE_TIMEOUT_MS, create_in_editor, log_in

TWO_PERMIT_PLUGINS = """\
apiVersion: kubescheduler.config.k8s.io/v1
kind: KubeSchedulerConfiguration
profiles:
- schedulerName: default-scheduler
  plugins:
    permit:
      enabled:
      - name: WaitForApproval
      - name: LabelSelectorPermit
  pluginConfig:
  - name: WaitForApproval
    args: {timeoutSeconds: 600}
  - name: LabelSelectorPermit
    args:
      selector: {matchLabels: {team: payments}}
      timeoutSeconds: 300
"""
PAYMENTS_POD = """\
apiVersion: v1
kind: Pod
metadata:
  name: {name}
  namespace: default
  labels: {{team: payments}}
spec:
  containers:
  - name: app
    image: busybox
    resources:
      requests: {{cpu: 10m, memory: 16Mi}}
"""


def apply_two_permit_plugins(page: Page) -> None:
    page.goto("/w/demo/profile/")
    page.get_by_label("KubeSchedulerConfiguration").fill(TWO_PERMIT_PLUGINS)
    expect(page.locator("#config-check")).to_contain_text("✓ Valid")
    page.get_by_role("button", name="Apply").click()
    expect(page.locator(".flash.success")).to_have_text("Revision 2 sent to the scheduler.")
    expect(page.get_by_test_id("running-configuration")).to_contain_text(
        "runs revision 2", timeout=LIVE_TIMEOUT_MS
    )


def create_payments_pod(page: Page, name: str) -> None:
    create_in_editor(page, PAYMENTS_POD.format(name=name), f"Saved Pod default/{name}.")


def row_of(page: Page, pod: str):
    return page.locator("#permit-console tbody tr").filter(
        has=page.get_by_role("link", name=pod, exact=True)
    )


def plugin_of(page: Page, pod: str, plugin: str):
    return row_of(page, pod).locator(f'[data-plugin="{plugin}"]')


def seconds_shown(page: Page, pod: str, plugin: str) -> float:
    """The countdown as shown: whole seconds once the browser ticks it, the server's tenths
    in the instant after the live socket redrew the console."""
    text = plugin_of(page, pod, plugin).locator(".countdown").inner_text()
    return float(re.fullmatch(r"([0-9.]+) s left", text)[1])


def note(page: Page):
    return page.locator("#permit-note")


def test_a_pod_waits_on_two_plugins_each_with_its_own_countdown(context, demo):
    page = context.new_page()
    log_in(page, demo)
    apply_two_permit_plugins(page)
    create_payments_pod(page, "pay-1")
    page.goto("/w/demo/permit/")
    pod = "default/pay-1"

    expect(row_of(page, pod)).to_be_visible(timeout=LIVE_TIMEOUT_MS)
    expect(plugin_of(page, pod, "WaitForApproval")).to_contain_text("s left")
    expect(plugin_of(page, pod, "LabelSelectorPermit")).to_contain_text("s left")
    first = seconds_shown(page, pod, "WaitForApproval")
    assert 590 <= first <= 600 and 290 <= seconds_shown(page, pod, "LabelSelectorPermit") <= 300
    # The countdowns tick in the browser, each from its own plugin's timeout.
    page.wait_for_timeout(2_100)
    assert seconds_shown(page, pod, "WaitForApproval") < first

    plugin_of(page, pod, "WaitForApproval").get_by_role("button", name="Approve").click()
    expect(note(page)).to_have_text(
        f"{pod}: allowed by WaitForApproval; still waiting for LabelSelectorPermit"
    )
    expect(plugin_of(page, pod, "WaitForApproval")).to_have_count(0, timeout=LIVE_TIMEOUT_MS)
    expect(plugin_of(page, pod, "LabelSelectorPermit")).to_be_visible()

    plugin_of(page, pod, "LabelSelectorPermit").get_by_role("button", name="Approve").click()
    expect(note(page)).to_have_text(f"{pod}: allowed by LabelSelectorPermit")
    expect(row_of(page, pod)).to_have_count(0, timeout=LIVE_TIMEOUT_MS)
    page.goto("/w/demo/pods/")
    bound = page.get_by_role("row").filter(has=page.get_by_role("link", name=pod, exact=True))
    expect(bound).to_contain_text("bound", timeout=LIVE_TIMEOUT_MS)


def test_two_browsers_deciding_at_once_see_exactly_one_outcome(browser, server, demo):
    sessions = [
        browser.new_context(base_url=server.url, viewport={"width": 1400, "height": 1000})
        for _ in range(2)
    ]
    try:
        alice, bob = (session.new_page() for session in sessions)
        for page in (alice, bob):
            log_in(page, demo)
        apply_two_permit_plugins(alice)
        create_payments_pod(alice, "pay-2")
        pod = "default/pay-2"
        for page in (alice, bob):
            page.goto("/w/demo/permit/")
            expect(plugin_of(page, pod, "WaitForApproval")).to_be_visible(timeout=LIVE_TIMEOUT_MS)

        approve = plugin_of(alice, pod, "WaitForApproval").get_by_role("button", name="Approve")
        reject = plugin_of(bob, pod, "WaitForApproval").get_by_role("button", name="Reject")
        # Both clicks are sent before either page hears back (each waits for its outcome).
        approve.click(no_wait_after=True)
        reject.click(no_wait_after=True)

        expect(note(alice)).to_have_text(re.compile(f"^{pod}: "))
        expect(note(bob)).to_have_text(re.compile(f"^{pod}: "))
        said = {
            name: page.locator("#permit-note").inner_text().removeprefix(f"{pod}: ")
            for name, page in (("alice", alice), ("bob", bob))
        }
        decided = [who for who, text in said.items() if text.startswith("already decided: ")]
        assert len(decided) == 1, said
        [winner] = set(said) - set(decided)
        loser_read = said[decided[0]].removeprefix("already decided: ")
        if winner == "alice":
            assert said["alice"].startswith("allowed by WaitForApproval"), said
            assert loser_read == "allowed by WaitForApproval", said
        else:
            assert said["bob"] == "rejected by WaitForApproval", said
            assert loser_read == "rejected by WaitForApproval: rejected in the permit console"
        # Both consoles then show the one outcome: still waiting on LabelSelectorPermit only
        # after the approval, or no longer waiting after the rejection.
        for page in (alice, bob):
            expect(plugin_of(page, pod, "WaitForApproval")).to_have_count(
                0, timeout=LIVE_TIMEOUT_MS
            )
            expect(plugin_of(page, pod, "LabelSelectorPermit")).to_have_count(
                1 if winner == "alice" else 0, timeout=LIVE_TIMEOUT_MS
            )
    finally:
        for session in sessions:
            session.close()
