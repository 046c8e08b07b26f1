"""Production mode: a scheduler worker and a binding worker, each a process of its own, count
into PROMETHEUS_MULTIPROC_DIR, and the web process's /metrics shows their numbers."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

import pytest
from django.conf import settings
from django.db import connection

from playground.metrics.models import MetricsSample
from playground.scheduling import tasks
from playground.workspaces.models import ClusterObject
from tests.playground.metrics.scrape import samples, value
from tests.playground.scheduling.manifests import node_manifest, pod_manifest
from tests.playground.scheduling.test_tasks import close_connections_of_finished_threads
from tests.shared_database import environment_for
from tests.worker_processes import stop_workers

pytestmark = [
    pytest.mark.django_db(transaction=True),
    pytest.mark.skipif(
        not (settings.REDIS_URL and connection.vendor == "postgresql"),
        reason="production mode needs PostgreSQL and REDIS_URL",
    ),
]

ROOT = Path(__file__).resolve().parents[3]
DEADLINE_SECONDS = 120.0
TOKEN = "scrape"
PODS = 6


def start_worker(queue: str, env: dict[str, str], log: Path) -> subprocess.Popen:
    """A worker of ``queue`` as the Procfile starts one (threads for the scheduler queue, a
    prefork child for the binding queue)."""
    pool = ["--pool", "threads", "--concurrency", "2"] if queue == "scheduler" else [
        "--concurrency", "1",
    ]  # fmt: skip
    command = [
        sys.executable, "-m", "celery", "--app", "playground", "worker", "--queues", queue,
        *pool, "--hostname", f"{queue}-metrics@%h", "--without-mingle", "--without-gossip",
        "--loglevel", "INFO",
    ]  # fmt: skip
    with log.open("w") as out:  # a file: a pipe nobody reads would block the worker
        return subprocess.Popen(command, cwd=ROOT, env=env, stdout=out, stderr=subprocess.STDOUT)


def wait_ready(worker: subprocess.Popen, log: Path) -> None:
    deadline = time.monotonic() + DEADLINE_SECONDS
    while time.monotonic() < deadline and worker.poll() is None:
        if " ready." in log.read_text():
            return
        time.sleep(0.1)
    raise AssertionError("the worker did not get ready:\n" + log.read_text()[-3000:])


def tails(logs: Path) -> str:
    return "\n".join(f"{log.name}:\n{log.read_text()[-2000:]}" for log in logs.iterdir())


@pytest.fixture
def workers(tmp_path, tmp_path_factory):
    env = environment_for(connection.settings_dict)
    env.update(
        DJANGO_SETTINGS_MODULE="playground.settings",
        EMBEDDED_WORKER="False",
        PROMETHEUS_MULTIPROC_DIR=str(tmp_path),
    )
    logs = tmp_path_factory.mktemp("worker-logs")
    queues = ("scheduler", "binding")
    started = [start_worker(queue, env, logs / f"{queue}.log") for queue in queues]
    try:
        for worker, queue in zip(started, queues, strict=True):
            wait_ready(worker, logs / f"{queue}.log")
        yield started, logs
    finally:
        stop_workers(started)
        close_connections_of_finished_threads()


def test_the_workers_counts_appear_in_the_web_processs_metrics(
    workers, workspace, cluster, client, settings, tmp_path
):
    workers, logs = workers
    settings.PROMETHEUS_MULTIPROC_DIR = str(tmp_path)
    settings.METRICS_TOKEN = TOKEN
    cluster.add(node_manifest("n1"))
    for index in range(PODS):
        cluster.add(pod_manifest(f"web-{index}"))
    tasks.ensure_scheduler_running(workspace)
    deadline = time.monotonic() + DEADLINE_SECONDS
    pods = ClusterObject.objects.filter(workspace=workspace, kind="Pod")
    while not all(row.node_name for row in pods.all()):  # .all(): a fresh query each time
        assert time.monotonic() < deadline, "the pods were not bound:\n" + tails(logs)
        time.sleep(0.1)

    ws = str(workspace.pk)
    scheduled = {"result": "scheduled", "profile": "default-scheduler", "workspace": ws}
    binding = {"workspace": ws, "result": "success"}
    scraped = {}
    bind = {"extension_point": "Bind", "status": "Success", "profile": "default-scheduler"}
    expected = [
        ("scheduler_schedule_attempts_total", scheduled),
        ("scheduler_scheduling_attempt_duration_seconds_count", scheduled),
        ("scheduler_framework_extension_point_duration_seconds_count", {"workspace": ws, **bind}),
        ("playground_binding_duration_seconds_count", binding),
    ]
    # A pod counts as scheduled once the service has heard back from its binding task. A scrape
    # reads each process's files one after the other, so one taken as the last pods are
    # counted can hold some of their series and not yet others (CI saw 6 attempts, 1 duration).
    while time.monotonic() < deadline:
        response = client.get("/metrics", HTTP_AUTHORIZATION=f"Bearer {TOKEN}")
        scraped = samples(response.content.decode())
        if all(value(scraped, name, **labels) == PODS for name, labels in expected):
            break
        time.sleep(0.1)

    assert value(scraped, "scheduler_schedule_attempts_total", **scheduled) == PODS
    count = "scheduler_framework_extension_point_duration_seconds_count"
    assert value(scraped, count, workspace=ws, **bind) == PODS  # timed in the binding worker
    assert (
        value(scraped, "playground_binding_duration_seconds_count", workspace=ws, result="success")
        == PODS
    )
    writers = {int(name.rsplit("_", 1)[1].split(".")[0]) for name in os.listdir(tmp_path)}
    scheduler_worker = workers[0].pid
    assert scheduler_worker in writers
    assert writers - {scheduler_worker, os.getpid()}, "the binding worker's child wrote too"

    # The Metrics tab's samples, taken by the scheduler worker from every process's files,
    # come to the same numbers (the binding worker's counts included).
    sampled = {}
    while time.monotonic() < deadline:
        latest = MetricsSample.objects.filter(workspace=workspace).last()
        sampled = {tuple(row[:2]): row[2] for row in latest.values["attempts"]} if latest else {}
        timed = {tuple(row[:2]): row[2][-1] for row in latest.values["durations"]} if latest else {}
        if (
            sampled.get(("scheduled", "default-scheduler"))
            == PODS
            == timed.get(("scheduled", "default-scheduler"))
        ):
            break
        time.sleep(0.5)
    assert sampled == {("scheduled", "default-scheduler"): PODS}, tails(logs)
    durations = {tuple(row[:2]): row[2][-1] for row in latest.values["durations"]}
    assert durations[("scheduled", "default-scheduler")] == value(
        scraped, "scheduler_scheduling_attempt_duration_seconds_count", **scheduled
    )
