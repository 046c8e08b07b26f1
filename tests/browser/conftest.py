"""Browser tests: Debian's headless Chromium, driven by Playwright, against a live playground.

Chromium is Debian's package (``scripts/test`` installs it when missing): a test tool's own
browser download cannot be fetched on these machines. Without it the tests skip, saying why,
except under CI=true, where they must run: there a missing browser fails them.

When a test fails, a screenshot of each of its pages and the server's log are kept under
``var/browser-failures/`` (git-ignored).
"""

from __future__ import annotations

import contextlib
import io
import os
import re
import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest
from django.conf import global_settings
from django.core.management import call_command
from django.db import connections

from tests.browser.server import ROOT, PlaygroundServer

CHROMIUM = Path(os.getenv("CHROMIUM", "/usr/bin/chromium"))
CHROMIUM_ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    # Without these Chromium keeps calling home, and the refused connections slow it down.
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]
TIMEOUT_MS = 15_000
FAILURES = ROOT / "var" / "browser-failures"
PASSWORD = "a walk in the park"


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    here = Path(__file__).parent
    for item in items:
        if here in Path(item.path).parents:
            item.add_marker(pytest.mark.browser)


@pytest.hookimpl(wrapper=True)
def pytest_runtest_makereport(item: pytest.Item, call: pytest.CallInfo) -> Iterator:
    """Keeps each phase's report on the test, so fixtures can tell that it failed."""
    report = yield
    setattr(item, f"report_{report.when}", report)
    return report


def unavailable(reason: str) -> None:
    if os.getenv("CI", "").lower() == "true":
        pytest.fail(f"CI=true requires the browser tests to run, but {reason}", pytrace=False)
    pytest.skip(reason)


@pytest.fixture
def demo(transactional_db, settings) -> dict[str, str]:
    """What ``scripts/run`` prepares: the administrator and the demo workspace.

    The password is hashed as the server will check it: with Django's default hashers, not the
    fast one the rest of the suite uses (tests/conftest.py), which the server does not know.
    """
    settings.PASSWORD_HASHERS = global_settings.PASSWORD_HASHERS
    call_command("create_demo", password=PASSWORD, stdout=io.StringIO())
    return {"username": "admin", "password": PASSWORD}


@pytest.fixture
def server(demo, tmp_path) -> Iterator[PlaygroundServer]:
    """The playground serving the demo from this test's (committed) database."""
    playground = PlaygroundServer(connections["default"].settings_dict, tmp_path).start()
    yield playground
    playground.stop()


@pytest.fixture(scope="session")
def chromium() -> Path:
    """Debian's Chromium, checked before any server starts for nothing."""
    if not os.access(CHROMIUM, os.X_OK):
        unavailable(f"{CHROMIUM} is missing (scripts/test installs Debian's chromium)")
    try:
        import playwright.sync_api  # noqa: F401
    except ImportError:
        unavailable("playwright is not installed (scripts/bootstrap requirements-dev.txt)")
    return CHROMIUM


@pytest.fixture
def browser(chromium, server) -> Iterator:
    """Chromium, for one test, started once the database is ready and closed before it is
    cleaned: while Playwright runs, its event loop counts as running in this thread, and Django
    refuses database calls from a thread with a running event loop."""
    from playwright.sync_api import expect, sync_playwright

    expect.set_options(timeout=TIMEOUT_MS)
    with sync_playwright() as playwright:
        launched = playwright.chromium.launch(executable_path=str(chromium), args=CHROMIUM_ARGS)
        yield launched
        launched.close()


@pytest.fixture
def context(browser, server, request) -> Iterator:
    """A fresh browser session; on failure its pages' screenshots and the server log are kept."""
    session = browser.new_context(base_url=server.url, viewport={"width": 1400, "height": 1000})
    session.set_default_timeout(TIMEOUT_MS)
    yield session
    report = getattr(request.node, "report_call", None)
    if report is not None and report.failed:
        keep_evidence(request.node.name, session, server)
    session.close()


def keep_evidence(test_name: str, session, server: PlaygroundServer) -> None:
    folder = FAILURES / re.sub(r"[^\w.-]+", "_", test_name)
    shutil.rmtree(folder, ignore_errors=True)
    folder.mkdir(parents=True)
    shutil.copy(server.log_path, folder / "server.log")
    for index, page in enumerate(session.pages):
        with contextlib.suppress(Exception):  # a crashed page has no picture to give
            page.screenshot(path=folder / f"page-{index}.png", full_page=True)
