"""A connection to a live cluster: whose it is, how to reach it, what to follow, what it may do.

The kubeconfig is stored encrypted (playground.clusters.encryption) in a column no form, page,
admin or export reads: ``kubeconfig_text()`` decrypts it when a client is built, and the only
way to change it is to upload a new one (``set_kubeconfig``).
"""

from __future__ import annotations

from typing import Any

from django.conf import settings
from django.db import models
from django.urls import reverse

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
