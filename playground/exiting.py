"""Leaving a process at once, once it has shut down.

A playground process that held clusters (every object parsed, the schedulers' caches) spends
seconds in the interpreter's teardown of that heap on a busy machine, and a supervisor counts
them against its stop timeout. By the time it calls ``exit_now`` its leases are released and
its work is done: what is left to do is to close the database connections, flush the logs and
the standard streams.
"""

from __future__ import annotations

import logging
import os
import sys

from playground.metrics.processes import mark_this_process_dead


def exit_now(code: int = 0) -> None:
    """Closes the database connections, flushes the logs and exits with ``code`` at once."""
    from django.db import connections

    connections.close_all()
    mark_this_process_dead()
    logging.shutdown()
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(code)
