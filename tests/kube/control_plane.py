"""A real control plane for the tests: etcd and kube-apiserver from envtest's asset folder.

``KUBEBUILDER_ASSETS`` names a folder holding ``etcd`` and ``kube-apiserver`` (controller-runtime
envtest's convention, so any envtest asset folder works). The two are started on free 127.0.0.1
ports with what a control plane without kube-controller-manager needs: a self-made CA and
serving certificate, a static token file (the fixture's own ``system:masters`` user and the
users tests act as), RBAC, no ServiceAccount or TaintNodesByCondition admission, no etcd
compaction. One is shared by a whole test session; ``stop`` ends both gracefully.

kube-apiserver alone can also be stopped and started again on the same port with the same
flags and files while etcd keeps every object: the faults a real server shows on demand (a
restart, a server down, cut watch streams, a token that no longer counts, compacted history).
"""

from __future__ import annotations

import base64
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
WATCH_GRACE = "2s"
"""``--shutdown-watch-termination-grace-period``: without it a SIGTERM leaves open watches
running and the HTTP server's shutdown waits for them up to ``--request-timeout`` (60 s); with
it every watch ends at once, cleanly, as the shutdown begins."""
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
    etcd_port: int = 0
    etcd: subprocess.Popen | None = None
    apiserver: subprocess.Popen | None = None
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
        self.etcd_port, peer_port, free = _free_ports(3)
        self.port = self.port or free  # a benchmark may name kube-apiserver's port
        self.etcd = self._spawn("etcd", self._etcd_args(self.etcd_port, peer_port))
        self.start_apiserver()
        return self

    def stop(self) -> None:
        """SIGTERM kube-apiserver, then etcd, each killed if still running after 20 s."""
        self.stop_apiserver()
        if self.etcd is not None:
            stop_process(self.etcd)
            self.etcd = None
        shutil.rmtree(self.folder, ignore_errors=True)

    # --- kube-apiserver alone: the faults ------------------------------------------------------

    @property
    def apiserver_running(self) -> bool:
        return self.apiserver is not None

    def start_apiserver(self) -> None:
        """Start kube-apiserver (again: the same port, flags and files) and wait for
        ``/readyz``. A new one's watch cache starts at etcd's current revision."""
        self.apiserver = self._spawn("kube-apiserver", self._apiserver_args())
        self._wait_ready()

    def stop_apiserver(self, kill: bool = False) -> None:
        """End kube-apiserver, etcd keeping every object: gracefully (SIGTERM: open watch
        streams end cleanly at once, see WATCH_GRACE), or with ``kill`` by SIGKILL (every
        connection cut mid-stream)."""
        if self.apiserver is None:
            return
        if kill:
            self.apiserver.kill()
            self.apiserver.wait()
        else:
            stop_process(self.apiserver)
        self.apiserver = None

    def restart_apiserver(self, kill: bool = False) -> None:
        self.stop_apiserver(kill)
        self.start_apiserver()

    def renew_token(self, user: str) -> None:
        """Give ``user`` a new token in the token file. kube-apiserver reads that file only
        as it starts: until a restart the old token counts, afterwards it is a 401."""
        self.tokens[user] = secrets.token_hex(16)
        self._write_tokens()

    def compact_etcd(self) -> int:
        """Compact etcd's history up to its current revision (through its v3 HTTP gateway,
        waiting until the compaction is physical); returns that revision. A running
        kube-apiserver's watch cache still holds its window of events: only a new one, or a
        read that goes to etcd, sees the history gone."""
        revision = self._etcd("range", {"key": base64.b64encode(b"/").decode(), "count_only": True})
        compacted = revision["header"]["revision"]
        self._etcd("compaction", {"revision": compacted, "physical": True})
        return int(compacted)

    def _etcd(self, call: str, body: dict) -> dict:
        request = urllib.request.Request(
            f"http://127.0.0.1:{self.etcd_port}/v3/kv/{call}",
            data=json.dumps(body).encode(),
            headers={"Content-Type": "application/json"},
            method="POST",
        )
        with urllib.request.urlopen(request, timeout=STOP_SECONDS) as response:
            return json.loads(response.read())

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
        self._write_tokens()
        (folder / "audit-policy.json").write_text(json.dumps(AUDIT_POLICY))

    def _write_tokens(self) -> None:
        lines = [f'{self.tokens[FIXTURE_USER]},{FIXTURE_USER},{FIXTURE_USER},"system:masters"']
        lines += [f"{self.tokens[user]},{user},{user}" for user in USERS]
        (self.folder / "tokens.csv").write_text("\n".join(lines) + "\n")

    def _etcd_args(self, client_port: int, peer_port: int) -> list[str]:
        return [
            str(self.assets / "etcd"),
            f"--data-dir={self.folder / 'etcd-data'}",
            f"--listen-client-urls=http://127.0.0.1:{client_port}",
            f"--advertise-client-urls=http://127.0.0.1:{client_port}",
            f"--listen-peer-urls=http://127.0.0.1:{peer_port}",
            "--unsafe-no-fsync",
        ]

    def _apiserver_args(self) -> list[str]:
        folder = self.folder
        return [
            str(self.assets / "kube-apiserver"),
            f"--etcd-servers=http://127.0.0.1:{self.etcd_port}",
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
            f"--shutdown-watch-termination-grace-period={WATCH_GRACE}",
            *self.extra_flags,
        ]

    # --- processes ---------------------------------------------------------------------------

    def _spawn(self, name: str, args: list[str]) -> subprocess.Popen:
        """Start a process, its output appended to ``<name>.log`` (a restart's after the
        last run's)."""
        with (self.folder / f"{name}.log").open("ab") as log:
            return subprocess.Popen(
                args,
                stdout=log,
                stderr=subprocess.STDOUT,
                stdin=subprocess.DEVNULL,
                cwd=self.folder,
                start_new_session=True,  # Ctrl-C in the terminal reaches pytest, which stops us
            )

    def _wait_ready(self) -> None:
        context = ssl.create_default_context(cadata=self.certificates.ca_pem)
        request = urllib.request.Request(
            f"{self.url}/readyz", headers={"Authorization": f"Bearer {self.fixture_token}"}
        )
        deadline = time.monotonic() + START_SECONDS
        while time.monotonic() < deadline:
            for process, name in ((self.etcd, "etcd"), (self.apiserver, "kube-apiserver")):
                if process is not None and process.poll() is not None:
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
