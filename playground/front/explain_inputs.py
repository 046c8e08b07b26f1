"""What the engine's ``framework.explain`` reads, gathered from a workspace.

The engine explains one attempt from four things (``docs/explain.md``): the pod, the
cluster's objects, the attempt as ``simulate`` reports it (with its trace events), and the
profile it ran under; for a pod still pending, where it is in the queue. A workspace keeps
them in different places: the objects in ClusterObject rows (read as one consistent snapshot,
as what-if reads them), the attempt in SchedulingAttempt and its AttemptTrace, the revision
it ran under (the one it recorded) in the configuration history, and the queue as the
scheduler service last published it (SchedulerStatus). This module is the one place that puts
them together.

Preemption is explained against the cluster as the attempt saw it: the victims it evicted
are gone from the workspace since, so their manifests come back from the change log, and
the preemptor, bound since, is read as pending again.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from framework.api.loader import parse_object
from framework.api.pod import Pod
from framework.features import DEFAULT_FEATURE_GATES, FeatureGates
from playground.front.queue_board import Board
from playground.front.reweighted_profile import attempt_configuration
from playground.front.trace_tables import results_of
from playground.scheduling.plugins import playground_registry
from playground.scheduling.what_if import snapshot
from playground.workspaces.cluster import manifest_of
from playground.workspaces.models import (
    AttemptTrace,
    ClusterObject,
    ObjectChange,
    SchedulingAttempt,
    Workspace,
)
from playground.workspaces.services import checked_configuration

BACKOFF, UNSCHEDULABLE, GATED = "backoff", "unschedulable", "gated"


@dataclass(slots=True)
class ExplainInputs:
    """One pod's explain call, ready to make."""

    pod: Pod
    objects: list[Any]
    attempt: dict[str, Any] | None
    """``simulate``'s entry for the latest attempt, with ``events``; None before any."""
    profile: Any = None
    """The defaulted KubeSchedulerConfiguration the attempt ran under (None: the defaults)."""
    features: FeatureGates = DEFAULT_FEATURE_GATES
    queue: dict[str, Any] | None = None
    gates: list[str] = field(default_factory=list)

    @property
    def registry(self) -> Any:
        """The plugins the workspace's scheduler has (the in-tree ones and the playground's)."""
        return playground_registry(self.features)

    def engine_options(self) -> dict[str, Any]:
        """The keyword arguments the engine's explain functions share."""
        return {"profile": self.profile, "registry": self.registry, "features": self.features}


def pending_inputs(
    workspace: Workspace,
    row: ClusterObject,
    board: Board,
    published_at: float | None,
    latest: SchedulingAttempt | None,
) -> ExplainInputs:
    """The inputs for the pod's "why pending": the workspace now, the pod's ``latest``
    attempt, and its place in the queue as published at ``published_at`` (epoch seconds)."""
    where = board.where().get(row.uid)
    if latest is None:  # nothing to read the workspace for
        return ExplainInputs(
            pod=parse_object(row.manifest),
            objects=[],
            attempt=None,
            queue=queue_state(row, where, published_at),
            gates=scheduling_gates(row),
        )
    cfg, features = attempt_settings(latest)
    return ExplainInputs(
        pod=parse_object(row.manifest),
        objects=snapshot(workspace),
        attempt=attempt_document(latest, _unschedulable_plugins(where)),
        profile=cfg,
        features=features,
        queue=queue_state(row, where, published_at),
        gates=scheduling_gates(row),
    )


def preemption_inputs(attempt: SchedulingAttempt) -> ExplainInputs:
    """The inputs for the attempt's preemption: the workspace with the attempt's victims put
    back and its pod pending, the attempt and its profile."""
    workspace = attempt.workspace
    objects = snapshot(workspace)
    restored = evicted_victims(workspace, attempt, objects)
    objects = [_pending(obj) if _is(obj, attempt.pod_uid) else obj for obj in objects]
    pod = next((obj for obj in objects if _is(obj, attempt.pod_uid)), None)
    if pod is None:
        pod = _pod_from_log(workspace, attempt)
    cfg, features = attempt_settings(attempt)
    return ExplainInputs(
        pod=pod,
        objects=[*objects, *restored],
        attempt=attempt_document(attempt),
        profile=cfg,
        features=features,
    )


