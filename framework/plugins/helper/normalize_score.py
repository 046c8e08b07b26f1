"""The default NormalizeScore: scale scores to [0, max_priority], optionally reversed."""

from __future__ import annotations

from framework.interface.status import Status
from framework.interface.types import NodeScore
from framework.util.gomath import go_div


def default_normalize_score(
    max_priority: int, reverse: bool, scores: list[NodeScore]
) -> Status | None:
    """Scales so the highest score becomes ``max_priority`` (integer division, as upstream).

    With ``reverse`` the lowest raw score wins. When every score is 0 nothing changes, except
    that reversed scores all become ``max_priority``.
    """
    values = [entry.score for entry in scores]
    default_normalize_score_values(max_priority, reverse, values)
    for entry, value in zip(scores, values, strict=True):
        entry.score = value
    return None


def default_normalize_score_values(
    max_priority: int, reverse: bool, scores: list[int]
) -> Status | None:
    """``default_normalize_score`` on plain scores in node order, rewritten in place."""
    max_count = max(max(scores, default=0), 0)
    if max_count == 0:
        if reverse:
            scores[:] = [max_priority] * len(scores)
        return None
    if reverse:
        scores[:] = [max_priority - go_div(max_priority * s, max_count) for s in scores]
    else:
        scores[:] = [go_div(max_priority * s, max_count) for s in scores]
    return None
