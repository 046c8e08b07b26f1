"""PrioritySort: higher priority first, then the pod queued earlier."""

from __future__ import annotations

import pytest

from framework.interface.node_info import PodInfo
from framework.interface.types import QueuedPodInfo
from framework.plugins.feature import Features
from framework.plugins.queuesort.priority_sort import PrioritySort
from tests.framework.builders import make_pod

LOW, HIGH = 10, 100
T1, T2 = 1000.0, 1001.0


def queued(priority: int | None, timestamp: float = 0.0) -> QueuedPodInfo:
    return QueuedPodInfo(PodInfo(make_pod(priority=priority)), timestamp=timestamp)


@pytest.mark.parametrize(
    ("p1", "p2", "want"),
    [
        (queued(LOW), queued(HIGH), False),
        (queued(HIGH), queued(LOW), True),
        (queued(HIGH, T1), queued(HIGH, T2), True),
        (queued(HIGH, T2), queued(HIGH, T1), False),
        (queued(HIGH, T1), queued(HIGH, T1), False),
        (queued(None, T2), queued(-1, T1), True),
    ],
    ids=[
        "p1 has a lower priority than p2, so p2 goes first",
        "p1 has a higher priority than p2, so p1 goes first",
        "equal priorities and p1 was queued earlier, so p1 goes first",
        "equal priorities and p2 was queued earlier, so p2 goes first",
        "equal priorities and timestamps, so neither is less",
        "a pod without priority counts as priority 0",
    ],
)
def test_it_orders_by_priority_then_queue_time(p1, p2, want):
    assert PrioritySort(None, None, Features()).less(p1, p2) is want
