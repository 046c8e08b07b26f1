"""The scheduler's state as every page shows it: one reading of the database, for all of them.

The top bar of every workspace page, the overview's scheduler panel and the queue board all
render a SchedulerState read here, never a copy kept elsewhere (a flag on a message, a
workspace object loaded when a websocket opened), so two places on one page cannot disagree.
Whoever changes what it is read from (the service taking or giving up its lease, pausing or
resuming) tells the pages through ``broadcast.send_service_state``, and they read it again; a
lease that lapses because its worker died tells nobody, so the pages also read it again every
few seconds (``STATE_CHECK_SECONDS`` in ``playground.live.consumers``).
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Any

from django.conf import settings
from django.utils import timezone

from playground.scheduling import lease
from playground.workspaces.models import SchedulerLease, SchedulerStatus, Workspace

RUNNING, PAUSED, STARTING, NO_SCHEDULER = "running", "paused", "starting", "no scheduler"
STOPPED = "stopped"
"""At a debugger breakpoint: the scheduler waits for a person's command (docs/debugger.md)."""
STANDBY = "standby"
"""A workspace standing for a live cluster that does not schedule its pods now: its second
scheduler is off, or another instance leads the cluster's Lease (docs/live-clusters.md)."""
BADGES = {
    RUNNING: "bound",
    STANDBY: "pending",
    PAUSED: "backoff",
    STARTING: "pending",
    NO_SCHEDULER: "unschedulable",
    STOPPED: "waiting",
}
"""The badge colour of each state (the CSS classes of pod states)."""


@dataclass(frozen=True, slots=True)
class SchedulerState:
    """Whether a scheduler serves the workspace, and whether it schedules.

    ``paused`` is the workspace's own setting, kept when no scheduler runs: a scheduler that
    starts takes it up, so the page offers Resume for a paused workspace in every state.
    """

    state: str
    paused: bool
    holder: str = ""
    since: datetime | None = None
    """When the holder took the lease over."""
    generation: int = 0
    lease_seconds: float = 0.0
    stop: dict[str, Any] | None = None
    """The debugger stop the scheduler waits at (``playground.scheduling.stops``), if any."""
    standby: str = ""
    """Why the service does not schedule the cluster's pods (a live cluster's workspace)."""

    @property
    def label(self) -> str:
        if self.state == STOPPED:
            return f"stopped at {self.stopped_at}"
        return self.state if self.state == NO_SCHEDULER else f"scheduler {self.state}"

    @property
    def stopped_at(self) -> str:
        """``Score · NodeResourcesFit · pod shop/web-3``: the point, the plugin, the pod."""
        if not self.stop:
            return ""
        point = self.stop.get("point", "")
        parts = [point[:1].upper() + point[1:], self.stop.get("plugin", "")]
        if self.stop.get("node"):
            parts.append(f"node {self.stop['node']}")
        parts.append(f"pod {self.stop.get('pod', '')}")
        return " · ".join(part for part in parts if part)

    @property
    def badge(self) -> str:
        return BADGES[self.state]

    @property
    def worker(self) -> str:
        """The holder without its task id: ``host:pid`` of the worker (the whole holder when it
        has another shape)."""
        host, _, rest = self.holder.partition(":")
        pid, _, _ = rest.partition(":")
        return f"{host}:{pid}" if pid.isdigit() else self.holder

    @property
    def renewal_seconds(self) -> float:
        """How often the holder renews its lease (a third of it, see SchedulerService)."""
        return self.lease_seconds / 3


def scheduler_state(workspace_id: int, now: datetime | None = None) -> SchedulerState:
    """The state of the workspace's scheduler now, from its lease and its paused setting."""
    now = now or timezone.now()
    paused = Workspace.objects.filter(pk=workspace_id).values_list("paused", flat=True).first()
    held = SchedulerLease.objects.filter(workspace_id=workspace_id).first()
    if held is None or not lease.is_held(held, now):
        return SchedulerState(NO_SCHEDULER, bool(paused))
    if held.holder.startswith(lease.STARTING):
        return SchedulerState(STARTING, bool(paused))
    stored = SchedulerStatus.objects.filter(workspace_id=workspace_id)
    stop, standby = stored.values_list("stop", "standby").first() or (None, "")
    return SchedulerState(
        STOPPED if stop else PAUSED if paused else STANDBY if standby else RUNNING,
        bool(paused),
        stop=stop or None,
        standby=standby,
        holder=held.holder,
        since=held.acquired_at,
        generation=held.generation,
        lease_seconds=float(settings.SCHEDULER_LEASE_SECONDS),
    )
