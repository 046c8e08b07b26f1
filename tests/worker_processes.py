"""Worker processes a test started: stopped together, as a supervisor stops them."""

from __future__ import annotations

import subprocess
from collections.abc import Iterable

STOP_SECONDS = 30


def stop_workers(workers: Iterable[subprocess.Popen]) -> None:
    """SIGTERM to every worker at once (a warm shutdown each), SIGKILL to those that take
    longer than STOP_SECONDS."""
    workers = list(workers)
    for worker in workers:
        worker.terminate()
    for worker in workers:
        try:
            worker.wait(STOP_SECONDS)
        except subprocess.TimeoutExpired:
            worker.kill()
            worker.wait()
