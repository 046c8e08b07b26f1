"""The embedded worker inside a serving process (``scripts/run``): the process still exits.

A scheduler service occupies a thread of the worker's pool for as long as it runs, and the
interpreter waits for those threads before it exits: the worker must stop them when the server
is told to stop, or Ctrl-C leaves the process hanging.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
from django.db import connection

from tests.shared_database import environment_for

pytestmark = pytest.mark.django_db(transaction=True)

ROOT = Path(__file__).resolve().parents[3]
EXIT_SECONDS = 60

# The main thread ends once the service runs, as a server's does when it is told to stop.
SERVING_PROCESS = """
import sys, time
import django
django.setup()
from playground.scheduling import embedded_worker, tasks
embedded_worker.start_embedded_worker()
tasks.ensure_scheduler_running(int(sys.argv[1]))
deadline = time.monotonic() + 30
while not tasks.running_services():
    assert time.monotonic() < deadline, "the scheduler service did not start"
    time.sleep(0.05)
print("the scheduler service runs", flush=True)
"""


def test_a_process_whose_embedded_worker_runs_a_service_exits_when_its_main_thread_ends(
    workspace,
):
    env = environment_for(connection.settings_dict)
    env["DJANGO_SETTINGS_MODULE"] = "playground.settings"
    try:
        done = subprocess.run(
            [sys.executable, "-c", SERVING_PROCESS, str(workspace.pk)],
            cwd=ROOT,
            env=env,
            capture_output=True,
            text=True,
            timeout=EXIT_SECONDS,
        )
    except subprocess.TimeoutExpired as hung:
        pytest.fail(f"the process did not exit within {EXIT_SECONDS} s: {hung.stdout!r}")
    assert done.returncode == 0, done.stderr
    assert done.stdout == "the scheduler service runs\n"
