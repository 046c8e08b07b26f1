"""A connection to a live cluster: whose it is, how to reach it, what to follow, what it may do.

The kubeconfig is stored encrypted (playground.clusters.encryption) in a column no form, page,
admin or export reads: ``kubeconfig_text()`` decrypts it when a client is built, and the only
way to change it is to upload a new one (``set_kubeconfig``).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from django.conf import settings
from django.db import models
from django.db.models.signals import post_delete
from django.dispatch import receiver
from django.urls import reverse
from django.utils import timezone

from framework.api.label_syntax import parse_selector
from framework.api.labels import Selector
from playground.clusters.encryption import decrypt, encrypt
from playground.workspaces.fields import JSONField
from playground.workspaces.models import Workspace


class ClusterConnection(models.Model):
    """A kubeconfig and context (or the in-cluster service account), and what to do with it."""

    name = models.CharField(max_length=100)
    owner = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="cluster_connections"
    )
    workspace = models.ForeignKey(
        Workspace,
        null=True,
        blank=True,
        on_delete=models.SET_NULL,
        related_name="cluster_connections",
        help_text="The workspace standing for the cluster (none until connected).",
    )
    in_cluster = models.BooleanField(
        default=False, help_text="The service account of the pod the playground runs in."
    )
    kubeconfig_encrypted = models.TextField(
        blank=True, editable=False, help_text="Fernet token of the kubeconfig, never shown."
    )
    context = models.CharField(max_length=253, blank=True)
    server = models.CharField(
        max_length=2048, blank=True, help_text="The API server's URL (from the kubeconfig)."
    )
    namespaces = models.CharField(
        max_length=2000,
        blank=True,
        help_text="Namespaces to follow, separated by commas; empty follows all.",
    )
    label_selector = models.CharField(
        max_length=2000, blank=True, help_text="Only objects these labels select (app=web)."
    )
    second_scheduler = models.BooleanField(
        default=False,
        help_text="Bind the cluster's pods whose schedulerName names a profile.",
    )
    preemption = models.BooleanField(
        default=False, help_text="Let the second scheduler delete victims to preempt."
    )
    last_test = JSONField(
        null=True, blank=True, editable=False, help_text="The latest Test connection's report."
    )
    created = models.DateTimeField(auto_now_add=True)
    updated = models.DateTimeField(auto_now=True)

    class Meta:
        ordering = ["name"]
        constraints = [
            models.UniqueConstraint(fields=["owner", "name"], name="unique_connection_name")
        ]

    def __str__(self) -> str:
        return self.name

    def get_absolute_url(self) -> str:
        return reverse("connection", args=[self.pk])

    @property
    def mode(self) -> str:
        return "in-cluster" if self.in_cluster else "kubeconfig"

    def set_kubeconfig(self, text: str) -> None:
        self.kubeconfig_encrypted = encrypt(text) if text else ""

    def kubeconfig_text(self) -> str:
        """The plaintext kubeconfig; raises EncryptionKeyError (naming no secret) if the key
        cannot read it."""
        if not self.kubeconfig_encrypted:
            return ""
        return decrypt(self.kubeconfig_encrypted, what=f'kubeconfig of connection "{self.name}"')

    def namespace_list(self) -> list[str]:
        return [name.strip() for name in self.namespaces.split(",") if name.strip()]

    def selector(self) -> Selector:
        return parse_selector(self.label_selector)

    def can_access(self, user: Any) -> bool:
        """Its owner's (and superusers'): it holds their credentials."""
        return user.is_authenticated and (user.is_superuser or self.owner_id == user.id)

    def replaying(self) -> bool:
        """Whether a replay of one of its recordings is queued or running (the page follows)."""
        return Replay.objects.filter(
            recording__connection=self, state__in=(Replay.QUEUED, Replay.RUNNING)
        ).exists()


class MirrorLease(models.Model):
    """Who runs a connection's mirror: one worker at a time, as the scheduler's lease
    (playground.scheduling.lease), taken over when its holder stops renewing it."""

    connection = models.OneToOneField(
        ClusterConnection, on_delete=models.CASCADE, related_name="mirror_lease"
    )
    holder = models.CharField(max_length=200, blank=True)
    generation = models.PositiveBigIntegerField(default=0)
    acquired_at = models.DateTimeField(null=True, blank=True)
    renewed_at = models.DateTimeField(null=True, blank=True)
    expires_at = models.DateTimeField(null=True, blank=True)

    def __str__(self) -> str:
        return f"{self.connection}: {self.holder or 'nobody'} until {self.expires_at}"


class MirrorStatus(models.Model):
    """What the running mirror last reported, for the pages: whoever runs it writes, any
    process reads."""

    SYNCING, SYNCED, FAILING, STOPPED = "syncing", "synced", "failing", "stopped"

    connection = models.OneToOneField(
        ClusterConnection, on_delete=models.CASCADE, related_name="mirror_status"
    )
    state = models.CharField(max_length=16, default=STOPPED)
    error = models.TextField(blank=True, help_text="The last error, naming the kind.")
    kinds = JSONField(
        default=dict, blank=True, help_text="Per kind: objects, synced, error, last contact."
    )
    lag_seconds = models.FloatField(null=True, blank=True)
    started_at = models.DateTimeField(null=True, blank=True)
    updated = models.DateTimeField(auto_now=True)

    def __str__(self) -> str:
        return f"{self.connection}: {self.state}"


class Recording(models.Model):
    """A file of every change a connection's mirror saw from ``started_at`` on (one JSON line
    each, after a snapshot of what it held then), for an ordinary workspace to replay.

    The page or the command creates it with ``stopped_at`` null; the mirror's runtime notices
    it and writes (playground.clusters.recording); Stop sets ``stopped_at``, and the runtime
    closes the file and counts its events.
    """

    connection = models.ForeignKey(
        ClusterConnection, on_delete=models.CASCADE, related_name="recordings"
    )
    started_at = models.DateTimeField(default=timezone.now)
    stopped_at = models.DateTimeField(null=True, blank=True, help_text="Null while recording.")
    file = models.CharField(max_length=300, help_text="Path relative to the var directory.")
    events = models.PositiveIntegerField(default=0, help_text="Changes after the snapshot.")
    objects_at_start = models.PositiveIntegerField(default=0, help_text="Lines of the snapshot.")
    error = models.TextField(blank=True, help_text="Why recording stopped, if it failed.")

    class Meta:
        ordering = ["-started_at", "-id"]

    def __str__(self) -> str:
        return f"{self.connection}: recording of {self.started_at:%Y-%m-%d %H:%M:%S}"

    @property
    def path(self) -> Path:
        return Path(settings.VAR_DIR) / self.file

    @property
    def in_progress(self) -> bool:
        return self.stopped_at is None

    def duration_seconds(self) -> float:
        end = self.stopped_at or timezone.now()
        return max(0.0, (end - self.started_at).total_seconds())

    def size(self) -> int | None:
        """The file's size in bytes; None when there is no file (yet)."""
        try:
            return self.path.stat().st_size
        except OSError:
            return None


