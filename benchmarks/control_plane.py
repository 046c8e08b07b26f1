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

__all__ = [
    "DEFAULT_LIMITS",
    "SCHEDULER_PERF_LIMITS",
    "ClientLimits",
    "ControlPlaneError",
    "LiveCluster",
    "assets_folder",
    "control_plane",
    "kube_scheduler",
]


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


@dataclass(frozen=True)
class ClientLimits:
    """kube-scheduler's ``clientConnection.qps`` and ``burst``: how many requests a second it
    may send the API server (client-go's token bucket)."""

    name: str
    qps: int
    burst: int

    def describe(self) -> str:
        return f"{self.name} client limits (qps {self.qps}, burst {self.burst})"


DEFAULT_LIMITS = ClientLimits("default", 50, 100)
"""KubeSchedulerConfiguration's defaults: about 50 binds a second at most, each bind one
request (its event and status patch go through the same bucket)."""
SCHEDULER_PERF_LIMITS = ClientLimits("scheduler_perf", 5000, 5000)
"""What scheduler_perf (test/integration/scheduler_perf) gives its scheduler: its published
rates, the issue's 282 pods/s among them, are not held back by the client."""


@contextmanager
def kube_scheduler(
    assets: Path,
    cluster: LiveCluster,
    extra_flags: tuple[str, ...] = (),
    limits: ClientLimits = DEFAULT_LIMITS,
) -> Iterator[subprocess.Popen]:
    """The real kube-scheduler against the control plane: leader election off, no serving
    port (nothing asks it for metrics), ``limits`` on its client; stopped on the way out.
    ``extra_flags`` go to it (``--feature-gates``)."""
    binary = assets / "kube-scheduler"
    if not binary.is_file():
        raise ControlPlaneError(f"{ASSETS_ENV}={assets}: no kube-scheduler there")
    configuration = cluster.plane.folder / f"kube-scheduler-{limits.name}.yaml"
    configuration.write_text(
        yaml.safe_dump(
            {
                "apiVersion": "kubescheduler.config.k8s.io/v1",
                "kind": "KubeSchedulerConfiguration",
                "clientConnection": {
                    "kubeconfig": str(cluster.kubeconfig),
                    "qps": limits.qps,
                    "burst": limits.burst,
                },
                "leaderElection": {"leaderElect": False},
            }
        )
    )
    command = [str(binary), f"--config={configuration}", "--secure-port=0"]
    log_path = cluster.plane.folder / f"kube-scheduler-{limits.name}.log"
    with log_path.open("wb") as log:
        process = subprocess.Popen(
            [*command, *extra_flags],
            stdin=subprocess.DEVNULL,
            stdout=log,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
    try:
        yield process
    finally:
        stop_process(process)
