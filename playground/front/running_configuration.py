"""Which revision and feature gates the workspace's scheduler runs with, as the service
recorded them when it last built its scheduler (``SchedulerService._record_running``).

The profile page shows it beside the revisions, and its socket redraws it when the service
announces a change: an Apply takes effect once the bindings out have reported, so the latest
revision and the running one may differ for a moment, and a person sees which gates are in
force rather than which were asked for.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from playground.front.configuration import ChangedGate, changed_gates
from playground.scheduling.scheduler_state import NO_SCHEDULER, scheduler_state
from playground.workspaces.models import SchedulerStatus, Workspace
from playground.workspaces.services import parsed_feature_gates


@dataclass(frozen=True, slots=True)
class RunningConfiguration:
    """What the last scheduler started with; ``known`` is False before any started."""

    known: bool = False
    running: bool = False
    """Whether a scheduler serves the workspace now (else: what the last one ran)."""
    revision: int | None = None
    gates: list[ChangedGate] = field(default_factory=list)
    unparsed: str = ""
    """The recorded gates when this engine cannot read them any more."""


def running_configuration(workspace: Workspace) -> RunningConfiguration:
    stored = (
        SchedulerStatus.objects.filter(workspace=workspace)
        .values_list("revision", "feature_gates")
        .first()
    )
    if stored is None:
        return RunningConfiguration()
    revision, gates = stored
    # Gates an engine upgrade no longer knows are shown as they were recorded.
    features, _ = parsed_feature_gates(gates)
    return RunningConfiguration(
        known=True,
        running=scheduler_state(workspace.pk).state != NO_SCHEDULER,
        revision=revision,
        gates=changed_gates(features) if features is not None else [],
        unparsed=gates if features is None else "",
    )
