"""Comparisons on real Celery workers: the embedded worker (threads of this process, on the
broker the settings name), and two worker processes in production mode (PostgreSQL and
Redis) running two variants at the same time, one each.

Committed transactions: the workers read the database from their own threads and processes.
"""

from __future__ import annotations

import os
import subprocess
import sys
import time
from datetime import timedelta
from pathlib import Path

import pytest
import yaml
from django.conf import settings
from django.db import connection
from django.utils import timezone

from playground.compare import tasks
from playground.compare.models import DONE, SNAPSHOT, Comparison, ComparisonVariant
from playground.scheduling.embedded_worker import EmbeddedWorker
from playground.workspaces.models import SchedulerLease
from tests.playground.compare.scenario import BIN_PACKING, SPREADING
from tests.playground.front.rows import node, pod
from tests.playground.scheduling.test_tasks import close_connections_of_finished_threads
from tests.shared_database import environment_for
from tests.worker_processes import stop_workers

pytestmark = pytest.mark.django_db(transaction=True)

ROOT = Path(__file__).resolve().parents[3]
DEADLINE_SECONDS = 120.0
PRODUCTION = bool(settings.REDIS_URL) and connection.vendor == "postgresql"


def snapshot(nodes: int, pending: int) -> str:
    """``nodes`` 4-CPU nodes and ``pending`` 100m pods: bin-packing and spreading part ways."""
    objects = [node(f"node-{n}") for n in range(nodes)]
    objects += [pod(f"web-{n}", cpu="100m", memory="64Mi") for n in range(pending)]
    return yaml.safe_dump_all(objects)


def make_comparison(workspace, text: str) -> Comparison:
    comparison = Comparison.objects.create(
        workspace=workspace, source=SNAPSHOT, source_label="a snapshot", inputs_text=text
    )
    for index, (name, config) in enumerate((("packing", BIN_PACKING), ("spreading", SPREADING))):
        ComparisonVariant.objects.create(
            comparison=comparison, index=index, name=name, config_text=config
        )
    return comparison


def wait_until_ended(comparison: Comparison) -> Comparison:
    deadline = time.monotonic() + DEADLINE_SECONDS
    while not Comparison.objects.get(pk=comparison.pk).ended:
        if time.monotonic() > deadline:
            states = list(comparison.variants.values_list("name", "state", "trace_state"))
            raise AssertionError(f"the comparison did not end: {states}")
        time.sleep(0.1)
    return Comparison.objects.get(pk=comparison.pk)


@pytest.fixture
def embedded():
    worker = EmbeddedWorker(services=1, binding_threads=2, run_watchdog=False).start()
    yield worker
    worker.stop()
    close_connections_of_finished_threads()


def test_the_embedded_worker_runs_both_phases(embedded, workspace):
    comparison = make_comparison(workspace, snapshot(nodes=4, pending=12))
    tasks.start_comparison(comparison)  # no transaction open: sent at once
    ended = wait_until_ended(comparison)
    assert ended.state == DONE, ended.error
    assert ended.report["differences"]["count"] > 0, ended.report
    for variant in ended.variants.all():
        assert variant.state == variant.trace_state == DONE, (variant.name, variant.error)
        assert variant.worker.split(":")[1] == str(os.getpid())  # a thread of this process
        assert set(variant.attempts) == {d["pod"] for d in ended.report["differences"]["pods"]}


# ----------------------------------------------------------------------------------------------
# Production mode: two worker processes


def start_worker(name: str, env: dict[str, str]) -> subprocess.Popen:
    """A scheduler-queue worker as the Procfile starts one, with one thread: it takes one
    variant at a time, so two variants at once means two workers."""
    command = [
        sys.executable, "-m", "celery", "--app", "playground", "worker",
        "--queues", "scheduler", "--pool", "threads", "--concurrency", "1",
        "--hostname", f"{name}@%h", "--without-mingle", "--without-gossip",
        "--loglevel", "INFO",
    ]  # fmt: skip
    return subprocess.Popen(
        command, cwd=ROOT, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True
    )


def wait_ready(worker: subprocess.Popen) -> None:
    deadline = time.monotonic() + DEADLINE_SECONDS
    lines = []
    while time.monotonic() < deadline:
        line = worker.stdout.readline()
        if not line:
            break
        lines.append(line)
        if " ready." in line:
            return
    raise AssertionError("the worker did not get ready:\n" + "".join(lines[-30:]))


@pytest.fixture
def two_workers(workspace):
    # A scheduler service would hold a worker's one thread: the lease says another runs it.
    SchedulerLease.objects.update_or_create(
        workspace=workspace,
        defaults={"holder": "elsewhere", "expires_at": timezone.now() + timedelta(hours=1)},
    )
    env = environment_for(connection.settings_dict)
    env.update(DJANGO_SETTINGS_MODULE="playground.settings", EMBEDDED_WORKER="False")
    workers = [start_worker(name, env) for name in ("one", "two")]
    try:
        for worker in workers:
            wait_ready(worker)
        yield workers
    finally:
        stop_workers(workers)
        close_connections_of_finished_threads()


@pytest.mark.skipif(not PRODUCTION, reason="production mode needs PostgreSQL and REDIS_URL")
def test_two_workers_run_two_variants_at_once(two_workers, workspace):
    comparison = make_comparison(workspace, snapshot(nodes=30, pending=600))
    tasks.start_comparison(comparison)
    ended = wait_until_ended(comparison)
    assert ended.state == DONE, ended.error
    first, second = ended.variants.all()
    pids = {first.worker.split(":")[1], second.worker.split(":")[1]}
    assert pids == {str(worker.pid) for worker in two_workers}
    assert first.started < second.finished and second.started < first.finished, (
        "the two variants' running intervals overlap"
    )
