"""The attempt page's Preemption panel: what preemption weighed when the attempt ran
PostFilter, from the engine's ``explain_preemption``.

The engine judges the candidates again on the cluster as the attempt saw it
(``explain_inputs.preemption_inputs``: the victims evicted since put back, the pod pending);
the answer is kept per process while the attempt and the cluster are unchanged, as the pod
page's explanation is.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from framework.explain import explain_preemption
from playground.front.explain_inputs import preemption_inputs
from playground.front.recent_answers import RecentAnswers
from playground.front.why_pending import ExplainUnavailable, cluster_revision
from playground.workspaces.models import AttemptTrace, SchedulingAttempt

POST_FILTER = "postFilter"
MAX_CANDIDATES = 10
"""Candidate nodes shown (each with its victims); the nominated one always among them."""
MAX_NOT_CANDIDATES = 20
CACHED = 32

_ANSWERS = RecentAnswers(CACHED)


@dataclass(slots=True)
class PreemptionPanel:
    explanation: dict[str, Any]
    candidates: list[dict[str, Any]] = field(default_factory=list)
    more_candidates: int = 0
    not_candidates: list[dict[str, Any]] = field(default_factory=list)
    more_not_candidates: int = 0


def ran_post_filter(events: Iterable[dict[str, Any]]) -> bool:
    """Whether the attempt reached PostFilter (preemption runs there)."""
    return any(
        event.get("kind") == "extensionPoint" and event.get("point") == POST_FILTER
        for event in events
    )


def attempt_ran_post_filter(attempt: SchedulingAttempt) -> bool:
    trace = AttemptTrace.objects.filter(attempt=attempt).first()
    return trace is not None and ran_post_filter(trace.events())


def preemption_panel(attempt: SchedulingAttempt) -> PreemptionPanel | None:
    """The panel of an attempt that ran PostFilter (None for one that did not, or whose
    profile preempts with no plugin the engine explains); ExplainUnavailable when the pod
    cannot be read any more."""
    key = (attempt.pk, attempt.repeats, cluster_revision(attempt.workspace))
    explained = _ANSWERS.get_or_compute(key, lambda: _explain(attempt))
    return None if explained is None else panel_of(explained)


def panel_of(explained: dict[str, Any]) -> PreemptionPanel:
    """The explanation with its lists bounded, the nominated node's candidate kept."""
    candidates = list(explained.get("candidates") or ())
    nominated = explained.get("nominatedNode")
    shown = candidates[:MAX_CANDIDATES]
    if nominated and all(c["node"] != nominated for c in shown):
        shown = [*shown[:-1], *(c for c in candidates if c["node"] == nominated)]
    others = list(explained.get("notCandidates") or ())
    return PreemptionPanel(
        explanation=explained,
        candidates=shown,
        more_candidates=len(candidates) - len(shown),
        not_candidates=others[:MAX_NOT_CANDIDATES],
        more_not_candidates=max(0, len(others) - MAX_NOT_CANDIDATES),
    )


def _explain(attempt: SchedulingAttempt) -> dict[str, Any] | None:
    try:
        inputs = preemption_inputs(attempt)
        explained = explain_preemption(
            inputs.pod, inputs.objects, inputs.attempt, **inputs.engine_options()
        )
    except (ValueError, LookupError) as err:
        raise ExplainUnavailable(str(err)) from err
    return None if explained is None else explained.to_dict()
