"""Where a pod waits in the scheduling queue, in the shape ``explain_pod`` reads.

``{"state", "nextTryAt", "gates", "unschedulablePlugins"}``: backoff pods are tried when their
backoff ends; unschedulable pods when an event a rejecting plugin registered arrives, and at
the latest when ``podMaxInUnschedulablePodsDuration`` has passed; gated pods when their gating
PreEnqueue plugin lets them through.
"""

from __future__ import annotations

from typing import Any

BACKOFF, UNSCHEDULABLE, GATED, ACTIVE = "backoff", "unschedulable", "gated", "active"


def queue_state(queue: Any, pod: Any) -> dict[str, Any] | None:
    """The pod's place in ``queue`` (a PriorityQueue), or None when it is not queued."""
    info = queue.backoff_q.get(pod)
    if info is not None:
        return _state(BACKOFF, info, queue.backoff_q.get_backoff_time(info))
    info = queue.unschedulable_pods.get(pod)
    if info is not None:
        if info.gated:
            return _state(GATED, info, None)
        return _state(
            UNSCHEDULABLE, info, info.timestamp + queue.pod_max_in_unschedulable_pods_seconds
        )
    info = queue.active_q.get(pod)
    if info is not None:
        return _state(ACTIVE, info, None)
    return None


def _state(state: str, info: Any, next_try_at: float | None) -> dict[str, Any]:
    gates = list(info.pod.spec.scheduling_gates) if state == GATED else []
    return {
        "state": state,
        "nextTryAt": next_try_at,
        "gates": gates,
        "gatingPlugin": info.gating_plugin,
        "unschedulablePlugins": sorted(info.unschedulable_plugins),
    }
