"""A workspace's scheduler metrics at one moment, kept for the Metrics tab's time windows."""

from __future__ import annotations

from django.db import models

from playground.workspaces.models import Workspace


class MetricsSample(models.Model):
    """The workspace's series of the families the tab shows, as ``/metrics`` had them at
    ``taken_at`` (the shape is ``history.sample_values``'s)."""

    # Indexed with taken_at below: the tab reads a workspace's window, the pruning all old rows.
    workspace = models.ForeignKey(
        Workspace, on_delete=models.CASCADE, related_name="+", db_index=False
    )
    taken_at = models.DateTimeField(db_index=True)
    values = models.JSONField()

    class Meta:
        indexes = [models.Index(fields=["workspace", "taken_at"])]
        ordering = ["taken_at"]
