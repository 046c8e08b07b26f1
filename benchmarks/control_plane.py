"""A real Kubernetes control plane for benchmarks: the tests' etcd + kube-apiserver
(tests/kube/control_plane.py, from ``KUBEBUILDER_ASSETS``) and the real kube-scheduler.

The benchmark acts as the control plane's ``system:masters`` user: a kubeconfig file for it
(``kubeconfig``) serves the playground's connection and kube-scheduler alike.
"""

from __future__ import annotations

import os
import subprocess
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

import yaml
from kubernetes import config
from kubernetes.client import ApiClient

from tests.kube.control_plane import (
    ASSETS_ENV,
    FIXTURE_USER,
    ControlPlane,
    ControlPlaneError,
    stop_process,
)
from tests.kube.kubeconfig import kubeconfig

__all__ = ["ControlPlaneError", "LiveCluster", "assets_folder", "control_plane", "kube_scheduler"]


def assets_folder(environ: Mapping[str, str] = os.environ) -> Path:
    """KUBEBUILDER_ASSETS, checked: ControlPlaneError names what is missing."""
    folder = environ.get(ASSETS_ENV, "")
    if not folder:
        raise ControlPlaneError(
            f"{ASSETS_ENV} is not set: it names a folder holding etcd, kube-apiserver and"
            " kube-scheduler (envtest's layout)"
        )
    missing = [name for name in ("etcd", "kube-apiserver") if not (Path(folder) / name).is_file()]
    if missing:
        raise ControlPlaneError(f"{ASSETS_ENV}={folder}: no {' or '.join(missing)} there")
    return Path(folder)


@dataclass
class LiveCluster:
    """A running control plane and a kubeconfig file for its ``system:masters`` user."""

    plane: ControlPlane
    kubeconfig: Path

    def client(self, pool_size: int = 16) -> ApiClient:
        """An official client, with room for ``pool_size`` requests at once."""
        client = config.new_client_from_config(str(self.kubeconfig))
        client.rest_client.pool_manager.connection_pool_kw["maxsize"] = pool_size
        return client


@contextmanager
def control_plane(
    assets: Path, port: int = 0, extra_flags: tuple[str, ...] = ()
) -> Iterator[LiveCluster]:
    """etcd and kube-apiserver on 127.0.0.1 (kube-apiserver on ``port``, a free one when 0),
    ready to answer; stopped and their folder removed on the way out. ``extra_flags`` go to
    kube-apiserver (alpha APIs: ``--runtime-config``, ``--feature-gates``)."""
    plane = ControlPlane(assets, port=port, extra_flags=extra_flags)
    try:
        plane.start()
        path = plane.folder / "kubeconfig"
        text = kubeconfig(
            plane.url, plane.certificates.ca_pem, plane.fixture_token, FIXTURE_USER, "live"
        )
        path.write_text(yaml.safe_dump(text, sort_keys=False))
        yield LiveCluster(plane, path)
    finally:
        plane.stop()


@contextmanager
def kube_scheduler(
    assets: Path, cluster: LiveCluster, extra_flags: tuple[str, ...] = ()
) -> Iterator[subprocess.Popen]:
    """The real kube-scheduler against the control plane: leader election off, no serving
    port (nothing asks it for metrics); stopped on the way out. ``extra_flags`` go to it
    (``--feature-gates``, ``--config``)."""
    binary = assets / "kube-scheduler"
    if not binary.is_file():
        raise ControlPlaneError(f"{ASSETS_ENV}={assets}: no kube-scheduler there")
    command = [str(binary), f"--kubeconfig={cluster.kubeconfig}", "--leader-elect=false"]
    with (cluster.plane.folder / "kube-scheduler.log").open("wb") as log:
        process = subprocess.Popen(
            [*command, "--secure-port=0", *extra_flags],
            stdin=subprocess.DEVNULL,
            stdout=log,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
    try:
        yield process
    finally:
        stop_process(process)
