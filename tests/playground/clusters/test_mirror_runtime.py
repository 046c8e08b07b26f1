"""The mirror running (MirrorRuntime, the ``run_mirror`` task on a real Celery worker) against
the Kubernetes API server for tests: it follows the cluster under its lease, writes its state
for the pages, hands over to another worker, ends when mirroring stops or the connection goes.

The runtime's threads write the database: the tests use committed transactions.
"""

from __future__ import annotations

import json
import threading
import time

import pytest
from django.db import connections
from kubernetes.client import CoreV1Api

from playground.clusters import recording, tasks
from playground.clusters.mirroring import start_mirroring, stop_mirroring
from playground.clusters.models import ClusterConnection, MirrorLease, MirrorStatus
from playground.clusters.runtime import MIRROR_LEASES, MirrorRuntime
from playground.scheduling import tasks as scheduling_tasks
from playground.scheduling.embedded_worker import EmbeddedWorker
from playground.workspaces.cluster import DatabaseCluster
from playground.workspaces.models import SchedulerConfiguration, Workspace
from tests.kube.fixtures import LocalKubeApi
from tests.playground.clusters.test_mirror import node, pod
from tests.playground.clusters.test_second_scheduler import SELECTOR, configuration
from tests.playground.clusters.test_second_scheduler import node as labelled_node
from tests.playground.clusters.test_second_scheduler import pod as labelled_pod

pytestmark = pytest.mark.django_db(transaction=True)

LEASE_SECONDS = 1.5
WATCH_SECONDS = 1
STATUS_SECONDS = 0.1
DEADLINE_SECONDS = 60.0


@pytest.fixture
def connection(kube_api, user):
    connection = ClusterConnection(name="lab", owner=user, server=kube_api.url)
    connection.set_kubeconfig(kube_api.kubeconfig_text())
    connection.save()
    return connection


@pytest.fixture
def runtimes():
    """Builds runtimes with short leases and watches; stops what is left running."""
    started: list[tuple[MirrorRuntime, threading.Event, threading.Thread]] = []

    def make(connection: ClusterConnection, holder: str) -> MirrorRuntime:
        return MirrorRuntime(
            connection.pk,
            holder,
            lease_seconds=LEASE_SECONDS,
            watch_seconds=WATCH_SECONDS,
            status_seconds=STATUS_SECONDS,
        )

    def run(runtime: MirrorRuntime) -> tuple[threading.Event, list[str]]:
        """Runs a started runtime on a thread; the list gets why it ended."""
        stop, ended = threading.Event(), []

        def target() -> None:
            try:
                ended.append(runtime.run(stop))
            finally:
                connections.close_all()

        thread = threading.Thread(target=target, daemon=True)
        thread.start()
        started.append((runtime, stop, thread))
        return stop, ended

    make.run = run
    yield make
    for runtime, stop, thread in started:
        stop.set()
        thread.join(DEADLINE_SECONDS)
        runtime.stop()


def wait_until(condition, what: str) -> None:
    deadline = time.monotonic() + DEADLINE_SECONDS
    while not condition():
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out waiting until {what}")
        time.sleep(0.05)


def status_of(connection) -> MirrorStatus | None:
    return MirrorStatus.objects.filter(connection_id=connection.pk).first()


def state_of(connection) -> str:
    status = status_of(connection)
    return status.state if status is not None else ""


def names(workspace, kind: str) -> set[str]:
    return {obj.name for obj in DatabaseCluster(workspace.pk).list(kind)}


def test_the_runtime_follows_the_cluster_and_reports_its_state(kube_api, connection, runtimes):
    kube_api.create(node("n1"))
    kube_api.create(pod("web-1"))
    workspace = start_mirroring(connection)
    runtime = runtimes(connection, "worker-a")
    assert runtime.start()
    runtimes.run(runtime)

    wait_until(lambda: state_of(connection) == "synced", "the mirror is synced")
    assert names(workspace, "Node") == {"n1"}
    assert names(workspace, "Pod") == {"web-1"}
    status = status_of(connection)
    assert status.kinds["Node"]["objects"] == 1
    assert status.kinds["Pod"]["objects"] == 1
    assert status.kinds["Pod"]["synced"] is True
    assert status.started_at is not None
    assert status.error == ""

    CoreV1Api(kube_api.client()).create_node(node("n2"))
    wait_until(lambda: names(workspace, "Node") == {"n1", "n2"}, "the new node is mirrored")
    wait_until(lambda: status_of(connection).kinds["Node"]["objects"] == 2, "it is counted")
    assert status_of(connection).lag_seconds < WATCH_SECONDS + 5


