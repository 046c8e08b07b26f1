"""Every connection test has its own encryption key and no exec switch set; a kube-apiserver
that serves the workload API for the modules that ask for one."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from playground.clusters.encryption import KEY_ENV, KEY_FILE_ENV, generate_key
from playground.clusters.kubeconfig import ALLOW_EXEC_ENV
from playground.clusters.models import ClusterConnection
from tests.kube.control_plane import ASSETS_ENV, ControlPlane
from tests.kube.envtest import OwnedCluster

ALPHA_API = (
    "--runtime-config=scheduling.k8s.io/v1alpha2=true",
    "--feature-gates=GenericWorkload=true,GangScheduling=true",
)


@pytest.fixture(autouse=True)
def encryption_key(monkeypatch):
    key = generate_key()
    monkeypatch.setenv(KEY_ENV, key)
    monkeypatch.delenv(KEY_FILE_ENV, raising=False)
    monkeypatch.delenv(ALLOW_EXEC_ENV, raising=False)
    return key


@pytest.fixture
def var_dir(settings, tmp_path):
    """The var directory (recordings are written there) in the test's own folder."""
    settings.VAR_DIR = tmp_path
    return tmp_path


@pytest.fixture
def kube_connection(kube_api, user):
    """A stored connection "prod" of the user to the ``kube_api`` server, mirrored nowhere."""
    server = kube_api
    connection = ClusterConnection(name="prod", owner=user, server=server.url)
    connection.set_kubeconfig(server.kubeconfig_text())
    connection.save()
    return connection


@pytest.fixture(scope="module")
def alpha_plane():
    """A kube-apiserver of the module's own, serving the workload API (a test may restart it
    without, and must leave it serving it again)."""
    assets = os.getenv(ASSETS_ENV)
    if not assets:
        pytest.skip(f"{ASSETS_ENV} names no envtest assets")
    plane = ControlPlane(Path(assets), extra_flags=ALPHA_API)
    plane.start()
    try:
        yield OwnedCluster(plane)
    finally:
        plane.stop()