def attempt_document(
    attempt: SchedulingAttempt, unschedulable_plugins: list[str] | None = None
) -> dict[str, Any]:
    """The attempt as ``simulate --output json`` reports it, plus its trace ``events`` (and
    the queue's ``unschedulablePlugins`` when known): the shape the engine reads."""
    trace = AttemptTrace.objects.filter(attempt=attempt).first()
    events = trace.events() if trace else []
    document = {
        "pod": attempt.pod_key,
        "result": attempt.result,
        "node": attempt.node or None,
        "message": attempt.message,
        "evaluatedNodes": attempt.evaluated_nodes,
        "feasibleNodes": attempt.feasible_nodes,
        "filter": results_of(events)["filter"] if events else {},
        "finalScores": dict(attempt.final_scores or {}),
        "nominatedNode": attempt.nominated_node or None,
        "victims": list(attempt.victims or []),
        "events": events,
    }
    if unschedulable_plugins is not None:
        document["unschedulablePlugins"] = list(unschedulable_plugins)
    return document


def attempt_settings(attempt: SchedulingAttempt) -> tuple[Any, FeatureGates]:
    """The defaulted configuration and the feature gates the attempt ran under (the revision
    it recorded; for an old attempt that recorded none, the latest made before it); ValueError
    naming the revision when it is not valid any more (an engine upgrade)."""
    base = attempt_configuration(attempt)
    checked = checked_configuration(base.text, base.feature_gates)
    if checked.cfg is None or checked.problems:
        problems = "; ".join(str(problem) for problem in checked.problems)
        raise ValueError(f"{base.label} of the configuration is not valid any more: {problems}")
    return checked.cfg, checked.features


def queue_state(
    row: ClusterObject,
    where: tuple[str, dict[str, Any]] | None,
    published_at: float | None,
) -> dict[str, Any] | None:
    """``{"state", "nextTryAt", "gates"}`` from the queue as last published: a pod in backoff
    is tried when its backoff ends; an unschedulable one at the latest when its stay runs
    out (``podMaxInUnschedulablePodsDuration``); a gated one when its gates are gone."""
    if where is None:
        gates = scheduling_gates(row)
        return {"state": GATED, "nextTryAt": None, "gates": gates} if gates else None
    name, entry = where
    at = entry.get("leftoverAt") if name == UNSCHEDULABLE else None
    left = entry.get("backoffSeconds") if name == BACKOFF else None
    if left is not None and published_at is not None:
        at = published_at + left
    return {"state": name, "nextTryAt": at, "gates": scheduling_gates(row)}


def scheduling_gates(row: ClusterObject) -> list[str]:
    """The names of the pod's ``spec.schedulingGates``."""
    gates = (row.manifest.get("spec") or {}).get("schedulingGates") or ()
    return [gate.get("name", "") for gate in gates]


def evicted_victims(
    workspace: Workspace, attempt: SchedulingAttempt, objects: list[Any]
) -> list[Pod]:
    """The attempt's victims that are gone now, as they were when deleted (the change log
    keeps each deleted object's last manifest)."""
    present = {obj.key for obj in objects if getattr(obj, "KIND", "") == "Pod"}
    wanted = [key for key in attempt.victims or () if key not in present]
    manifests = (_last_manifest(workspace, key, deleted=True) for key in dict.fromkeys(wanted))
    return [parse_object(manifest) for manifest in manifests if manifest]


def _last_manifest(workspace: Workspace, key: str, deleted: bool = False) -> dict | None:
    """The pod's manifest before its latest change in the log (its deletion's, if asked)."""
    namespace, _, name = key.partition("/")
    changes = ObjectChange.objects.filter(
        workspace=workspace, kind="Pod", namespace=namespace, name=name
    ).exclude(old_manifest=None)
    if deleted:
        changes = changes.filter(event_type=ObjectChange.DELETED)
    return changes.order_by("-id").values_list("old_manifest", flat=True).first()


def _unschedulable_plugins(where: tuple[str, dict[str, Any]] | None) -> list[str] | None:
    if where is None or where[0] not in (UNSCHEDULABLE, GATED):
        return None
    return list(where[1].get("plugins") or [])


def _is(obj: Any, uid: str) -> bool:
    return getattr(obj, "KIND", "") == "Pod" and obj.uid == uid


def _pending(pod: Pod) -> Pod:
    """The pod as it was before it was bound (preemption ran while it was pending)."""
    if not pod.spec.node_name:
        return pod
    manifest = manifest_of(pod)
    manifest["spec"].pop("nodeName", None)
    return parse_object(manifest)


def _pod_from_log(workspace: Workspace, attempt: SchedulingAttempt) -> Pod:
    """A deleted pod's last manifest (its attempts remain); LookupError when the log has
    none."""
    manifest = _last_manifest(workspace, attempt.pod_key)
    if manifest is None:
        raise LookupError(f"the pod {attempt.pod_key} is gone and the change log has no copy")
    return _pending(parse_object(manifest))