def test_a_stopped_runtime_ends_its_quiet_watches_at_once_and_releases_its_lease(
    kube_api, connection, runtimes
):
    """Stopping does not wait for a quiet watch's timeoutSeconds (here 300 s): its socket is
    shut down. (Before, every stream's thread sat in its watch's read until the server ended
    it, and a worker told to stop waited for them or was killed holding the lease.)"""
    if isinstance(kube_api, LocalKubeApi):
        kube_api.server.bookmark_interval = 300  # kube-apiserver's come a minute apart
    kube_api.create(node("n1"))
    start_mirroring(connection)
    runtime = MirrorRuntime(connection.pk, "worker-a", watch_seconds=300, status_seconds=0.1)
    assert runtime.start()
    stop, ended = runtimes.run(runtime)
    wait_until(
        lambda: all(stream.watching for stream in runtime.mirror.streams if stream.served),
        "every stream of a kind the server serves watches",
    )

    stop.set()
    wait_until(lambda: ended, "the run ends")
    runtime.stop()

    assert ended == ["stopped"]
    assert [t.name for t in runtime._threads if t.is_alive()] == []
    assert not any(stream.watching for stream in runtime.mirror.streams)
    assert MirrorLease.objects.get(connection=connection).holder == ""
    assert state_of(connection) == "stopped"


def test_a_failing_server_is_shown_with_the_kind_and_recovers(kube_api, connection, runtimes):
    kube_api.create(node("n1"))
    start_mirroring(connection)
    runtime = runtimes(connection, "worker-a")
    assert runtime.start()
    runtime.mirror.backoff_cap_seconds = 1.0  # retries soon after the server is back
    runtimes.run(runtime)
    wait_until(lambda: state_of(connection) == "synced", "the mirror is synced")

    kube_api.stop()
    wait_until(lambda: state_of(connection) == "failing", "the mirror says it is failing")
    status = status_of(connection)
    assert status.error.startswith(tuple(status.kinds))  # names the kind, and the server:
    assert f"the API server at {kube_api.url} is unreachable" in status.error
    wait_until(lambda: status_of(connection).kinds["Node"]["error"], "Node says it fails")
    assert status_of(connection).kinds["Node"]["synced"] is False
    wait_until(lambda: (status_of(connection).lag_seconds or 0) > 1, "the lag grows")

    kube_api.start()
    wait_until(lambda: state_of(connection) == "synced", "the mirror recovers")
    assert status_of(connection).error == ""


def test_one_worker_mirrors_a_connection_and_another_takes_over(kube_api, connection, runtimes):
    kube_api.create(node("n1"))
    workspace = start_mirroring(connection)
    first = runtimes(connection, "worker-a")
    assert first.start()
    _, first_ended = runtimes.run(first)
    second = runtimes(connection, "worker-b")
    assert not second.start()
    assert second.why == "another worker holds the lease"

    # worker-a stops renewing (its process froze) while worker-b waits for the lease to lapse.
    first.lease_seconds = 3600.0  # it renews no more
    generation = MirrorLease.objects.get(connection=connection).generation
    wait_until(lambda: second.start(), "worker-b takes the lapsed lease over")
    assert MirrorLease.objects.get(connection=connection).generation == generation + 1
    _, second_ended = runtimes.run(second)

    first.lease_seconds = LEASE_SECONDS  # it wakes up and finds it lost the lease
    wait_until(lambda: first_ended == ["lost the lease"], "worker-a steps down")
    CoreV1Api(kube_api.client()).create_node(node("n2"))
    wait_until(lambda: names(workspace, "Node") == {"n1", "n2"}, "worker-b mirrors")
    assert second_ended == []


def test_stopping_mirroring_ends_the_runtime_and_keeps_the_workspace(
    kube_api, connection, runtimes
):
    kube_api.create(node("n1"))
    workspace = start_mirroring(connection)
    runtime = runtimes(connection, "worker-a")
    assert runtime.start()
    _, ended = runtimes.run(runtime)
    wait_until(lambda: state_of(connection) == "synced", "the mirror is synced")

    stop_mirroring(ClusterConnection.objects.get(pk=connection.pk))
    wait_until(lambda: ended == ["mirroring stopped"], "the runtime ends")
    runtime.stop()
    assert state_of(connection) == "stopped"
    assert not MIRROR_LEASES.is_live(connection.pk, runtime._now())
    CoreV1Api(kube_api.client()).create_node(node("n2"))
    time.sleep(WATCH_SECONDS * 2)  # long enough for a stream still running to apply it
    assert names(workspace, "Node") == {"n1"}


