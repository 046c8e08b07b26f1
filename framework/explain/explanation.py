"""Why a pod is pending: ``explain_pod`` and the ``Explanation`` it returns.

It reads the pod's latest attempt (simulate's JSON entry) for what happened, and runs the pod's
PreFilter and Filter plugins over the cluster's objects (``filter_run``) for what the attempt
cannot say: which nodes fail one plugin only, and what they lack. See docs/explain.md.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from framework.explain.closest import ClosestNode, closest_nodes
from framework.explain.configuration import resolve_configuration
from framework.explain.filter_run import filter_run
from framework.explain.reasons import ReasonCount, histogram, most_rejecting, rejections
from framework.explain.requeue import Requeue, requeue_events
from framework.features import DEFAULT_FEATURE_GATES, FeatureGates

if TYPE_CHECKING:
    from framework.api.pod import Pod
    from framework.runtime.registry import Registry

SCHEDULED, GATED = "Scheduled", "Gated"
SCHEDULING_GATES = "SchedulingGates"


@dataclass
class NextTry:
    """Where the pod waits in the queue, and when it will be tried again."""

    state: str
    at: float | None = None
    in_seconds: float | None = None

    def to_dict(self) -> dict[str, Any]:
        return {"state": self.state, "at": self.at, "inSeconds": self.in_seconds}


@dataclass
class Explanation:
    """Why a pod is pending (see the module); ``to_dict`` is the documented JSON."""

    pod: str
    result: str
    message: str
    nodes: int
    reasons: list[ReasonCount] = field(default_factory=list)
    most_rejecting: str | None = None
    closest: list[ClosestNode] = field(default_factory=list)
    requeue_on: list[Requeue] = field(default_factory=list)
    gates: list[str] = field(default_factory=list)
    next_try: NextTry | None = None

    def to_dict(self) -> dict[str, Any]:
        return {
            "pod": self.pod,
            "result": self.result,
            "message": self.message,
            "nodes": self.nodes,
            "reasons": [r.to_dict() for r in self.reasons],
            "mostRejecting": self.most_rejecting,
            "closest": [c.to_dict() for c in self.closest],
            "requeueOn": [r.to_dict() for r in self.requeue_on],
            "gates": list(self.gates),
            "nextTry": self.next_try.to_dict() if self.next_try else None,
        }


def explain_pod(
    pod: Pod,
    cluster_objects: list[Any],
    attempt: dict[str, Any],
    *,
    profile: Any = None,
    queue: dict[str, Any] | None = None,
    now: float | None = None,
    registry: Registry | None = None,
    features: FeatureGates = DEFAULT_FEATURE_GATES,
) -> Explanation:
    """Explains the pod's latest ``attempt`` over ``cluster_objects`` (the cluster as the
    attempt saw it, or as it is now).

    ``profile`` is the configuration (``resolve_configuration``); ``queue`` is
    ``{"state", "nextTryAt", "gates"}`` when the queue is known; ``now`` is epoch seconds.
    ``registry`` and ``features`` are those the scheduler runs with.
    """
    explanation = Explanation(
        pod=pod.key,
        result=attempt.get("result", ""),
        message=attempt.get("message", ""),
        nodes=sum(1 for o in cluster_objects if o.kind == "Node"),
        gates=list((queue or {}).get("gates") or pod.spec.scheduling_gates),
        next_try=next_try(queue, now),
    )
    if explanation.result == SCHEDULED:
        return explanation
    cfg, profile_name = resolve_configuration(profile, pod, features)
    with filter_run(
        cfg, cluster_objects, pod, profile_name, registry=registry, features=features
    ) as (run, _):
        if explanation.result == GATED:
            # Never tried: nothing rejected it yet; only its gates' removal requeues it.
            explanation.requeue_on = requeue_events(run, [SCHEDULING_GATES])
            return explanation
        by_node = rejections(attempt, run)
        explanation.reasons = histogram(by_node)
        explanation.most_rejecting = most_rejecting(explanation.reasons)
        explanation.closest = _in_listed_order(closest_nodes(run), cluster_objects)
        rejecting = attempt.get("unschedulablePlugins") or [r.plugin for r in explanation.reasons]
        explanation.requeue_on = requeue_events(run, _plugin_names(rejecting))
    return explanation


def next_try(queue: dict[str, Any] | None, now: float | None) -> NextTry | None:
    """The queue state, and seconds until the next try when the queue gave a time."""
    if not queue or not queue.get("state"):
        return None
    at = queue.get("nextTryAt")
    seconds = None if at is None or now is None else round(max(at - now, 0.0), 3)
    return NextTry(queue["state"], at, seconds)


def _in_listed_order(closest: list[ClosestNode], objects: list[Any]) -> list[ClosestNode]:
    """The nodes in the order the cluster lists them (the snapshot interleaves zones)."""
    rank = {o.name: i for i, o in enumerate(o for o in objects if o.kind == "Node")}
    return sorted(closest, key=lambda c: rank.get(c.node, len(rank)))


def _plugin_names(plugins: list[str]) -> list[str]:
    """Distinct plugin names in order; narrowing entries name several ("A, B")."""
    names: list[str] = []
    for entry in plugins:
        for name in entry.split(", "):
            if name and name not in names:
                names.append(name)
    return names
