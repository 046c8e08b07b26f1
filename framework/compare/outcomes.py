"""What became of the pods a variant scheduled: where each landed, how many failed and why,
what preemption did, and how many attempts each took.

A pod's placement is the node its last attempt bound it to, or None when its last attempt
failed: a pod is attempted again only while it is not bound (or when a recording deletes and
creates it again), so the last attempt is its outcome.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from typing import Any

from framework.simulator import AttemptReport

SCHEDULED = "Scheduled"


def placements(reports: Sequence[AttemptReport]) -> dict[str, str | None]:
    """Every attempted pod ("ns/name") -> its node, or None; in order of first attempt."""
    placed: dict[str, str | None] = {}
    for report in reports:
        attempt = report.attempt
        placed[attempt.pod] = attempt.node if attempt.result == SCHEDULED else None
    return placed


def pod_counts(reports: Sequence[AttemptReport]) -> dict[str, Any]:
    """``pods``, ``unschedulableByMessage`` and ``attemptsPerPod`` of the report."""
    last: dict[str, AttemptReport] = {}
    attempts: Counter[str] = Counter()
    for report in reports:
        last[report.attempt.pod] = report
        attempts[report.attempt.pod] += 1
    failed = [r.attempt for r in last.values() if r.attempt.result != SCHEDULED]
    messages = Counter(attempt.message for attempt in failed)
    preemptions = [report for report in reports if report.victims]
    return {
        "pods": {
            "total": len(last),
            "scheduled": len(last) - len(failed),
            "unschedulable": len(failed),
            "preempted": sum(len(report.victims) for report in preemptions),
            "preemptions": len(preemptions),
        },
        "unschedulableByMessage": [
            {"message": message, "count": count}
            for message, count in sorted(messages.items(), key=lambda item: (-item[1], item[0]))
        ],
        "attemptsPerPod": {
            "mean": round(sum(attempts.values()) / len(attempts), 3) if attempts else 0.0,
            "max": max(attempts.values(), default=0),
        },
    }
