"""``manage.py worker_health``: a worker whose leases are renewed is healthy; one that holds a
lease it stopped renewing (a stuck service, a dead watchdog) fails, as kube-scheduler's
leaderElection check fails once its leader has not renewed for the lease plus 20 seconds."""

from __future__ import annotations

import socket
from datetime import timedelta
from io import StringIO

from django.core.management import call_command
from django.utils import timezone

from playground.clusters.models import ClusterConnection, MirrorLease
from playground.scheduling import lease

HERE = f"{socket.gethostname()}:4242:task-1"
ELSEWHERE = "other-host:7:task-9"


def run(*args: str) -> tuple[int, str, str]:
    """Exit code, standard output and standard error of the command."""
    out, err = StringIO(), StringIO()
    try:
        call_command("worker_health", *args, stdout=out, stderr=err)
        code = 0
    except SystemExit as exit:
        code = exit.code
    return code, out.getvalue(), err.getvalue()


def renewed(workspace, holder: str, seconds_ago: float) -> None:
    """The workspace's lease taken by ``holder`` and last renewed ``seconds_ago``, through the
    scheduler's own lease functions."""
    then = timezone.now() - timedelta(seconds=seconds_ago)
    generation = lease.acquire(workspace.pk, holder, then, 15)
    assert generation is not None
    assert lease.renew(workspace.pk, holder, generation, then, 15)


def test_a_worker_holding_no_lease_is_healthy(db):
    code, out, _ = run()
    assert code == 0
    assert (
        out == "[+]database ok\n[+]leaderElection ok\n[+]mirror-leases ok\nhealthz check passed\n"
    )


def test_fresh_renewals_are_healthy(workspace):
    renewed(workspace, HERE, seconds_ago=3)
    assert run()[0] == 0


def test_a_lease_not_renewed_for_the_lease_and_20_seconds_fails(workspace, settings):
    settings.SCHEDULER_LEASE_SECONDS = 15
    renewed(workspace, HERE, seconds_ago=36)
    code, out, err = run()
    assert code == 1
    assert "[-]leaderElection failed: reason withheld\n" in out
    assert out.endswith("healthz check failed\n")
    assert f"workspace {workspace.pk} (holder {HERE})" in err
    assert "not renewed for 35 s" in err


def test_max_age_decides_what_is_recent(workspace):
    renewed(workspace, HERE, seconds_ago=10)
    assert run("--max-age", "30")[0] == 0
    assert run("--max-age", "5")[0] == 1


def test_another_hosts_stale_lease_is_not_this_workers(workspace):
    renewed(workspace, ELSEWHERE, seconds_ago=600)
    assert run()[0] == 0
    assert run("--holder", "other-host:")[0] == 1


def test_a_stale_mirror_lease_fails_its_own_check(db, user):
    connection = ClusterConnection.objects.create(name="prod", owner=user)
    long_ago = timezone.now() - timedelta(minutes=5)
    MirrorLease.objects.create(
        connection=connection, holder=HERE, renewed_at=long_ago, expires_at=long_ago
    )
    code, out, _ = run()
    assert code == 1
    assert "[+]leaderElection ok\n[-]mirror-leases failed: reason withheld\n" in out
    assert run("--exclude", "mirror-leases")[0] == 0


def test_a_bad_max_age_is_refused_by_name(db):
    code, _, err = run("--max-age", "0")
    assert code == 2
    assert "--max-age: must be positive" in err
