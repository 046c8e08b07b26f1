"""The pool of pods that were tried and found unschedulable, or that PreEnqueue gates.

They wait here until a cluster event that may help them arrives (as judged by the
queueing hints of the plugins that rejected them), or until they have waited too long.
"""

from __future__ import annotations

from collections.abc import Iterator

from framework.api.pod import Pod
from framework.backend.queue.keys import pod_full_name
from framework.interface.types import QueuedPodInfo


class UnschedulablePods:
    """QueuedPodInfos by pod full name, in the order they arrived."""

    __slots__ = ("pod_info_map",)

    def __init__(self) -> None:
        self.pod_info_map: dict[str, QueuedPodInfo] = {}

    def add_or_update(self, pod_info: QueuedPodInfo) -> None:
        self.pod_info_map[pod_full_name(pod_info.pod)] = pod_info

    def delete(self, pod: Pod) -> QueuedPodInfo | None:
        """Removes the pod; returns what was stored, if anything."""
        return self.pod_info_map.pop(pod_full_name(pod), None)

    def get(self, pod: Pod) -> QueuedPodInfo | None:
        return self.pod_info_map.get(pod_full_name(pod))

    def get_by_full_name(self, full_name: str) -> QueuedPodInfo | None:
        """By ``pod_full_name``: the nominator holds references, not pods."""
        return self.pod_info_map.get(full_name)

    def clear(self) -> None:
        self.pod_info_map.clear()

    def __len__(self) -> int:
        return len(self.pod_info_map)

    def __iter__(self) -> Iterator[QueuedPodInfo]:
        """A copy of the entries, so callers may move pods out while iterating."""
        return iter(list(self.pod_info_map.values()))
