"""Record: every change a connection's mirror applies, written to a file an ordinary workspace
can replay later (playground.clusters.replay).

The file is JSON lines:

- a header: ``{"recording": 1, "connection": ..., "server": ..., "namespaces": ...,
  "labelSelector": ..., "kinds": [...], "startedAt": ...}`` (no credentials);
- the snapshot: every object the mirrored workspace holds of the followed kinds when the
  recording starts, as ``{"t": 0, "type": "ADDED", "object": manifest}``, kinds in the order
  the mirror follows them (namespaces and classes before pods), objects in creation order;
- then one line per change the mirror applies: ``{"t": seconds since the start, "type":
  "ADDED" | "MODIFIED" | "DELETED", "object": manifest}``, in the order it applied them.

Times come from the mirror's clock, so a test on a FakeClock knows them exactly. The pages and
the command only create and stop ``Recording`` rows (``start`` / ``stop``); the mirror's
runtime calls ``follow`` about once a second, which opens and closes Recorders to match.
"""

from __future__ import annotations

import json
import logging
import threading
from typing import IO, Any

from django.utils import timezone

from playground.clusters.mirror import FOLLOWED, Mirror
from playground.clusters.models import ClusterConnection, Recording
from playground.workspaces.cluster import ADDED, DatabaseCluster, manifest_of

logger = logging.getLogger(__name__)

FORMAT_VERSION = 1
RECORDINGS = "recordings"
"""The folder of recordings in the var directory."""


class RecordingRefused(Exception):
    """Why a recording cannot start or stop, for the page and the command."""


def start(connection: ClusterConnection) -> Recording:
    """A new recording of the connection, which its mirror's runtime starts writing."""
    if connection.workspace_id is None:
        raise RecordingRefused(
            f"connection “{connection.name}” is not mirrored: a recording writes what the "
            "mirror sees, so mirror it first"
        )
    if connection.recordings.filter(stopped_at__isnull=True).exists():
        raise RecordingRefused(f"connection “{connection.name}” is being recorded already")
    now = timezone.now()
    return Recording.objects.create(
        connection=connection,
        started_at=now,
        file=f"{RECORDINGS}/{connection.pk}-{now:%Y%m%d-%H%M%S-%f}.jsonl",
    )


def stop(connection: ClusterConnection) -> Recording:
    """Marks the connection's recording stopped; its runtime closes the file at its next look."""
    recording = connection.recordings.filter(stopped_at__isnull=True).first()
    if recording is None:
        raise RecordingRefused(f"connection “{connection.name}” is not being recorded")
    recording.stopped_at = timezone.now()
    recording.save(update_fields=["stopped_at"])
    return recording


class Recorder:
    """Writes one recording: the header and snapshot at once, then each change the mirror
    applies (it is one of ``mirror.observers`` until ``close()``).

    Mirror streams run on several threads: a lock keeps lines whole and in the order the
    changes were applied. The observer is attached before the snapshot is read (under the
    lock), so a change applied meanwhile is written after the snapshot, never lost.
    """

    def __init__(self, recording: Recording, mirror: Mirror) -> None:
        self.recording = recording
        self.mirror = mirror
        self.events = 0
        self._lock = threading.Lock()
        self._start = mirror.clock.now()
        recording.path.parent.mkdir(parents=True, exist_ok=True)
        self._file: IO[str] | None = recording.path.open("w", encoding="utf-8")
        with self._lock:
            mirror.observers.append(self.observe)
            try:
                self._write(self._header())
                snapshot = self._snapshot()
                for manifest in snapshot:
                    self._write({"t": 0, "type": ADDED, "object": manifest})
            except BaseException:
                mirror.observers.remove(self.observe)
                self._file.close()
                raise
        Recording.objects.filter(pk=recording.pk).update(objects_at_start=len(snapshot))
        recording.objects_at_start = len(snapshot)
        logger.info(
            "recording %s of connection %s started (%d objects)",
            recording.pk,
            recording.connection_id,
            len(snapshot),
        )

    def observe(self, event_type: str, manifest: dict[str, Any]) -> None:
        """A mirror observer: one line per applied change."""
        with self._lock:
            if self._file is None:
                return
            t = round(self.mirror.clock.now() - self._start, 6)
            self._write({"t": t, "type": event_type, "object": manifest})
            self.events += 1

    def save_progress(self) -> None:
        """Puts the event count on the row, for the page."""
        if self.events != self.recording.events:
            self.recording.events = self.events
            Recording.objects.filter(pk=self.recording.pk).update(events=self.events)

    def close(self) -> None:
        """Stops listening, closes the file and stamps the row (stopped_at stays the one Stop
        set, if it did)."""
        if self.observe in self.mirror.observers:
            self.mirror.observers.remove(self.observe)
        with self._lock:
            if self._file is None:
                return
            self._file.close()
            self._file = None
        self.recording.events = self.events
        self.recording.stopped_at = self.recording.stopped_at or timezone.now()
        Recording.objects.filter(pk=self.recording.pk, stopped_at__isnull=True).update(
            stopped_at=self.recording.stopped_at
        )
        Recording.objects.filter(pk=self.recording.pk).update(events=self.events)
        logger.info("recording %s stopped (%d events)", self.recording.pk, self.events)

    def _header(self) -> dict[str, Any]:
        connection = self.recording.connection
        return {
            "recording": FORMAT_VERSION,
            "connection": connection.name,
            "server": connection.server,
            "namespaces": connection.namespace_list(),
            "labelSelector": connection.label_selector,
            "kinds": self._kinds(),
            "startedAt": self.recording.started_at.isoformat(),
        }

    def _kinds(self) -> list[str]:
        followed = {stream.followed.kind for stream in self.mirror.streams}
        return [f.kind for f in FOLLOWED if f.kind in followed]

    def _snapshot(self) -> list[dict[str, Any]]:
        cluster = DatabaseCluster(self.mirror.workspace_id)
        return [manifest_of(obj) for kind in self._kinds() for obj in cluster.list(kind)]

    def _write(self, line: dict[str, Any]) -> None:
        assert self._file is not None
        self._file.write(json.dumps(line, separators=(",", ":")) + "\n")
        self._file.flush()


def follow(
    connection: ClusterConnection, mirror: Mirror, current: Recorder | None
) -> Recorder | None:
    """Makes the recorder in effect match the connection's recordings: starts one for a
    recording not stopped, closes ``current`` once its recording is stopped or deleted.
    Returns the recorder in effect. The mirror's runtime calls it about once a second."""
    active = (
        Recording.objects.filter(connection=connection, stopped_at__isnull=True)
        .order_by("started_at", "id")
        .first()
    )
    if current is not None:
        if active is not None and active.pk == current.recording.pk:
            current.save_progress()
            return current
        current.close()
    if active is None:
        return None
    try:
        return Recorder(active, mirror)
    except OSError as err:
        logger.warning("recording %s of connection %s failed: %s", active.pk, connection.pk, err)
        active.error = f"cannot write {active.file}: {err.strerror or err}"
        active.stopped_at = timezone.now()
        active.save(update_fields=["error", "stopped_at"])
        return None
