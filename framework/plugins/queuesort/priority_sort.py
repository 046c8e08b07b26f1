"""PrioritySort: the default order of the active queue."""

from __future__ import annotations

from typing import Any

from framework.interface.plugins import QueueSortPlugin
from framework.interface.types import QueuedPodInfo
from framework.plugins import names
from framework.plugins.feature import Features


class PrioritySort(QueueSortPlugin):
    """Higher priority first; among equal priorities, the pod queued earlier first."""

    name = names.PRIORITY_SORT

    def __init__(self, args: Any, handle: Any, features: Features) -> None:
        pass

    def less(self, a: QueuedPodInfo, b: QueuedPodInfo) -> bool:
        p1 = a.pod.spec.priority
        p2 = b.pod.spec.priority
        return p1 > p2 or (p1 == p2 and a.timestamp < b.timestamp)
