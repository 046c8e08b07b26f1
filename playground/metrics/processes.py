"""A process that exits takes its live gauges with it (multiprocess mode).

Gauges in ``livesum`` / ``livemostrecent`` mode count only processes that are alive; the
files of a process are dropped when it says it is gone (prometheus-client's
``mark_process_dead``). Counters and histograms of dead processes stay, as they must.
"""

from __future__ import annotations

import os

from prometheus_client import multiprocess


def mark_this_process_dead() -> None:
    """Drops this process's live gauges from PROMETHEUS_MULTIPROC_DIR (if it is set)."""
    directory = os.environ.get("PROMETHEUS_MULTIPROC_DIR")
    if directory:
        multiprocess.mark_process_dead(os.getpid(), directory)
