"""A playground told to stop (SIGTERM) while it mirrors a cluster and schedules for it as a
second scheduler exits cleanly and releases every lease it holds: the scheduler service's and
the mirror's in the database, and the cluster's Lease, so that a successor takes over at once.

Supervisors (systemd's TimeoutStopSec, a pod's grace period) kill a process that takes longer
than some 10-30 s, and a killed process releases nothing: the process here gets
SUPERVISOR_SECONDS. How fast it exits is a speed figure, measured by ``python -m benchmarks
live`` (README). The watches are made quiet as a real cluster's are (bookmarks a minute apart,
here five), with a long ``timeoutSeconds``: before, the mirror's streams waited for their
watches to end, and the process took 48 s to exit.

Two processes, each a fresh one on the test's database: ``manage.py runserver --noreload`` as
``scripts/run`` starts it (the embedded worker inside), and the Procfile's scheduler worker
(Celery's warm shutdown), which needs Redis.
"""

from __future__ import annotations

import os
import secrets
import signal
import subprocess
import sys
import time
from pathlib import Path
from urllib.parse import quote

import pytest
from django.conf import settings
from django.db import connection as db

from benchmarks.processes import procfile_commands
from playground.clusters.leader import ElectionConfig
from playground.clusters.mirroring import start_mirroring
from playground.clusters.models import ClusterConnection, MirrorLease, MirrorStatus
from playground.scheduling import embedded_worker
from playground.workspaces.models import SchedulerLease
from playground.workspaces.services import add_configuration_revision
from tests.browser.server import free_port
from tests.kube.fixtures import LocalKubeApi
from tests.playground.clusters.test_second_scheduler import configuration

pytestmark = pytest.mark.django_db(transaction=True)

PLAYGROUND_VARIABLES = (
    "DATABASE_URL",
    "SQLITE_PATH",
    "REDIS_URL",
    "REDIS_KEY_PREFIX",
    "CELERY_BROKER_URL",
    "EMBEDDED_WORKER",
)
"""Chosen per process below: each test's process starts from none of them."""

ROOT = Path(__file__).resolve().parents[3]
SUPERVISOR_SECONDS = 30.0
READY_SECONDS = 120.0
QUIET_WATCH_SECONDS = 300
"""The watches' timeoutSeconds and the test server's bookmark interval: nothing wakes a
stream's read during the test but a change or the mirror's own stop."""


@pytest.fixture
def linked(kube_api, user):
    """A connection to the cluster mirrored into a workspace that schedules its pods as a
    second scheduler (its Lease in the test's namespace)."""
    if isinstance(kube_api, LocalKubeApi):
        kube_api.server.bookmark_interval = QUIET_WATCH_SECONDS
    kube_api.create(
        {
            "apiVersion": "v1",
            "kind": "Node",
            "metadata": {"name": "pg-test-n1"},
            "status": {"allocatable": {"cpu": "4", "memory": "8Gi", "pods": "110"}},
        }
    )
    connection = ClusterConnection(name="lab", owner=user, server=kube_api.url)
    connection.set_kubeconfig(kube_api.kubeconfig_text())
    connection.save()
    workspace = start_mirroring(connection)
    revision, problems = add_configuration_revision(workspace, configuration(kube_api.namespace))
    assert revision is not None, problems
    ClusterConnection.objects.filter(pk=connection.pk).update(second_scheduler=True)
    return connection


def test_the_embedded_server_releases_every_lease_on_sigterm(kube_api, linked, tmp_path):
    env = database_environment()
    address = f"127.0.0.1:{free_port()}"
    command = [sys.executable, "manage.py", "runserver", "--noreload", address]

    output = assert_stops_releasing_every_lease(
        command, env, kube_api, linked, tmp_path / "web.log"
    )
    # It left once daphne had stopped, without the interpreter's teardown of its heap.
    assert embedded_worker.EXITING in output, output


@pytest.mark.skipif(not os.getenv("REDIS_URL"), reason="the scheduler worker needs REDIS_URL")
def test_the_scheduler_worker_releases_every_lease_on_sigterm(kube_api, linked, tmp_path):
    env = {
        **database_environment(),
        "REDIS_URL": os.environ["REDIS_URL"],
        "REDIS_KEY_PREFIX": f"shutdown-{secrets.token_hex(4)}:",
    }
    command = ["bash", "-c", f"exec {procfile_commands()['scheduler']}"]
    env["PATH"] = os.pathsep.join([str(Path(sys.executable).parent), env.get("PATH", "")])

    assert_stops_releasing_every_lease(command, env, kube_api, linked, tmp_path / "worker.log")


def assert_stops_releasing_every_lease(command, env, kube_api, connection, log_path) -> str:
    """Starts ``command``, stops it with SIGTERM once it leads; returns what it wrote."""
    with log_path.open("w") as log:
        process = subprocess.Popen(command, cwd=ROOT, env=env, stdout=log, stderr=subprocess.STDOUT)
        try:
            wait_until_mirroring_and_leading(process, kube_api, connection, log_path)
            process.send_signal(signal.SIGTERM)
            code = process.wait(SUPERVISOR_SECONDS)
        finally:
            if process.poll() is None:
                process.kill()
                process.wait()
    output = log_path.read_text(errors="replace")
    assert code == 0, output
    assert "Traceback" not in output, output
    assert SchedulerLease.objects.get(workspace_id=connection.workspace_id).holder == ""
    assert MirrorLease.objects.get(connection=connection).holder == ""
    assert cluster_lease_holder(kube_api) == ""
    return output


def wait_until_mirroring_and_leading(process, kube_api, connection, log_path) -> None:
    """The mirror is synced, the service holds its lease and leads the cluster's Lease."""
    deadline = time.monotonic() + READY_SECONDS
    while True:
        assert process.poll() is None, log_path.read_text(errors="replace")
        status = MirrorStatus.objects.filter(connection=connection).first()
        lease = SchedulerLease.objects.filter(workspace_id=connection.workspace_id).first()
        if (
            status is not None
            and status.state == "synced"
            and lease is not None
            and lease.holder
            and not lease.holder.startswith("starting:")
            and cluster_lease_holder(kube_api)
        ):
            return
        assert time.monotonic() < deadline, log_path.read_text(errors="replace")
        time.sleep(0.1)


def cluster_lease_holder(kube_api) -> str:
    name = ElectionConfig().name
    try:
        lease = kube_api.get("Lease", name, kube_api.namespace)
    except Exception:  # a real cluster's client raises for a missing Lease
        return ""
    return ((lease or {}).get("spec") or {}).get("holderIdentity") or ""


def database_environment() -> dict[str, str]:
    """The environment of a playground process on the test's database (committed data), with
    quiet watches and no production broker unless the test adds one."""
    database = settings.DATABASES["default"]
    env = {k: v for k, v in os.environ.items() if k not in PLAYGROUND_VARIABLES}
    if db.vendor == "postgresql":
        user = quote(database.get("USER") or "")
        password = f":{quote(database['PASSWORD'])}" if database.get("PASSWORD") else ""
        where = f"{database.get('HOST') or '127.0.0.1'}:{database.get('PORT') or 5432}"
        env["DATABASE_URL"] = f"postgres://{user}{password}@{where}/{database['NAME']}"
    else:
        env["SQLITE_PATH"] = str(database["NAME"])
    env.update(
        MIRROR_WATCH_SECONDS=str(QUIET_WATCH_SECONDS), PYTHONUNBUFFERED="1", LOG_LEVEL="INFO"
    )
    return env
