"""A connection's mirror, running: one holder at a time, its state written for the pages.

``MirrorRuntime`` is what the Celery task ``run_mirror`` (playground.clusters.tasks) runs for a
connection linked to a workspace. It takes the connection's MirrorLease (as the scheduler
service takes its workspace's), starts the Mirror's streams on their own threads, and then,
every ``status_seconds`` until told to stop:

- renews the lease once a third of it has passed, and ends when another worker took it over
  (this one was thought dead), so two workers never mirror one connection for long;
- ends when the connection is gone, is no longer linked to the workspace it mirrors ("Stop
  mirroring"), or its settings changed (namespaces, selector, credentials): then the task
  starts a successor at once, which follows the new settings;
- writes MirrorStatus: synced / syncing / failing, the last error, objects per kind, lag;
- starts and stops the connection's recording as the page asks (``recording.follow``). A
  recording ends with the run that made it (its file would not say what a gap missed).

A worker that dies stops renewing; the lease lapses and the watchdog's next round starts the
mirror on another worker, which re-lists and reconciles (nothing is applied twice).
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable
from datetime import datetime
from typing import Any

from django.conf import settings
from django.db import close_old_connections
from django.utils import timezone
from kubernetes.client import ApiClient

from framework.util.clock import Clock, RealClock
from playground.clusters import recording
from playground.clusters.connecting import api_client
from playground.clusters.encryption import EncryptionKeyError
from playground.clusters.kubeconfig import KubeconfigError
from playground.clusters.mirror import Mirror
from playground.clusters.models import ClusterConnection, MirrorLease, MirrorStatus
from playground.metrics.families import MIRROR_LAG_SECONDS
from playground.scheduling.lease import Leases

logger = logging.getLogger(__name__)

MIRROR_LEASES = Leases(MirrorLease, "connection", ClusterConnection)
"""Connections' MirrorLeases: who runs each mirror."""

STATUS_SECONDS = 1.0
"""How often the runtime writes the mirror's state (and checks its lease and connection)."""
JOIN_SECONDS = 2.0
"""How long a stopping runtime waits for its streams, all together: they end within a fraction
of a second (their watches are shut down); one that does not is a daemon thread that writes
nothing more."""

SETTINGS_FIELDS = ("workspace_id", "in_cluster", "kubeconfig_encrypted", "context")
"""What the mirror is built from, beside the selectors (``_followed``)."""


