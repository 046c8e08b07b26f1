"""A workspace's scheduler metrics at one moment, kept for the Metrics tab's time windows."""

from __future__ import annotations

from django.db import models

from playground.workspaces.models import Workspace


class MetricsSample(models.Model):
    """The workspace's series of the families the tab shows, as ``/metrics`` had them every
    sample from ``taken_at`` to ``until`` (the shape is ``history.sample_values``'s).

    One row is a run of unchanged samples, so an idle scheduler keeps one row (its ``until``
    moving) rather than one every 10 s."""

    # Indexed with until below: the tab reads the runs reaching into its window, the pruning
    # the runs that ended before the retention.
    workspace = models.ForeignKey(
        Workspace, on_delete=models.CASCADE, related_name="+", db_index=False
    )
    taken_at = models.DateTimeField()
    """The run's first sample."""
    until = models.DateTimeField(db_index=True)
    """The run's last sample: the last time these same values were read."""
    values = models.JSONField()

    class Meta:
        indexes = [models.Index(fields=["workspace", "until"])]
        ordering = ["taken_at"]