@receiver(post_delete, sender=Recording)
def _delete_recording_file(sender: type, instance: Recording, **_: Any) -> None:
    """A recording's file goes with it, also when its connection is deleted."""
    instance.path.unlink(missing_ok=True)


class Replay(models.Model):
    """One replay of a recording into an ordinary workspace, and how far it got (the page shows
    it while the Celery task works)."""

    QUEUED, RUNNING, DONE, FAILED = "queued", "running", "done", "failed"

    recording = models.ForeignKey(Recording, on_delete=models.CASCADE, related_name="replays")
    workspace = models.ForeignKey(
        Workspace, null=True, on_delete=models.SET_NULL, related_name="replays"
    )
    speed = models.CharField(max_length=8, default="1", help_text="1, 2, 10, 100 or fastest.")
    state = models.CharField(max_length=8, default=QUEUED)
    applied = models.PositiveIntegerField(default=0, help_text="Lines applied so far.")
    total = models.PositiveIntegerField(default=0, help_text="Lines of the file (snapshot too).")
    error = models.TextField(blank=True)
    created = models.DateTimeField(auto_now_add=True)
    finished_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["-created", "-id"]

    def __str__(self) -> str:
        return f"replay of {self.recording} into {self.workspace}: {self.state}"

    @property
    def active(self) -> bool:
        return self.state in (self.QUEUED, self.RUNNING)
