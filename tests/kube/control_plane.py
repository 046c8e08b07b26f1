"""A real control plane for the tests: etcd and kube-apiserver from envtest's asset folder.

``KUBEBUILDER_ASSETS`` names a folder holding ``etcd`` and ``kube-apiserver`` (controller-runtime
envtest's convention, so any envtest asset folder works). The two are started on free 127.0.0.1
ports with what a control plane without kube-controller-manager needs: a self-made CA and
serving certificate, a static token file (the fixture's own ``system:masters`` user and the
users tests act as), RBAC, no ServiceAccount or TaintNodesByCondition admission, no etcd
compaction. One is shared by a whole test session; ``stop`` ends both gracefully.
"""

from __future__ import annotations

import contextlib
import json
import os
import secrets
import shutil
import signal
import socket
import ssl
import subprocess
import tempfile
import time
import urllib.request
from dataclasses import dataclass, field
from pathlib import Path

from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import ec

from tests.kube.tls import Certificates, make_certificates

ASSETS_ENV = "KUBEBUILDER_ASSETS"
FIXTURE_USER = "pg-test-fixture"
"""The fixture's own identity (``system:masters``): setup, checks and cleanup."""
USERS = ("admin", *(f"user-{n}" for n in range(1, 9)))
"""The users tests act as; each is bound to cluster-admin until a test denies it something."""
AUDIT_POLICY = {
    "apiVersion": "audit.k8s.io/v1",
    "kind": "Policy",
    "omitStages": ["RequestReceived"],
    "rules": [{"level": "Request", "users": list(USERS)}, {"level": "None"}],
}
"""Every request of the test users, with its body: the tests' request log (``requests``)."""
START_SECONDS = 90
STOP_SECONDS = 20
SERVICE_RANGE = "10.0.0.0/24"


class ControlPlaneError(RuntimeError):
    """The control plane could not start; the message says why and where its log is."""


