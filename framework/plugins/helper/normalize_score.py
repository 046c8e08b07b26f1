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
    max_count = max((entry.score for entry in scores), default=0)
    max_count = max(max_count, 0)
    if max_count == 0:
        if reverse:
            for entry in scores:
                entry.score = max_priority
        return None
    for entry in scores:
        score = go_div(max_priority * entry.score, max_count)
        entry.score = max_priority - score if reverse else score
    return None
