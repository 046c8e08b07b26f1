"""The Connections pages in a real browser, against the Kubernetes API server for tests.

A person pastes a kubeconfig, is told why its current context fails (401), picks the other
context from the list the page then offers, saves, runs Test connection (the version and every
permission allowed or denied), turns the second scheduler on, which asks first, and is told
401 again once the token has expired. The token never shows: not in any page's HTML, not in
the admin, not in the server's log. A kubeconfig that would run a program is refused next to
its field, with the rest of the form kept.

The browser's playground is another process: it reaches the test API server over HTTPS on
127.0.0.1 (the kubeconfig carries its CA) and encrypts with a key given in its environment.
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest
import yaml
from django.db import connections
from playwright.sync_api import Page, expect

from playground.clusters.encryption import KEY_ENV, KEY_FILE_ENV, generate_key
from playground.clusters.kubeconfig import ALLOW_EXEC_ENV
from playground.clusters.models import ClusterConnection
from tests.browser.server import PlaygroundServer
from tests.browser.steps import from_the_database, log_in

WRONG_TOKEN = "pg-wrong-token-5be1c0de77a9"
DENIED = ("create pods/binding", "delete pods")


@pytest.fixture
def encryption_key(monkeypatch) -> str:
    key = generate_key()
    monkeypatch.setenv(KEY_ENV, key)  # this process reads what the server stored
    monkeypatch.delenv(KEY_FILE_ENV, raising=False)
    monkeypatch.delenv(ALLOW_EXEC_ENV, raising=False)
    return key


@pytest.fixture
def server(demo, tmp_path, encryption_key) -> Iterator[PlaygroundServer]:
    """The playground with its own encryption key, and everything it logs (DEBUG), so that a
    token logged anywhere, by the playground or the kubernetes client, is in the log."""
    env = {KEY_ENV: encryption_key, "LOG_LEVEL": "DEBUG"}
    playground = PlaygroundServer(connections["default"].settings_dict, tmp_path, env).start()
    yield playground
    playground.stop()


def two_contexts(kube_api) -> str:
    """A kubeconfig whose current context ("stale") has a wrong token, and whose "test"
    context has the right one."""
    good = yaml.safe_load(kube_api.kubeconfig_text(context="test"))
    stale = yaml.safe_load(kube_api.kubeconfig_text(context="stale", token=WRONG_TOKEN))
    stale["users"][0]["name"] = "former-admin"
    stale["contexts"][0]["context"]["user"] = "former-admin"
    for key in ("clusters", "users", "contexts"):
        good[key] = stale[key] + good[key]
    good["current-context"] = "stale"
    return yaml.safe_dump(good, sort_keys=False)


def with_exec(kube_api) -> str:
    document = yaml.safe_load(kube_api.kubeconfig_text())
    document["users"][0]["user"] = {
        "exec": {"apiVersion": "client.authentication.k8s.io/v1", "command": "aws-iam-auth"}
    }
    return yaml.safe_dump(document, sort_keys=False)


def assert_no_token(page: Page, *tokens: str) -> None:
    html = page.content()
    assert "{#" not in html and "{%" not in html, f"template syntax shows on {page.url}"
    for token in tokens:
        assert token not in html, f"a token is in the HTML of {page.url}"


def test_a_connection_is_saved_tested_and_switched_on_without_its_token_ever_showing(
    context, demo, kube_api, server
):
    kube_api.deny("create", "pods/binding")
    tokens = (kube_api.token, WRONG_TOKEN)
    page = context.new_page()
    log_in(page, demo)
    page.get_by_role("link", name="Connections", exact=True).click()
    expect(page.get_by_role("heading", name="Connections")).to_be_visible()
    page.get_by_role("link", name="New connection").click()

    page.get_by_label("Name", exact=True).fill("lab")
    page.get_by_label("Kubeconfig", exact=True).fill(two_contexts(kube_api))
    page.get_by_role("button", name="Test and save").click()
    assert_no_token(page, *tokens)
    the_current_context_is_refused_with_401(page)

    page.get_by_label("Context").select_option("test")
    page.get_by_role("button", name="Test and save").click()
    expect(page.get_by_role("heading", name="Connection lab")).to_be_visible()
    expect(page.locator(".flash.success")).to_have_text('Connection "lab" saved.')
    the_report_shows_the_version_and_the_answers(page, DENIED[:1])  # the test before saving
    assert_no_token(page, *tokens)
    stored = from_the_database(lambda: ClusterConnection.objects.get(name="lab"))

    kube_api.deny("delete", "pods")
    page.get_by_role("button", name="Test connection").click()
    the_report_shows_the_version_and_the_answers(page, DENIED)
    assert page.url.endswith(stored.get_absolute_url()), "Test connection redirects back"
    page.reload()  # shows the stored report again, without sending the form again
    the_report_shows_the_version_and_the_answers(page, DENIED)
    assert_no_token(page, *tokens)

    assert stored.context == "test"
    assert kube_api.token not in stored.kubeconfig_encrypted
    assert kube_api.token in stored.kubeconfig_text()  # it is the right one, encrypted
    page.goto(f"/admin/clusters/clusterconnection/{stored.pk}/change/")
    expect(page.get_by_text("stored encrypted", exact=False)).to_be_visible()
    assert_no_token(page, *tokens)

    page.goto(stored.get_absolute_url())
    turning_the_second_scheduler_on_asks_first(page)
    assert_no_token(page, *tokens)
    assert from_the_database(lambda: ClusterConnection.objects.get(name="lab").second_scheduler)

    kube_api.expire_token()
    a_token_that_expired_is_named_401_on_the_page_and_in_the_list(page)
    assert_no_token(page, *tokens)

    log = server.log_path.read_text(errors="replace")
    assert "/connections/" in log, "the log holds the requests: checking it means something"
    for token in tokens:
        assert token not in log


def the_current_context_is_refused_with_401(page: Page) -> None:
    problem = page.locator("#connection-problem")
    expect(problem).to_contain_text("401 Unauthorized")
    expect(problem).to_be_in_viewport()  # in sight after the submit, without scrolling
    expect(page.get_by_text("The kubeconfig you gave is kept")).to_be_visible()
    context = page.get_by_label("Context")
    expect(context.locator("option")).to_have_text(["stale", "test"])
    expect(context).to_have_value("stale")
    expect(page.get_by_label("Name", exact=True)).to_have_value("lab")
    assert not from_the_database(lambda: ClusterConnection.objects.exists())


def the_report_shows_the_version_and_the_answers(page: Page, denied: tuple[str, ...]) -> None:
    expect(page.locator("#server-version")).to_have_text("v1.36.2")
    rows = page.locator("#access-report tbody tr")
    expect(rows.first).to_be_visible()
    expect(rows.filter(has_text="denied")).to_have_count(len(denied))
    answers = {
        row.get_attribute("data-permission"): row.locator("td").nth(2).inner_text().strip()
        for row in rows.all()
    }
    assert len(answers) > len(DENIED)
    for label, answer in answers.items():
        assert answer == ("denied" if label in denied else "allowed"), label


def turning_the_second_scheduler_on_asks_first(page: Page) -> None:
    page.get_by_role("link", name="Settings").click()
    page.get_by_label("Second scheduler").check()
    page.get_by_role("button", name="Save").click()
    confirmation = page.locator("#confirm-second-scheduler")
    expect(confirmation).to_contain_text("The second scheduler binds real pods.")
    expect(confirmation).to_contain_text("denied: create pods/binding.")
    expect(confirmation).not_to_contain_text("delete pods")  # preemption stays off
    expect(page.get_by_label("Second scheduler")).to_be_checked()
    assert not from_the_database(lambda: ClusterConnection.objects.get().second_scheduler)

    page.get_by_label("Yes, schedule this cluster's real pods").check()
    page.get_by_role("button", name="Save").click()
    expect(page.locator(".flash.success")).to_have_text('Connection "lab" updated.')
    expect(page.locator("dt:has-text('Second scheduler') + dd")).to_have_text("on")


def a_token_that_expired_is_named_401_on_the_page_and_in_the_list(page: Page) -> None:
    page.get_by_role("button", name="Test connection").click()
    expect(page.locator("#connection-problem")).to_contain_text(
        "401 Unauthorized: the API server rejected the credentials"
    )
    expect(page.locator("#server-version")).to_have_count(0)
    page.get_by_role("link", name="Connections", exact=True).click()
    row = page.get_by_role("row").filter(has=page.get_by_role("link", name="lab"))
    expect(row.locator("td").last).to_have_text("failed")


def test_a_kubeconfig_that_runs_a_program_is_refused_next_to_its_field(
    context, demo, kube_api, server
):
    page = context.new_page()
    log_in(page, demo)
    page.goto("/connections/new/")
    page.get_by_label("Name", exact=True).fill("eks")
    page.get_by_label("Kubeconfig", exact=True).fill(with_exec(kube_api))
    page.get_by_label("Namespaces").fill("shop, web")
    page.get_by_label("Label selector").fill("tier in (a,b)")
    page.get_by_role("button", name="Test and save").click()

    error = page.locator("#error-kubeconfig")
    expect(error).to_contain_text("users[0].user.exec: refused")
    field = page.locator("textarea[name=kubeconfig]")
    under = field.bounding_box()["y"] + field.bounding_box()["height"]
    assert 0 <= error.bounding_box()["y"] - under < 60, "the error is right under the field"
    expect(page.get_by_label("Name", exact=True)).to_have_value("eks")
    expect(page.get_by_label("Namespaces")).to_have_value("shop, web")
    expect(page.get_by_label("Label selector")).to_have_value("tier in (a,b)")
    assert_no_token(page, kube_api.token)
    assert not from_the_database(lambda: ClusterConnection.objects.exists())
    assert not kube_api.requests, "nothing was sent to the server"
