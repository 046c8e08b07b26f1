"""A pending pod's "Why pending": the engine's explanation of its latest attempt, with charts.

Explaining reads the whole workspace (every node and pod: the closest nodes are judged on the
cluster as it is now), so the pod page loads the panel on its own request after the page
(htmx), and the pods list only on hover. Both go through ``explanation``, which keeps the
latest answers per process: the same pod, attempt, cluster revision and queue place give the
same explanation, so hovering again, or the panel after the tooltip, costs two small queries.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Any

from django.db.models import Max

from framework.explain import explain_pod
from playground.front.explain_charts import Histogram, reasons_histogram, usage_bar
from playground.front.explain_inputs import ExplainInputs, pending_inputs, queue_state
from playground.front.queue_board import board_of
from playground.front.recent_answers import RecentAnswers
from playground.workspaces.models import ClusterObject, ObjectChange, SchedulingAttempt, Workspace

MAX_CLOSEST = 5
"""Closest nodes shown (the engine ranks them; thousands of nodes may fail one plugin)."""
MAX_REQUEUE = 10
"""Plugins whose requeueing events are listed."""
CACHED = 64
"""Explanations kept per process."""
PLACED = ("Scheduled", "Waiting")
"""Results of an attempt that found the pod a node: nothing to explain, it is on its way there
(waiting at Permit, being bound) or its binding failed since and the next attempt will tell."""


class ExplainUnavailable(Exception):
    """The engine cannot explain this attempt (the message says why)."""


@dataclass(slots=True)
class WhyPending:
    """What the panel and the tooltip draw."""

    explanation: dict[str, Any]
    histogram: Histogram
    closest: list[dict[str, Any]] = field(default_factory=list)
    """The first MAX_CLOSEST closest nodes, each with ``bars`` (UsageBar per resource)."""
    more_closest: int = 0
    next_try: dict[str, Any] | None = None
    """``{state, at, inSeconds}`` with ``inSeconds`` as of now (the page counts it down)."""

    @property
    def short(self) -> str:
        """One line for the pods list's tooltip: the plugin that rejected most and on how
        many nodes, and the closest node with what it lacks."""
        ex = self.explanation
        if ex.get("result") in PLACED:
            return f"the latest attempt found it a node: {ex.get('node')}"
        parts = []
        if ex.get("mostRejecting"):
            count = sum(r["nodes"] for r in ex["reasons"] if r["plugin"] == ex["mostRejecting"])
            parts.append(f"{ex['mostRejecting']} rejected {count} of {ex.get('nodes', 0)} nodes")
        if self.closest:
            first = self.closest[0]
            parts.append(f"closest: {first['node']}, {first['missing']}")
        if ex.get("gates"):
            parts.append("gated by " + ", ".join(ex["gates"]))
        return "; ".join(parts) or ex.get("message") or "no attempt yet"


_ANSWERS = RecentAnswers(CACHED)


def why_pending(workspace: Workspace, row: ClusterObject, now: float | None = None) -> WhyPending:
    """The pod's explanation as the panel shows it; ExplainUnavailable when the engine
    cannot give one."""
    now = time.time() if now is None else now
    explained = explanation(workspace, row, now)
    return panel_of(explained, now)


def explanation(workspace: Workspace, row: ClusterObject, now: float) -> dict[str, Any]:
    """The engine's ``Explanation.to_dict()`` for the pod's latest attempt, kept per process
    while the attempt, the cluster and the pod's place in the queue are the same (its next
    try's time is brought up to date from the queue each time)."""
    board = board_of(workspace)
    published = board.updated.timestamp() if board.updated else None
    latest = SchedulingAttempt.objects.filter(workspace=workspace, pod_uid=row.uid).first()
    queue = queue_state(row, board.where().get(row.uid), published)
    place = (queue["state"], tuple(queue["gates"])) if queue else None
    key = (workspace.pk, row.uid, latest.pk if latest else None, cluster_revision(workspace), place)
    explained = _ANSWERS.get_or_compute(
        key, lambda: _explain(_inputs(workspace, row, board, published, latest), now)
    )
    if queue and explained.get("nextTry"):
        explained = {**explained, "nextTry": {**explained["nextTry"], "at": queue["nextTryAt"]}}
    return explained


def panel_of(explained: dict[str, Any], now: float) -> WhyPending:
    """The explanation with its charts, its lists bounded, and the next try as of ``now``."""
    closest = [
        {**node, "bars": [usage_bar(r) for r in node.get("resources") or ()]}
        for node in (explained.get("closest") or [])[:MAX_CLOSEST]
    ]
    next_try = explained.get("nextTry")
    if next_try and next_try.get("at") is not None:
        next_try = {**next_try, "inSeconds": round(max(0.0, next_try["at"] - now), 1)}
    return WhyPending(
        explanation=explained,
        histogram=reasons_histogram(
            explained.get("reasons") or (),
            explained.get("nodes", 0),
            explained.get("mostRejecting"),
        ),
        closest=closest,
        more_closest=max(0, len(explained.get("closest") or ()) - MAX_CLOSEST),
        next_try=next_try,
    )


def _inputs(workspace: Workspace, row: ClusterObject, *rest: Any) -> ExplainInputs:
    """``pending_inputs``; the revision the attempt ran under may not be valid any more (an
    engine upgrade), which the panel says instead of failing."""
    try:
        return pending_inputs(workspace, row, *rest)
    except ValueError as err:
        raise ExplainUnavailable(str(err)) from err


def _explain(inputs: ExplainInputs, now: float) -> dict[str, Any]:
    """The engine's answer; for a pod never tried yet (a gated one), what is known without
    an attempt: its gates and its place in the queue."""
    if inputs.attempt is None or inputs.attempt["result"] in PLACED:
        return _without_engine(inputs)
    try:
        explained = explain_pod(
            inputs.pod,
            inputs.objects,
            inputs.attempt,
            queue=inputs.queue,
            now=now,
            **inputs.engine_options(),
        )
    except (ValueError, LookupError) as err:
        raise ExplainUnavailable(str(err)) from err
    return explained.to_dict()


def _without_engine(inputs: ExplainInputs) -> dict[str, Any]:
    """What is known without running the plugins: the gates and place in the queue of a pod
    never tried (a gated one), the node an attempt found."""
    queue = inputs.queue or {}
    attempt = inputs.attempt or {}
    return {
        "pod": inputs.pod.key,
        "result": attempt.get("result"),
        "node": attempt.get("node"),
        "message": attempt.get("message", ""),
        "nodes": 0,
        "reasons": [],
        "mostRejecting": None,
        "closest": [],
        "requeueOn": [],
        "gates": inputs.gates,
        "nextTry": {"state": queue["state"], "at": queue.get("nextTryAt")} if queue else None,
    }


def cluster_revision(workspace: Workspace) -> int:
    """The workspace's latest change id: any object written moves it."""
    found = ObjectChange.objects.filter(workspace=workspace).aggregate(Max("id"))["id__max"]
    return found or 0
