"""Steps that several browser tests take as a person would: log in, tell a page that was
updated in place from one that was reloaded; and the pods they create."""

from __future__ import annotations

from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from typing import TypeVar

from django.db import connections
from playwright.sync_api import Page, expect

T = TypeVar("T")

LIVE_TIMEOUT_MS = 30_000
"""How long the scheduler may take to place a pod and the websocket to show it."""


def log_in(page: Page, demo: dict[str, str]) -> None:
    """From the front door through the login form to the list of workspaces."""
    page.goto("/")
    expect(page.get_by_role("heading", name="Log in")).to_be_visible()
    page.get_by_label("Username").fill(demo["username"])
    page.get_by_label("Password").fill(demo["password"])
    page.get_by_role("button", name="Log in").click()
    expect(page.get_by_role("heading", name="Workspaces")).to_be_visible()
    expect(page.locator(".account")).to_contain_text(demo["username"])


def create_in_editor(page: Page, manifest: str, saved: str) -> None:
    """Creates an object of the demo workspace in the YAML editor; ``saved`` is the flash."""
    page.goto("/w/demo/objects/new/")
    page.get_by_label("manifest (YAML)").fill(manifest)
    page.get_by_role("button", name="Create").click()
    expect(page.locator(".flash.success")).to_have_text(saved)


def follow_link(page: Page, name: str) -> None:
    """Opens the page a link leads to, as a click would, from a table the websocket redraws:
    a click can land on a row just swapped out, and then nothing opens."""
    page.goto(page.get_by_role("link", name=name, exact=True).get_attribute("href"))


def mark_page(page: Page) -> None:
    """A mark on the window: a navigation or a reload would lose it."""
    page.evaluate("window.browserTestMark = 'same page'")


def page_is_the_same(page: Page) -> bool:
    return page.evaluate("window.browserTestMark") == "same page"


POD_YAML = """\
apiVersion: v1
kind: Pod
metadata:
  name: {name}
  namespace: default
  labels: {labels}
spec:
  containers:
  - name: app
    image: busybox
    resources:
      requests:
        cpu: "{cpu}"
        memory: 16Mi
"""


def bulk_create(page: Page, name: str, cpu: str, count: int) -> None:
    """``count`` pods named ``name-N`` requesting ``cpu``, labelled ``app: <name>``, from the
    bulk form of the demo workspace."""
    page.goto("/w/demo/transfer/?kind=Pod")
    page.get_by_label("Template").fill(pod_yaml(name, cpu, label=name))
    page.get_by_label("How many").fill(str(count))
    page.get_by_role("button", name="Create").click()
    expect(page.locator("#bulk")).to_contain_text(f"{count} of {count} created")


def pod_yaml(name: str, cpu: str, label: str = "") -> str:
    """A pod in the default namespace requesting ``cpu``, labelled ``app: <label>`` if given."""
    labels = f"{{app: {label}}}" if label else "{}"
    return POD_YAML.format(name=name, cpu=cpu, labels=labels)


def from_the_database(call: Callable[[], T]) -> T:
    """Runs an ORM call on a thread of its own: while Playwright runs, Django refuses database
    calls on the test's thread (its event loop counts as running there)."""

    def in_a_thread() -> T:
        try:
            return call()
        finally:
            connections.close_all()

    with ThreadPoolExecutor(1) as pool:
        return pool.submit(in_a_thread).result()