@dataclass
class ControlPlane:
    """etcd and kube-apiserver on free ports, with the tokens of ``USERS``."""

    assets: Path
    folder: Path = field(default_factory=lambda: Path(tempfile.mkdtemp(prefix="pg-test-kube-")))
    certificates: Certificates = field(default_factory=make_certificates)
    tokens: dict[str, str] = field(default_factory=dict)
    port: int = 0
    processes: list[subprocess.Popen] = field(default_factory=list)
    extra_flags: tuple[str, ...] = ()
    """More kube-apiserver flags (alpha APIs: ``--runtime-config``, ``--feature-gates``)."""

    @property
    def url(self) -> str:
        return f"https://127.0.0.1:{self.port}"

    @property
    def audit_log(self) -> Path:
        return self.folder / "audit.log"

    @property
    def fixture_token(self) -> str:
        return self.tokens[FIXTURE_USER]

    def start(self) -> ControlPlane:
        """Start etcd, then kube-apiserver, and wait until ``/readyz`` answers ok."""
        for binary in ("etcd", "kube-apiserver"):
            if not os.access(self.assets / binary, os.X_OK):
                raise ControlPlaneError(f"{ASSETS_ENV}={self.assets} has no executable {binary}")
        self._write_files()
        etcd_port, peer_port, free = _free_ports(3)
        self.port = self.port or free  # a benchmark may name kube-apiserver's port
        self._spawn("etcd", self._etcd_args(etcd_port, peer_port))
        self._spawn("kube-apiserver", self._apiserver_args(etcd_port))
        self._wait_ready()
        return self

    def stop(self) -> None:
        """SIGTERM kube-apiserver, then etcd, each killed if still running after 20 s."""
        for process in reversed(self.processes):
            stop_process(process)
        self.processes.clear()
        shutil.rmtree(self.folder, ignore_errors=True)

    def log_tail(self, name: str = "kube-apiserver", lines: int = 20) -> str:
        path = self.folder / f"{name}.log"
        text = path.read_text(errors="replace") if path.exists() else ""
        return "\n".join(text.splitlines()[-lines:])

    # --- files and arguments -----------------------------------------------------------------

    def _write_files(self) -> None:
        folder = self.folder
        (folder / "ca.crt").write_text(self.certificates.ca_pem)
        (folder / "apiserver.crt").write_text(self.certificates.cert_pem)
        (folder / "apiserver.key").write_text(self.certificates.key_pem)
        key = ec.generate_private_key(ec.SECP256R1())
        (folder / "sa.key").write_bytes(
            key.private_bytes(
                serialization.Encoding.PEM,
                serialization.PrivateFormat.PKCS8,
                serialization.NoEncryption(),
            )
        )
        (folder / "sa.pub").write_bytes(
            key.public_key().public_bytes(
                serialization.Encoding.PEM, serialization.PublicFormat.SubjectPublicKeyInfo
            )
        )
        self.tokens = {user: secrets.token_hex(16) for user in (FIXTURE_USER, *USERS)}
        lines = [f'{self.tokens[FIXTURE_USER]},{FIXTURE_USER},{FIXTURE_USER},"system:masters"']
        lines += [f"{self.tokens[user]},{user},{user}" for user in USERS]
        (folder / "tokens.csv").write_text("\n".join(lines) + "\n")
        (folder / "audit-policy.json").write_text(json.dumps(AUDIT_POLICY))

    def _etcd_args(self, client_port: int, peer_port: int) -> list[str]:
        return [
            str(self.assets / "etcd"),
            f"--data-dir={self.folder / 'etcd-data'}",
            f"--listen-client-urls=http://127.0.0.1:{client_port}",
            f"--advertise-client-urls=http://127.0.0.1:{client_port}",
            f"--listen-peer-urls=http://127.0.0.1:{peer_port}",
            "--unsafe-no-fsync",
        ]

    def _apiserver_args(self, etcd_port: int) -> list[str]:
        folder = self.folder
        return [
            str(self.assets / "kube-apiserver"),
            f"--etcd-servers=http://127.0.0.1:{etcd_port}",
            "--bind-address=127.0.0.1",
            "--advertise-address=127.0.0.1",
            f"--secure-port={self.port}",
            f"--tls-cert-file={folder / 'apiserver.crt'}",
            f"--tls-private-key-file={folder / 'apiserver.key'}",
            f"--token-auth-file={folder / 'tokens.csv'}",
            f"--service-account-key-file={folder / 'sa.pub'}",
            f"--service-account-signing-key-file={folder / 'sa.key'}",
            "--service-account-issuer=https://kubernetes.default.svc",
            f"--service-cluster-ip-range={SERVICE_RANGE}",
            "--authorization-mode=RBAC",
            # No service-account controller and no node lifecycle controller run here.
            "--disable-admission-plugins=ServiceAccount,TaintNodesByCondition",
            "--etcd-compaction-interval=0",
            f"--audit-policy-file={folder / 'audit-policy.json'}",
            f"--audit-log-path={self.audit_log}",
            "--audit-log-format=json",
            "--allow-privileged=true",
            *self.extra_flags,
        ]

    # --- processes ---------------------------------------------------------------------------

    def _spawn(self, name: str, args: list[str]) -> None:
        log = (self.folder / f"{name}.log").open("wb")
        self.processes.append(
            subprocess.Popen(
                args,
                stdout=log,
                stderr=subprocess.STDOUT,
                stdin=subprocess.DEVNULL,
                cwd=self.folder,
                start_new_session=True,  # Ctrl-C in the terminal reaches pytest, which stops us
            )
        )

    def _wait_ready(self) -> None:
        context = ssl.create_default_context(cadata=self.certificates.ca_pem)
        request = urllib.request.Request(
            f"{self.url}/readyz", headers={"Authorization": f"Bearer {self.fixture_token}"}
        )
        deadline = time.monotonic() + START_SECONDS
        while time.monotonic() < deadline:
            for process, name in zip(self.processes, ("etcd", "kube-apiserver"), strict=True):
                if process.poll() is not None:
                    raise ControlPlaneError(
                        f"{name} exited with {process.returncode}:\n{self.log_tail(name)}"
                    )
            with (
                contextlib.suppress(OSError),
                urllib.request.urlopen(request, context=context, timeout=2) as response,
            ):
                if response.status == 200:
                    return
            time.sleep(0.25)
        raise ControlPlaneError(
            f"kube-apiserver not ready after {START_SECONDS} s:\n{self.log_tail()}"
        )


def stop_process(process: subprocess.Popen) -> None:
    """SIGTERM, and SIGKILL if it is still running after STOP_SECONDS."""
    with contextlib.suppress(ProcessLookupError):
        process.send_signal(signal.SIGTERM)
    try:
        process.wait(STOP_SECONDS)
    except subprocess.TimeoutExpired:
        process.kill()
        process.wait()


def _free_ports(count: int) -> list[int]:
    """Ports the kernel hands out as free now (held together, so they differ)."""
    sockets = [socket.socket() for _ in range(count)]
    try:
        for sock in sockets:
            sock.bind(("127.0.0.1", 0))
        return [sock.getsockname()[1] for sock in sockets]
    finally:
        for sock in sockets:
            sock.close()
