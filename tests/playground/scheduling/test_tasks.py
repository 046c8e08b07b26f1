"""The service and binding tasks on real Celery workers (threads in this process).

The broker is the one the settings name: in-memory by default, Redis under CI=true (scripts/test
sets REDIS_URL whenever Redis answers). Tests use committed transactions: the workers read the
database from their own threads (on SQLite too: the test database is a file, see settings).
"""

from __future__ import annotations

import logging
import time

import pytest
from django.db import connection

from playground.scheduling import tasks
from playground.scheduling.embedded_worker import EmbeddedWorker
from playground.scheduling.workspace_deletion import delete_workspace
from playground.workspaces.models import (
    ClusterObject,
    SchedulerCommand,
    SchedulerLease,
    SchedulerStatus,
    Workspace,
)
from playground.workspaces.services import add_configuration_revision
from tests.playground.scheduling.manifests import node_manifest, pod_manifest

pytestmark = pytest.mark.django_db(transaction=True)

LEASE_SECONDS = 1.5
DEADLINE_SECONDS = 60.0


@pytest.fixture
def worker(settings):
    settings.SCHEDULER_LEASE_SECONDS = LEASE_SECONDS
    worker = EmbeddedWorker(services=2, binding_threads=2).start()
    yield worker
    worker.stop()
    close_connections_of_finished_threads()


def close_connections_of_finished_threads() -> None:
    """Worker threads are gone, but their idle connections would keep the test database from
    being dropped until garbage collection closes them."""
    if connection.vendor == "postgresql":
        with connection.cursor() as cursor:
            cursor.execute(
                "SELECT pg_terminate_backend(pid) FROM pg_stat_activity "
                "WHERE datname = current_database() AND pid <> pg_backend_pid()"
            )


def pods(workspace):
    return ClusterObject.objects.filter(workspace=workspace, kind="Pod")


def wait_until(condition, what: str) -> None:
    deadline = time.monotonic() + DEADLINE_SECONDS
    while not condition():
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out waiting until {what}")
        time.sleep(0.05)


def all_settled(workspace) -> bool:
    """Every pod bound, or pending with the reason the scheduler gave."""
    for row in pods(workspace):
        if row.node_name:
            continue
        conditions = row.manifest.get("status", {}).get("conditions", [])
        if not any(c["type"] == "PodScheduled" and c.get("reason") for c in conditions):
            return False
    return True


def test_pods_created_in_a_workspace_end_bound(worker, workspace, cluster):
    cluster.add(node_manifest("n1"))
    cluster.add(node_manifest("n2"))
    for index in range(10):
        cluster.add(pod_manifest(f"web-{index}"))

    tasks.ensure_scheduler_running(workspace)  # or the worker's watchdog has started it already

    wait_until(lambda: all(row.node_name for row in pods(workspace)), "every pod is bound")
    assert not tasks.ensure_scheduler_running(workspace)  # it runs already


def test_a_revision_that_changes_the_feature_gates_reaches_the_running_scheduler(
    worker, workspace, cluster, user
):
    """With PodLevelResources off, NodeResourcesFit counts the containers' requests only: the
    pod asking 3 CPUs at pod level (100m in its container) then fits the 2-CPU node."""
    cluster.add(node_manifest("n1", cpu="2"))
    cluster.add(pod_manifest("big", resources={"requests": {"cpu": "3"}}))
    tasks.ensure_scheduler_running(workspace)
    wait_until(lambda: all_settled(workspace), "the pod is pending with a reason")
    assert not pods(workspace).get().node_name

    gates = "InPlacePodLevelResourcesVerticalScaling=false,PodLevelResources=false"
    text = "apiVersion: kubescheduler.config.k8s.io/v1\nkind: KubeSchedulerConfiguration\n"
    revision, problems = add_configuration_revision(workspace, text, user, feature_gates=gates)
    assert problems == []
    SchedulerCommand.objects.create(
        workspace=workspace,
        kind=SchedulerCommand.APPLY_CONFIGURATION,
        payload={"revision": revision.revision},
    )

    wait_until(lambda: pods(workspace).get().node_name == "n1", "the pod is bound")
    status = SchedulerStatus.objects.get(workspace=workspace)
    assert (status.revision, status.feature_gates) == (revision.revision, gates)


