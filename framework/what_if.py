"""What-if: one pod's scheduling cycle through one profile, over a snapshot, changing nothing.

``what_if`` builds a scheduler exactly as a real one is built (the configuration's profiles,
queue, cache, extenders) over a ``DryRunCluster`` holding the given objects, lets it list them
as a starting kube-scheduler does, takes the pod out of its queue and runs the pod's scheduling
cycle with full tracing: PreFilter, Filter (the nominated node first, if the pod has one),
PostFilter when no node fits, PreScore, Score with NormalizeScore, and host selection.

Where it stops, and why: once the host is selected. Reserve, Permit and the binding cycle are
not run. They cannot change which node is selected, only refuse it, and they act on state
outside the cycle (Reserve assumes volumes and claims; Permit may wait for a person or a
timer; Bind writes). The report names the plugins they would have been called with instead.

PostFilter runs for real, preemption included: its dry runs choose a node and victims, and the
victims' deletion lands in the dry-run cluster's writes, where ``victims`` reads it. So do the
FailedScheduling event and the status patches a failed cycle makes: ``writes`` lists every call
the scheduler would have made, and nothing was applied.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from framework.cluster.dry_run import DryRunCluster, Write
from framework.cluster.resource_claim_controller import claims_for_new_pod
from framework.features import DEFAULT_FEATURE_GATES, FeatureGates
from framework.plugins.registry import in_tree_registry
from framework.runtime.framework import FrameworkError
from framework.scheduler.schedule_one import SchedulingAttempt
from framework.scheduler.scheduler import Scheduler
from framework.trace import TraceEvent
from framework.util.clock import Clock, RealClock

if TYPE_CHECKING:
    from framework.api.pod import Pod
    from framework.interface.cycle_state import CycleState
    from framework.interface.types import QueuedPodInfo
    from framework.runtime.framework import Framework
    from framework.runtime.registry import Registry
    from framework.scheduler.schedule_one import ScheduleResult

logger = logging.getLogger(__name__)

SCHEDULED, GATED = "Scheduled", "Gated"
NOT_RUN_POINTS = ("reserve", "permit", "preBind", "bind", "postBind")
"""Extension points after host selection, which a what-if names instead of running."""


class WhatIfError(ValueError):
    """The what-if cannot be run as asked (the message says why)."""


@dataclass
class WhatIf:
    """A what-if's outcome: the attempt as a real one is reported, its trace, and what the
    scheduler would have changed.

    ``attempt.result`` is ``Scheduled`` when a host was selected (Reserve, Permit and binding
    were not run), ``Unschedulable`` or ``Error`` as for a real attempt, or ``Gated`` when a
    PreEnqueue plugin kept the pod out of the active queue (the trace says which).
    """

    attempt: SchedulingAttempt
    events: list[TraceEvent]
    writes: list[Write] = field(default_factory=list)
    victims: list[str] = field(default_factory=list)
    not_run: dict[str, list[str]] = field(default_factory=dict)
    """Extension point -> plugins, for the points after host selection (not run)."""


class WhatIfScheduler(Scheduler):
    """A Scheduler whose scheduling cycle ends at host selection (see the module)."""

    def _prepare_for_binding_cycle(
        self,
        framework: Framework,
        state: CycleState,
        pod_info: QueuedPodInfo,
        result: ScheduleResult,
    ) -> tuple[QueuedPodInfo, Any]:
        return pod_info, None  # not assumed, no Reserve, no Permit

    def _start_binding_cycle(
        self,
        framework: Framework,
        state: CycleState,
        result: ScheduleResult,
        assumed: QueuedPodInfo,
        attempt: SchedulingAttempt,
    ) -> None:
        attempt.result, attempt.node = SCHEDULED, result.suggested_host
        self._record_attempt(attempt)

    def schedule_pod(self, pod: Pod, profile: str) -> bool:
        """Takes the pod out of the queue and runs its cycle through the profile; False when
        PreEnqueue gates it (it never reaches the active queue, so no cycle can run)."""
        pod_info = self.queue.pop_specific_pod(pod)
        if pod_info is None:
            return False
        self._schedule_one_pod(self.profiles[profile], pod_info)
        return True


class _Events:
    """Keeps the trace events of one pod."""

    def __init__(self, pod_key: str) -> None:
        self.pod_key = pod_key
        self.events: list[TraceEvent] = []

    def on_event(self, event: TraceEvent) -> None:
        if event.pod == self.pod_key:
            self.events.append(event)


def what_if(
    cfg: Any,
    objects: list[Any],
    pod: Pod,
    profile: str,
    *,
    registry: Registry | None = None,
    clock: Clock | None = None,
    seed: int = 0,
    features: FeatureGates = DEFAULT_FEATURE_GATES,
) -> WhatIf:
    """Runs ``pod``'s scheduling cycle through ``profile`` of the defaulted, validated ``cfg``
    over ``objects`` (see the module); ``objects`` are read, never changed.

    ``features`` are the gates the scheduler runs with (the in-tree registry's too, unless a
    registry is given); ``cfg`` must have been defaulted with the same gates.

    The pod stands in for any pod of the same namespace and name among the objects, and is run
    as if its ``schedulerName`` named the profile. It must be pending (no ``nodeName``).
    """
    names = [p.scheduler_name for p in cfg.profiles]
    if profile not in names:
        raise WhatIfError(f"no profile {profile!r} in the configuration (profiles: {names})")
    if pod.spec.node_name:
        raise WhatIfError(
            f'spec.nodeName: pod {pod.key} is already bound to node "{pod.spec.node_name}": '
            "a what-if schedules pending pods"
        )
    events = _Events(pod.key)
    attempts: list[SchedulingAttempt] = []
    scheduler, pod, cluster = scheduler_over_snapshot(
        cfg,
        objects,
        pod,
        profile,
        registry=registry,
        clock=clock,
        seed=seed,
        observer=events,
        on_attempt=attempts.append,
        features=features,
    )
    try:
        if scheduler.schedule_pod(pod, profile):
            attempt = attempts[-1]
        else:
            attempt = SchedulingAttempt(pod.key, pod.uid, profile, result=GATED)
            attempt.message = _gate_message(events.events)
    finally:
        close_scheduler(scheduler)
    plugins = scheduler.profiles[profile].list_plugins()
    return WhatIf(
        attempt=attempt,
        events=events.events,
        writes=list(cluster.writes),
        victims=cluster.deleted("Pod"),
        not_run={point: [name for name, _ in plugins.get(point, [])] for point in NOT_RUN_POINTS},
    )


def scheduler_over_snapshot(
    cfg: Any,
    objects: list[Any],
    pod: Pod,
    profile: str,
    *,
    registry: Registry | None = None,
    clock: Clock | None = None,
    seed: int = 0,
    observer: Any = None,
    on_attempt: Any = None,
    features: FeatureGates = DEFAULT_FEATURE_GATES,
) -> tuple[WhatIfScheduler, Pod, DryRunCluster]:
    """A started ``WhatIfScheduler`` over a dry-run copy of ``objects`` holding ``pod`` (given
    its claims, as the ResourceClaim controller would, and sent to ``profile``); the pod as
    the cluster holds it, and the cluster. Close it with ``close_scheduler``."""
    # The ResourceClaim controller would give a new pod its claims from templates first.
    pod, claims = claims_for_new_pod(pod.deep_copy(), objects)
    pod.spec.scheduler_name = profile
    cluster = DryRunCluster(
        [*(o for o in objects if not (o.kind == "Pod" and o.key == pod.key)), *claims, pod]
    )
    scheduler = WhatIfScheduler.from_configuration(
        cfg,
        cluster,
        registry if registry is not None else in_tree_registry(features),
        clock=clock or RealClock(),
        seed=seed,
        observer=observer,
        on_attempt=on_attempt,
        features=features,
    )
    try:
        scheduler.start()
    except BaseException:
        close_scheduler(scheduler)
        raise
    return scheduler, pod, cluster


def close_scheduler(scheduler: Scheduler) -> None:
    """Closes the profiles' plugins; a plugin that fails to close does not hide the outcome."""
    for framework in scheduler.profiles.values():
        try:
            framework.close()
        except FrameworkError:
            logger.exception("closing profile %s after a what-if", framework.profile_name())


def _gate_message(events: list[TraceEvent]) -> str:
    """Why PreEnqueue kept the pod out of the active queue, from its last PreEnqueue run."""
    for event in reversed(events):
        if event.point == "preEnqueue" and event.code != "Success":
            reasons = "; ".join(event.reasons)
            return f"{event.plugin or 'PreEnqueue'}: {reasons}" if reasons else event.code
    return "the scheduling queue did not release the pod"