class MirrorRuntime:
    """Runs a connection's Mirror under its lease (see the module)."""

    def __init__(
        self,
        connection_id: int,
        holder: str,
        *,
        task_id: str = "",
        clock: Clock | None = None,
        lease_seconds: float | None = None,
        watch_seconds: int | None = None,
        status_seconds: float = STATUS_SECONDS,
        client_of: Callable[[ClusterConnection], ApiClient] = api_client,
    ) -> None:
        self.connection_id = connection_id
        self.holder = holder
        self.task_id = task_id
        self.clock = clock or RealClock()
        self.lease_seconds = float(lease_seconds or settings.MIRROR_LEASE_SECONDS)
        self.watch_seconds = watch_seconds or settings.MIRROR_WATCH_SECONDS
        self.status_seconds = status_seconds
        self.client_of = client_of
        self.generation: int | None = None
        self.connection: ClusterConnection | None = None
        self.mirror: Mirror | None = None
        self.recorder: recording.Recorder | None = None
        self.client: ApiClient | None = None
        self.why = ""
        self.restart = False
        """Set when the run ended for a successor to follow new settings at once."""
        self._renewed = 0.0
        self._threads: list[threading.Thread] = []
        self._streams_stop = threading.Event()

    # ------------------------------------------------------------------------------------------
    # Lifecycle

    def start(self) -> bool:
        """Takes the lease and builds the mirror; False (with ``why``) when another worker holds
        the lease or there is nothing to mirror."""
        self.generation = MIRROR_LEASES.acquire(
            self.connection_id, self.holder, self._now(), self.lease_seconds, self.task_id
        )
        if self.generation is None:
            self.why = "another worker holds the lease"
            return False
        self._renewed = self.clock.now()
        connection = ClusterConnection.objects.filter(pk=self.connection_id).first()
        if connection is None or connection.workspace_id is None:
            self.why = "the connection mirrors no workspace"
            self.stop()
            return False
        try:
            self.client = self.client_of(connection)
        except (KubeconfigError, EncryptionKeyError) as err:
            self.why = str(err)
            self._write_status(MirrorStatus.FAILING, error=self.why)
            self.stop(write_stopped=False)
            return False
        self.connection = connection
        self.mirror = Mirror(
            connection,
            connection.workspace_id,
            self.client,
            self.clock,
            watch_seconds=self.watch_seconds,
        )
        self._write_status(MirrorStatus.SYNCING, started=True)
        logger.info("mirror of connection %s started by %s", self.connection_id, self.holder)
        return True

    def run(self, stop: threading.Event) -> str:
        """Mirrors until ``stop`` is set or a reason to end comes (see the module); returns
        why it ended."""
        assert self.mirror is not None
        self._threads = self.mirror.start(self._streams_stop)
        try:
            while not stop.wait(self.status_seconds):
                why = self.tick()
                if why:
                    return why
            return "stopped"
        finally:
            self._streams_stop.set()
            deadline = time.monotonic() + JOIN_SECONDS
            for thread in self._threads:
                thread.join(max(0.0, deadline - time.monotonic()))

    def tick(self) -> str:
        """One round of the main loop: "" to go on, else why the runtime must end."""
        if not self.renew_lease():
            return "lost the lease"
        current = ClusterConnection.objects.filter(pk=self.connection_id).first()
        if current is None:
            return "the connection is gone"
        if current.workspace_id != self._followed().get("workspace_id"):
            return "mirroring stopped"
        if _settings_of(current) != self._followed():
            self.restart = True
            return "the connection's settings changed"
        self.write_status()
        self.recorder = recording.follow(current, self.mirror, self.recorder)
        return ""

    def stop(self, release: bool = True, write_stopped: bool = True) -> None:
        """Ends the run: gives the lease up (``release``) and says the mirror stopped, unless
        another worker holds it now (its state is its own to write)."""
        self._streams_stop.set()
        if self.recorder is not None:
            self.recorder.close()
            self.recorder = None
        if self.client is not None:
            self.client.close()
            self.client = None
        if not release or self.generation is None:
            return
        released = MIRROR_LEASES.release(
            self.connection_id, self.holder, self.generation, self._now()
        )
        if released and write_stopped:
            self._write_status(MirrorStatus.STOPPED, error="", lag=None)
        logger.info("mirror of connection %s stopped: %s", self.connection_id, self.why)

    def renew_lease(self) -> bool:
        """Renews once a third of the lease has passed; False once another worker took it."""
        now = self.clock.now()
        if now - self._renewed < self.lease_seconds / 3:
            return True
        renewed = MIRROR_LEASES.renew(
            self.connection_id, self.holder, self.generation or 0, self._now(), self.lease_seconds
        )
        if renewed:
            self._renewed = now
        return renewed

    # ------------------------------------------------------------------------------------------
    # Status

    def write_status(self) -> None:
        """The mirror's state as the pages show it."""
        assert self.mirror is not None
        kinds = self.mirror.state()
        error = next((kind["error"] for kind in kinds.values() if kind["error"]), "")
        lag = self.mirror.lag()
        MIRROR_LAG_SECONDS.labels(str(self.mirror.workspace_id)).set(lag)
        self._write_status(
            self.mirror.status(),
            error=error,
            kinds={name: _kind_summary(kind) for name, kind in kinds.items()},
            lag=lag,
        )

    def _write_status(
        self,
        state: str,
        *,
        error: str | None = None,
        kinds: dict[str, Any] | None = None,
        lag: float | None = None,
        started: bool = False,
    ) -> None:
        values: dict[str, Any] = {"state": state, "lag_seconds": lag}
        if error is not None:
            values["error"] = error
        if kinds is not None:
            values["kinds"] = kinds
        if started:
            values.update(started_at=self._now(), kinds={}, error="")
        try:
            MirrorStatus.objects.update_or_create(connection_id=self.connection_id, defaults=values)
        except Exception:  # the connection was deleted meanwhile; tick() ends the run
            logger.info("mirror status of connection %s not written", self.connection_id)
            close_old_connections()

    # ------------------------------------------------------------------------------------------
    # Helpers

    def _followed(self) -> dict[str, Any]:
        return _settings_of(self.connection) if self.connection is not None else {}

    def _now(self) -> datetime:
        return timezone.now()


def _settings_of(connection: ClusterConnection) -> dict[str, Any]:
    followed = {name: getattr(connection, name) for name in SETTINGS_FIELDS}
    followed.update(namespaces=connection.namespaces, label_selector=connection.label_selector)
    return followed


def _kind_summary(kind: dict[str, Any]) -> dict[str, Any]:
    """What the page shows of a kind: objects, synced, error, re-lists, refused objects."""
    return {
        "objects": kind["objects"],
        "synced": kind["synced"],
        "error": kind["error"],
        "relists": kind["relists"],
        "skipped": dict(list(kind["skipped"].items())[:20]),
        "skipped_count": len(kind["skipped"]),
        "stored": kind["stored"],
        "served": kind.get("served", True),
    }
