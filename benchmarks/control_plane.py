"""A real Kubernetes control plane for benchmarks: etcd, kube-apiserver and kube-scheduler.

The binaries come from ``KUBEBUILDER_ASSETS`` (envtest's layout: a folder holding ``etcd``,
``kube-apiserver`` and, for the real scheduler, ``kube-scheduler``). They are started on
127.0.0.1 with the flags a control plane without kubelets or controllers needs (the shared
``kube/control-plane`` script's): token authentication for a ``system:masters`` user, RBAC, no
ServiceAccount or TaintNodesByCondition admission, no compaction. Certificates are made fresh
(tests/kube/tls.py), and everything lives in a temporary folder removed on the way out.
"""

from __future__ import annotations

import base64
import os
import secrets
import signal
import socket
import ssl
import subprocess
import tempfile
import time
import urllib.request
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

import yaml
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import ec
from kubernetes import config
from kubernetes.client import ApiClient

from tests.kube.tls import make_certificates

ASSETS_ENV = "KUBEBUILDER_ASSETS"
READY_SECONDS = 90.0
"""How long etcd and kube-apiserver may take to answer (5-15 s on these machines)."""
STOP_SECONDS = 20.0
"""A graceful stop may take this long before the process is killed."""
APISERVER_FLAGS = (
    "--authorization-mode=RBAC",
    "--disable-admission-plugins=ServiceAccount,TaintNodesByCondition",
    "--etcd-compaction-interval=0",
    "--service-cluster-ip-range=10.0.0.0/24",
    "--service-account-issuer=https://kubernetes.default.svc",
    "--advertise-address=127.0.0.1",
    "--allow-privileged=true",
)


class ControlPlaneError(Exception):
    """The control plane could not be started (the message names what and where to look)."""


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


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


@dataclass
class ControlPlane:
    """A running etcd + kube-apiserver; ``kubeconfig`` is a file for the admin user."""

    folder: Path
    port: int
    token: str
    ca_pem: str
    processes: dict[str, subprocess.Popen]

    @property
    def url(self) -> str:
        return f"https://127.0.0.1:{self.port}"

    @property
    def kubeconfig(self) -> Path:
        return self.folder / "kubeconfig"

    def client(self, pool_size: int = 16) -> ApiClient:
        """An official client for the admin user, with room for ``pool_size`` requests at once."""
        client = config.new_client_from_config(str(self.kubeconfig))
        client.configuration.connection_pool_maxsize = pool_size
        client.rest_client.pool_manager.connection_pool_kw["maxsize"] = pool_size
        return client

    def log(self, name: str) -> Path:
        return self.folder / f"{name}.log"


@contextmanager
def control_plane(assets: Path, port: int = 0) -> Iterator[ControlPlane]:
    """etcd and kube-apiserver on 127.0.0.1 (kube-apiserver on ``port``, free ones when 0),
    ready to answer; stopped and their folder removed on the way out."""
    with tempfile.TemporaryDirectory(prefix="live-control-plane-") as name:
        folder = Path(name)
        port = port or free_port()
        token = secrets.token_hex(16)
        certificates = make_certificates("kube-apiserver")
        _write(folder, certificates, token, port)
        plane = ControlPlane(folder, port, token, certificates.ca_pem, {})
        try:
            etcd_port, peer_port = free_port(), free_port()
            plane.processes["etcd"] = _start(
                folder,
                "etcd",
                [
                    str(assets / "etcd"),
                    f"--data-dir={folder / 'etcd-data'}",
                    f"--listen-client-urls=http://127.0.0.1:{etcd_port}",
                    f"--advertise-client-urls=http://127.0.0.1:{etcd_port}",
                    f"--listen-peer-urls=http://127.0.0.1:{peer_port}",
                    "--unsafe-no-fsync",
                ],
            )
            plane.processes["kube-apiserver"] = _start(
                folder,
                "kube-apiserver",
                [
                    str(assets / "kube-apiserver"),
                    f"--etcd-servers=http://127.0.0.1:{etcd_port}",
                    "--bind-address=127.0.0.1",
                    f"--secure-port={port}",
                    f"--tls-cert-file={folder / 'apiserver.crt'}",
                    f"--tls-private-key-file={folder / 'apiserver.key'}",
                    f"--token-auth-file={folder / 'tokens.csv'}",
                    f"--service-account-key-file={folder / 'sa.pub'}",
                    f"--service-account-signing-key-file={folder / 'sa.key'}",
                    *APISERVER_FLAGS,
                ],
            )
            _wait_ready(plane)
            yield plane
        finally:
            for name in reversed(list(plane.processes)):
                stop_process(plane.processes[name])


