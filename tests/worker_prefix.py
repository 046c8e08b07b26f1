"""Each pytest-xdist worker gets its own Redis key prefix, before Django reads its settings.

``scripts/test`` runs the suite on several workers (``pytest -n``). pytest-django already gives
each worker its own test database (``test_<name>_gw0``, ``_gw1``...); Redis has no such thing,
and two workers on one prefix would share channel groups and Celery queues: both test
databases number their first workspace 1, so one worker's pages would receive the other's
``workspace-1`` messages, and its binding tasks could be taken by the other's workers.

This module is loaded as a plugin (``-p tests.worker_prefix`` in pyproject.toml's addopts), so
it runs as pytest starts, before pytest-django loads ``playground.settings``, which reads
``REDIS_KEY_PREFIX`` once. The servers and workers a test starts inherit the worker's prefix.
Outside xdist (one process, ``-n 0``) nothing changes.
"""

from __future__ import annotations

import os

WORKER_ENV = "PYTEST_XDIST_WORKER"
PREFIX_ENV = "REDIS_KEY_PREFIX"


def worker_prefix(prefix: str, worker: str) -> str:
    """The run's prefix followed by the worker's id: ``test-123:`` becomes ``test-123:gw0:``."""
    return f"{prefix}{worker}:"


if os.getenv(WORKER_ENV):
    os.environ[PREFIX_ENV] = worker_prefix(os.getenv(PREFIX_ENV, ""), os.environ[WORKER_ENV])