def test_killing_the_scheduler_worker_mid_run_loses_no_pod(worker, workspace, cluster):
    cluster.add(node_manifest("n1", cpu="8"))
    cluster.add(node_manifest("n2", cpu="8"))
    cluster.add(pod_manifest("too-big", cpu="64"))
    for index in range(30):
        cluster.add(pod_manifest(f"web-{index}"))
    tasks.ensure_scheduler_running(workspace)
    wait_until(lambda: pods(workspace).exclude(node_name="").exists(), "a first pod is bound")
    first = SchedulerLease.objects.get(workspace=workspace)

    # The worker dies: its service stops where it is and its lease is left to lapse.
    worker.stop(release=False)
    for index in range(30, 40):
        cluster.add(pod_manifest(f"web-{index}"))
    worker.start()

    wait_until(lambda: all_settled(workspace), "every pod is bound or pending with a reason")
    successor = SchedulerLease.objects.get(workspace=workspace)
    assert successor.generation > first.generation
    assert successor.holder != first.holder
    assert pods(workspace).filter(node_name="").count() == 1
    assert pods(workspace).get(node_name="").name == "too-big"


def test_a_service_whose_lease_was_taken_over_stops(worker, workspace, cluster):
    cluster.add(node_manifest("n1"))
    tasks.ensure_scheduler_running(workspace)
    wait_until(lambda: len(tasks.running_services()) == 1, "the service runs")
    [first] = tasks.running_services()

    SchedulerLease.objects.filter(workspace=workspace).update(holder="elsewhere", generation=99)

    wait_until(lambda: first not in tasks.running_services(), "the deposed service stops")


def test_deleting_a_workspace_stops_its_service_first_and_cleanly(
    worker, workspace, cluster, caplog
):
    cluster.add(node_manifest("n1", cpu="2"))
    for index in range(100):
        cluster.add(pod_manifest(f"web-{index}", cpu="10m"))
    cluster.add(pod_manifest("too-big", cpu="64"))
    tasks.ensure_scheduler_running(workspace)
    wait_until(lambda: pods(workspace).exclude(node_name="").exists(), "a first pod is bound")
    [service] = tasks.running_services()
    caplog.clear()

    # While pods are still being scheduled and bound; a loaded machine's service may take a while
    # to reach the stop command, longer than the test's short lease.
    assert delete_workspace(workspace, timeout=DEADLINE_SECONDS)

    # The lease is released before the service's thread has returned.
    wait_until(lambda: service not in tasks.running_services(), "the service has ended")
    assert not Workspace.objects.filter(pk=workspace.pk).exists()
    assert not ClusterObject.objects.exists()
    time.sleep(1)  # binding tasks sent before the stop report to nobody, quietly
    problems = [r for r in caplog.records if r.levelno >= logging.WARNING]
    assert problems == [], [r.getMessage() for r in problems]


def test_a_worker_told_to_stop_stops_its_watchdog_before_it_releases_the_leases(monkeypatch):
    # Otherwise the watchdog, still running, sees the leases just released and reserves them for
    # successors ("starting:<task>"): the benchmark of issue 23 found one held after the exit.
    order = []
    monkeypatch.setattr(tasks.watchdog, "stop_watchdog", lambda: order.append("watchdog"))
    monkeypatch.setattr(tasks.runs, "stop_every_run", lambda **_: order.append("leases released"))

    tasks._stop_runs_on_shutdown(sig="SIGTERM", how="Warm", exitcode=0)

    assert order == ["watchdog", "leases released"]