@contextmanager
def kube_scheduler(assets: Path, plane: ControlPlane) -> Iterator[subprocess.Popen]:
    """The real kube-scheduler against the control plane: leader election off, no serving
    port (nothing asks it for metrics); stopped on the way out."""
    binary = assets / "kube-scheduler"
    if not binary.is_file():
        raise ControlPlaneError(f"{ASSETS_ENV}={assets}: no kube-scheduler there")
    process = _start(
        plane.folder,
        "kube-scheduler",
        [
            str(binary),
            f"--kubeconfig={plane.kubeconfig}",
            "--leader-elect=false",
            "--secure-port=0",
        ],
    )
    try:
        yield process
    finally:
        stop_process(process)


def stop_process(process: subprocess.Popen) -> None:
    """SIGTERM, then SIGKILL after STOP_SECONDS."""
    if process.poll() is None:
        process.send_signal(signal.SIGTERM)
        try:
            process.wait(STOP_SECONDS)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()


def _write(folder: Path, certificates, token: str, port: int) -> None:
    (folder / "apiserver.crt").write_text(certificates.cert_pem)
    (folder / "apiserver.key").write_text(certificates.key_pem)
    (folder / "ca.crt").write_text(certificates.ca_pem)
    (folder / "tokens.csv").write_text(f"{token},admin,1,system:masters\n")
    key = ec.generate_private_key(ec.SECP256R1())
    pem = key.private_bytes(
        serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption()
    )
    (folder / "sa.key").write_bytes(pem)
    public = key.public_key().public_bytes(
        serialization.Encoding.PEM, serialization.PublicFormat.SubjectPublicKeyInfo
    )
    (folder / "sa.pub").write_bytes(public)
    ca = base64.b64encode(certificates.ca_pem.encode()).decode()
    kubeconfig = {
        "apiVersion": "v1",
        "kind": "Config",
        "clusters": [
            {
                "name": "local",
                "cluster": {
                    "server": f"https://127.0.0.1:{port}",
                    "certificate-authority-data": ca,
                },
            }
        ],
        "users": [{"name": "admin", "user": {"token": token}}],
        "contexts": [{"name": "local", "context": {"cluster": "local", "user": "admin"}}],
        "current-context": "local",
    }
    (folder / "kubeconfig").write_text(yaml.safe_dump(kubeconfig, sort_keys=False))


def _start(folder: Path, name: str, command: list[str]) -> subprocess.Popen:
    with (folder / f"{name}.log").open("wb") as log:
        return subprocess.Popen(
            command, cwd=folder, stdin=subprocess.DEVNULL, stdout=log, stderr=subprocess.STDOUT
        )


def _wait_ready(plane: ControlPlane) -> None:
    """Until kube-apiserver's /readyz answers ok (etcd included)."""
    context = ssl.create_default_context(cadata=plane.ca_pem)
    request = urllib.request.Request(
        f"{plane.url}/readyz", headers={"Authorization": f"Bearer {plane.token}"}
    )
    deadline = time.monotonic() + READY_SECONDS
    while time.monotonic() < deadline:
        for name, process in plane.processes.items():
            if process.poll() is not None:
                raise ControlPlaneError(f"{name} exited:\n{tail(plane.log(name))}")
        try:
            with urllib.request.urlopen(request, context=context, timeout=2) as response:
                if response.status == 200:
                    return
        except OSError:
            pass
        time.sleep(0.3)
    log = tail(plane.log("kube-apiserver"))
    raise ControlPlaneError(f"kube-apiserver not ready after {READY_SECONDS:.0f} s:\n{log}")


def tail(path: Path, lines: int = 20) -> str:
    """The end of a log: the folder goes with the control plane, so errors quote it."""
    try:
        return "\n".join(path.read_text(errors="replace").splitlines()[-lines:])
    except OSError:
        return ""
