"""Where a pod stands: bound, binding, waiting at Permit, in a queue, gated, unschedulable.

The database says whether a pod is bound and what its conditions say; the scheduler service's
published queues say where an unbound pod is right now.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from playground.front.queue_board import Board, board_of
from playground.workspaces.models import ClusterObject, Workspace

LABELS = {
    "bound": "bound",
    "binding": "binding",
    "waiting": "waiting at Permit",
    "inFlight": "in flight",
    "active": "in queue",
    "backoff": "in queue (backoff)",
    "unschedulable": "unschedulable",
    "gated": "gated",
    "pending": "pending",
}


@dataclass(frozen=True, slots=True)
class PodState:
    name: str
    message: str = ""

    @property
    def label(self) -> str:
        return LABELS.get(self.name, self.name)

    @property
    def css(self) -> str:
        return {"inFlight": "in-flight", "active": "in-queue"}.get(self.name, self.name)


def pod_states(
    workspace: Workspace, pods: Iterable[ClusterObject], board: Board | None = None
) -> list[PodState]:
    where = (board or board_of(workspace)).where()
    return [state_of(pod, where) for pod in pods]


def state_of(pod: ClusterObject, where: dict[str, tuple[str, dict[str, Any]]]) -> PodState:
    if pod.node_name:
        return PodState("bound")
    if pod.uid in where:
        name, entry = where[pod.uid]
        return PodState(name, entry.get("message", "") or _unschedulable_message(pod))
    spec = pod.manifest.get("spec") or {}
    if spec.get("schedulingGates"):
        gates = ", ".join(gate.get("name", "") for gate in spec["schedulingGates"])
        return PodState("gated", f"waiting for {gates}")
    message = _unschedulable_message(pod)
    return PodState("unschedulable", message) if message else PodState("pending")


def _unschedulable_message(pod: ClusterObject) -> str:
    """The PodScheduled=False condition's message, as kube-scheduler sets it on failure."""
    for condition in (pod.manifest.get("status") or {}).get("conditions") or ():
        if condition.get("type") == "PodScheduled" and condition.get("status") == "False":
            return condition.get("message", "")
    return ""