def test_new_settings_end_the_run_for_a_successor(kube_api, connection, runtimes):
    start_mirroring(connection)
    runtime = runtimes(connection, "worker-a")
    assert runtime.start()
    _, ended = runtimes.run(runtime)
    connection.refresh_from_db()
    connection.namespaces = "team-a"
    connection.save()
    wait_until(lambda: ended == ["the connection's settings changed"], "the runtime ends")
    assert runtime.restart


def test_the_runtime_records_what_the_page_asks_and_ends_the_recording_with_it(
    kube_api, connection, runtimes, var_dir
):
    kube_api.create(node("n1"))
    start_mirroring(connection)
    runtime = runtimes(connection, "worker-a")
    assert runtime.start()
    stop, ended = runtimes.run(runtime)
    wait_until(lambda: state_of(connection) == "synced", "the mirror is synced")

    started = recording.start(ClusterConnection.objects.get(pk=connection.pk))
    wait_until(lambda: runtime.recorder is not None, "the runtime starts recording")
    CoreV1Api(kube_api.client()).create_node(node("n2"))

    def lines() -> list[tuple[str, str]]:
        rows = [json.loads(line) for line in started.path.read_text().splitlines()[1:]]
        return [(row["type"], row["object"]["metadata"]["name"]) for row in rows]

    wait_until(lambda: ("ADDED", "n2") in lines(), "the new node is recorded")
    assert lines().index(("ADDED", "n1")) < lines().index(("ADDED", "n2"))  # snapshot first
    stop.set()
    wait_until(lambda: ended == ["stopped"], "the run ends")
    runtime.stop()
    started.refresh_from_db()
    assert started.stopped_at is not None
    assert started.events >= 1


def test_a_connection_that_mirrors_nothing_is_not_run(connection, runtimes):
    runtime = runtimes(connection, "worker-a")
    assert not runtime.start()
    assert runtime.why == "the connection mirrors no workspace"
    assert not tasks.ensure_mirror_running(connection)


# ----------------------------------------------------------------------------------------------
# On a real Celery worker


@pytest.fixture
def worker(settings):
    settings.MIRROR_LEASE_SECONDS = LEASE_SECONDS
    settings.MIRROR_WATCH_SECONDS = 1
    worker = EmbeddedWorker(services=1, binding_threads=1, run_watchdog=False).start()
    yield worker
    worker.stop()


def test_the_task_runs_the_mirror_on_a_worker_and_stops_with_it(kube_api, connection, worker):
    kube_api.create(node("n1"))
    workspace = start_mirroring(connection)
    assert tasks.ensure_mirror_running(connection)
    assert not tasks.ensure_mirror_running(connection)  # one is starting already
    wait_until(lambda: names(workspace, "Node") == {"n1"}, "the worker mirrors the cluster")
    wait_until(lambda: len(tasks.running_mirrors()) == 1, "the mirror runs in the worker")

    assert tasks.ensure_all_mirrors_running() == 0  # it holds the lease
    worker.stop()
    assert tasks.running_mirrors() == []
    assert state_of(connection) == "stopped"
    assert MirrorLease.objects.get(connection=connection).holder == ""


def test_on_a_worker_the_mirror_and_the_second_scheduler_bind_the_clusters_pods(
    kube_api, user, worker
):
    """The product's whole path: the watchdog's two tasks on one worker, the mirror filling the
    workspace and the service binding the cluster's pods through the API, the mirror bringing
    the binds back."""
    workspace = Workspace.objects.create(name="live", slug="live", owner=user)
    SchedulerConfiguration.objects.create(
        workspace=workspace, revision=1, text=configuration(kube_api.namespace)
    )
    connection = ClusterConnection(
        name="live",
        owner=user,
        workspace=workspace,
        server=kube_api.url,
        namespaces=kube_api.namespace,
        label_selector=SELECTOR,
        second_scheduler=True,
    )
    connection.set_kubeconfig(kube_api.kubeconfig_text())
    connection.save()
    kube_api.create(labelled_node("n1"))
    for index in range(5):
        kube_api.create(labelled_pod(f"web-{index}"))

    assert tasks.ensure_mirror_running(connection)
    assert scheduling_tasks.ensure_scheduler_running(workspace)

    def served_nodes() -> set[str]:
        return {p["spec"].get("nodeName", "") for p in kube_api.objects("Pod", kube_api.namespace)}

    wait_until(lambda: served_nodes() == {"pg-test-n1"}, "the cluster's pods are bound")
    wait_until(
        lambda: (
            {p.spec.node_name for p in DatabaseCluster(workspace.pk).list("Pod")} == {"pg-test-n1"}
        ),
        "the mirror brought the binds back",
    )
