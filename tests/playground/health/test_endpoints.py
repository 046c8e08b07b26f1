"""/healthz, /livez and /readyz of the web process: no login, any Host, kube-style answers; the
database and the channel layer made unreachable for real (a closed port, a file that cannot be
opened), and /readyz healthy again once they are back."""

from __future__ import annotations

import os
import socket
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import timedelta
from pathlib import Path

import pytest
from django.db import connections
from django.test import Client, override_settings
from django.utils import timezone

from playground.scheduling import lease
from tests.browser.server import free_port

PROBE_HOST = "10.244.1.7:8000"
"""What kubelet sends as Host: the pod's IP, which ALLOWED_HOSTS does not name."""


@pytest.fixture
def probe(settings) -> Client:
    """A probe's client, to a web process apart from the workers (production's processes; the
    embedded mode's extra check has its own tests below)."""
    settings.EMBEDDED_WORKER = False
    return Client(HTTP_HOST=PROBE_HOST)


@pytest.mark.django_db
@pytest.mark.parametrize("endpoint", ["/healthz", "/livez", "/readyz"])
def test_each_endpoint_answers_ok_in_plain_text_to_a_probe(probe, endpoint):
    response = probe.get(endpoint)
    assert response.status_code == 200
    assert response.content == b"ok"
    assert response["Content-Type"] == "text/plain; charset=utf-8"
    assert response["X-Content-Type-Options"] == "nosniff"


@pytest.mark.django_db
@pytest.mark.parametrize(
    ("path", "body"),
    [
        ("/livez?verbose", "[+]ping ok\nlivez check passed\n"),
        ("/healthz?verbose", "[+]ping ok\nhealthz check passed\n"),
        ("/readyz?verbose", "[+]database ok\n[+]channel-layer ok\nreadyz check passed\n"),
        (
            "/readyz?verbose&exclude=database",
            "[+]database excluded: ok\n[+]channel-layer ok\nreadyz check passed\n",
        ),
    ],
)
def test_verbose_lists_each_check(probe, path, body):
    response = probe.get(path)
    assert (response.status_code, response.content.decode()) == (200, body)


@pytest.mark.django_db
def test_one_check_has_its_own_path(probe):
    assert probe.get("/readyz/database").content == b"ok"
    assert probe.get("/readyz/channel-layer").content == b"ok"
    assert probe.get("/readyz/nope").status_code == 404


@contextmanager
def database_unreachable(tmp_path: Path) -> Iterator[None]:
    """The default connection pointed where no database answers: PostgreSQL on a closed port,
    SQLite in a folder that does not exist; put back as it was afterwards."""
    connection = connections["default"]
    saved = dict(connection.settings_dict)
    connection.close()
    if connection.vendor == "postgresql":
        connection.settings_dict.update(HOST="127.0.0.1", PORT=str(free_port()))
    else:
        connection.settings_dict["NAME"] = str(tmp_path / "gone" / "playground.sqlite3")
    try:
        yield
    finally:
        connection.close()
        connection.settings_dict.clear()
        connection.settings_dict.update(saved)


@pytest.mark.django_db(transaction=True)
def test_readyz_fails_while_the_database_is_unreachable_and_recovers(probe, tmp_path):
    assert probe.get("/readyz").status_code == 200
    with database_unreachable(tmp_path):
        response = probe.get("/readyz")
        assert response.status_code == 503
        assert response.content.decode() == (
            "[-]database failed: reason withheld\n[+]channel-layer ok\nreadyz check failed\n"
        )
        assert probe.get("/readyz/database").status_code == 503
        # The process itself is fine: no restart for an outage a restart cannot mend.
        assert probe.get("/livez").status_code == 200
        assert probe.get("/healthz").status_code == 200
        assert probe.get("/readyz?exclude=database").status_code == 200
    assert probe.get("/readyz").status_code == 200
    assert probe.get("/readyz?verbose").content.decode().startswith("[+]database ok\n")


def unreachable_redis_layer() -> dict:
    """A Redis channel layer on a port nobody listens on."""
    address = f"redis://127.0.0.1:{free_port()}/0"
    return {
        "default": {
            "BACKEND": "channels_redis.core.RedisChannelLayer",
            "CONFIG": {"hosts": [{"address": address}]},
        }
    }


@pytest.mark.django_db
def test_readyz_fails_while_the_channel_layer_is_unreachable_and_recovers(probe):
    assert probe.get("/readyz").status_code == 200
    with override_settings(CHANNEL_LAYERS=unreachable_redis_layer()):
        response = probe.get("/readyz")
        assert response.status_code == 503
        assert "[-]channel-layer failed: reason withheld\n" in response.content.decode()
        assert probe.get("/livez").status_code == 200
    assert probe.get("/readyz").status_code == 200


def test_the_answers_need_no_login_and_no_session(probe):
    response = probe.get("/livez")
    assert response.status_code == 200
    assert not response.cookies


HERE = f"{socket.gethostname()}:{os.getpid()}:task-1"
"""A scheduler lease holder in this process: the embedded worker's services are named so."""


@pytest.mark.django_db
def test_embedded_the_web_process_checks_its_schedulers_leases_as_kube_scheduler(
    probe, settings, workspace
):
    settings.EMBEDDED_WORKER = True
    then = timezone.now() - timedelta(seconds=3)
    generation = lease.acquire(workspace.pk, HERE, then, settings.SCHEDULER_LEASE_SECONDS)
    assert probe.get("/healthz?verbose").content.decode() == (
        "[+]leaderElection ok\nhealthz check passed\n"
    )
    assert probe.get("/readyz?verbose").content.decode() == (
        "[+]leaderElection ok\n[+]database ok\n[+]channel-layer ok\nreadyz check passed\n"
    )
    long_ago = timezone.now() - timedelta(seconds=settings.SCHEDULER_LEASE_SECONDS + 21)
    assert lease.renew(workspace.pk, HERE, generation, long_ago, settings.SCHEDULER_LEASE_SECONDS)
    assert probe.get("/healthz").content.decode() == (
        "[-]leaderElection failed: reason withheld\nhealthz check failed\n"
    )
    assert probe.get("/readyz").status_code == 503
    assert probe.get("/livez").status_code == 200


@pytest.mark.django_db(transaction=True)
def test_a_connection_the_server_dropped_fails_one_probe_and_the_next_reconnects(probe):
    connection = connections["default"]
    if connection.vendor != "postgresql":
        pytest.skip("PostgreSQL drops connections; a SQLite file has none to drop")
    import psycopg

    assert probe.get("/readyz").status_code == 200
    with connection.cursor() as cursor:
        cursor.execute("SELECT pg_backend_pid()")
        (pid,) = cursor.fetchone()
    params = connection.get_connection_params()
    with psycopg.connect(**params, autocommit=True) as admin:
        admin.execute("SELECT pg_terminate_backend(%s)", [pid])
    assert probe.get("/readyz").status_code == 503
    assert probe.get("/readyz").status_code == 200
