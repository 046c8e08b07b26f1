"""A comparison and its variants, as the Compare page starts them and the result page reads
them.

The comparison keeps its inputs (the objects' text, or a recording's), so its result can be
read, shared and re-run long after the workspace has changed. Each variant row is its Celery
task's state: the task writes progress there and polls it for a cancel, and the page reads it.
Phase 1 runs every variant untraced (``result``); once all have ended, phase 2 reruns each
finished variant with the pods that landed differently traced (``attempts``).
"""

from __future__ import annotations

from typing import Any

from django.conf import settings
from django.db import models
from django.urls import reverse

from playground.workspaces.fields import JSONField
from playground.workspaces.models import Workspace

QUEUED, RUNNING, DONE, FAILED, CANCELLED = "queued", "running", "done", "failed", "cancelled"
STATES = [(state, state) for state in (QUEUED, RUNNING, DONE, FAILED, CANCELLED)]
ENDED = (DONE, FAILED, CANCELLED)
"""States a task leaves no more."""

WORKSPACE, SNAPSHOT, RECORDING = "workspace", "snapshot", "recording"
SOURCES = [
    (WORKSPACE, "the workspace's current state"),
    (SNAPSHOT, "a snapshot"),
    (RECORDING, "a recording"),
]


class Comparison(models.Model):
    """One Run of the Compare page: its inputs, its variants (rows), and the report once
    phase 1 has ended (``framework.compare.compare_results`` of the variants that finished)."""

    workspace = models.ForeignKey(Workspace, on_delete=models.CASCADE, related_name="comparisons")
    created = models.DateTimeField(auto_now_add=True)
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL
    )
    source = models.CharField(max_length=20, choices=SOURCES)
    source_label = models.CharField(max_length=200, help_text="Where the inputs came from.")
    inputs_text = models.TextField(
        help_text="The objects (multi-document YAML), or a recording's JSON lines."
    )
    seed = models.IntegerField(default=0)
    state = models.CharField(max_length=20, choices=STATES, default=QUEUED)
    phase = models.PositiveSmallIntegerField(
        default=1,
        help_text="1: variants run; 2: differing pods traced; 3: ended.",
    )
    report = JSONField(null=True, blank=True)
    error = models.TextField(blank=True)
    finished = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["-created", "-id"]

    def __str__(self) -> str:
        return f"{self.workspace} comparison {self.pk}"

    def get_absolute_url(self) -> str:
        return reverse("comparison", args=[self.workspace.slug, self.pk])

    @property
    def ended(self) -> bool:
        return self.state in ENDED


class ComparisonVariant(models.Model):
    """One profile of a comparison and its task: state, progress (pods settled of total), the
    engine's VariantResult (phase 1, untraced) and the traced pods' attempts (phase 2)."""

    comparison = models.ForeignKey(Comparison, on_delete=models.CASCADE, related_name="variants")
    index = models.PositiveSmallIntegerField()
    name = models.CharField(max_length=200)
    config_text = models.TextField(help_text="KubeSchedulerConfiguration (v1)")
    feature_gates = models.TextField(blank=True)
    revision = models.PositiveIntegerField(
        null=True, blank=True, help_text="The workspace's revision it came from, if any."
    )
    state = models.CharField(max_length=20, choices=STATES, default=QUEUED)
    trace_state = models.CharField(max_length=20, choices=STATES, blank=True)
    settled = models.PositiveIntegerField(default=0)
    total = models.PositiveIntegerField(default=0)
    result = JSONField(null=True, blank=True)
    attempts = JSONField(null=True, blank=True, help_text='"ns/name" -> its attempts, traced')
    error = models.TextField(blank=True)
    worker = models.CharField(
        max_length=200, blank=True, help_text="Who ran phase 1: host:pid:thread."
    )
    started = models.DateTimeField(null=True, blank=True)
    finished = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["comparison_id", "index"]
        constraints = [
            models.UniqueConstraint(fields=["comparison", "index"], name="unique_variant_index")
        ]

    def __str__(self) -> str:
        return f"{self.comparison} variant {self.name}"

    @property
    def tracing(self) -> bool:
        """Whether its phase 2 (the differing pods traced) is queued or running."""
        return self.trace_state in (QUEUED, RUNNING)

    @property
    def percent(self) -> int:
        """The running phase's progress, 0..100 (100 once phase 1 is done and no trace runs)."""
        if self.state == DONE and not self.tracing:
            return 100
        return min(100, self.settled * 100 // self.total) if self.total else 0

    def pod_attempts(self, pod: str) -> list[dict[str, Any]]:
        """The traced attempts of a pod (phase 2); [] when it was not traced."""
        return list((self.attempts or {}).get(pod, []))
