"""The product starts the way ``scripts/run`` starts it, every time.

``scripts/run`` on an existing database used to crash at start two times in three: the embedded
worker's thread imported the project while the main thread was still importing it. Each start
here is a fresh process, as a person's each ``scripts/run`` is: embedded mode (SQLite, the
in-memory broker, the worker inside the web process), on a database migrated and seeded once.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
import urllib.error
import urllib.request
from pathlib import Path

import pytest

from tests.browser.server import free_port

ROOT = Path(__file__).resolve().parents[2]
STARTS = 20
READY_SECONDS = 60.0
STOP_SECONDS = 20.0
PRODUCTION_VARIABLES = {
    "DATABASE_URL",
    "REDIS_URL",
    "REDIS_KEY_PREFIX",
    "CELERY_BROKER_URL",
    "EMBEDDED_WORKER",
}


@pytest.fixture(scope="module")
def embedded_environment(tmp_path_factory) -> dict[str, str]:
    """``scripts/run``'s environment, with its database already made by an earlier run."""
    directory = tmp_path_factory.mktemp("start-up")
    env = {k: v for k, v in os.environ.items() if k not in PRODUCTION_VARIABLES}
    env.update(
        SQLITE_PATH=str(directory / "playground.sqlite3"), LOG_LEVEL="INFO", PYTHONUNBUFFERED="1"
    )
    for command in (["migrate", "--noinput"], ["create_demo", "--password", "start-up-test"]):
        subprocess.run(
            [sys.executable, "manage.py", *command],
            cwd=ROOT,
            env=env,
            check=True,
            capture_output=True,
            timeout=READY_SECONDS,
        )
    return env


def test_every_start_on_an_existing_database_serves_the_login_page(embedded_environment, tmp_path):
    for start in range(1, STARTS + 1):
        log_path = tmp_path / f"start-{start}.log"
        log = serve_once(embedded_environment, log_path)
        assert "Traceback" not in log, f"start {start} of {STARTS}:\n{log}"
        assert "embedded Celery worker started" in log, f"start {start} of {STARTS}:\n{log}"


def serve_once(env: dict[str, str], log_path: Path) -> str:
    """Starts ``manage.py runserver --noreload`` as scripts/run does, waits for the login
    page, stops the server as Ctrl-C would, and returns what it printed."""
    address = f"127.0.0.1:{free_port()}"
    with log_path.open("w") as log:
        server = subprocess.Popen(
            [sys.executable, "manage.py", "runserver", "--noreload", address],
            cwd=ROOT,
            env=env,
            stdout=log,
            stderr=subprocess.STDOUT,
        )
        try:
            served = wait_for_login_page(server, f"http://{address}/login/")
        finally:
            stop(server)
    text = log_path.read_text(errors="replace")
    assert served, f"the server exited (status {server.returncode}) before serving:\n{text}"
    assert server.returncode == 0, f"the server exited with {server.returncode}:\n{text}"
    return text


def wait_for_login_page(server: subprocess.Popen, url: str) -> bool:
    deadline = time.monotonic() + READY_SECONDS
    while time.monotonic() < deadline:
        if server.poll() is not None:
            return False
        try:
            with urllib.request.urlopen(url, timeout=5) as response:
                page = response.read().decode()
            assert response.status == 200
            assert 'name="password"' in page
            return True
        except (urllib.error.URLError, ConnectionError):
            time.sleep(0.1)
    pytest.fail(f"no login page at {url} within {READY_SECONDS:g} s")


def stop(server: subprocess.Popen) -> None:
    """SIGINT is Ctrl-C; a test run in the background ignores it, so SIGTERM (the server
    stops the same way on both)."""
    if server.poll() is None:
        server.send_signal(signal.SIGTERM)
    try:
        server.wait(STOP_SECONDS)
    except subprocess.TimeoutExpired:
        server.kill()
        server.wait()
        pytest.fail(f"the server did not stop within {STOP_SECONDS:g} s of SIGTERM")
