"""A pod group as one scheduling cycle takes it (upstream framework.PodGroupInfo and
QueuedPodGroupInfo)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from framework.api.pod import Pod
    from framework.interface.types import QueuedPodInfo


@dataclass(slots=True)
class PodGroupInfo:
    """Which group: the namespace of its pods and its name."""

    namespace: str
    name: str

    @property
    def key(self) -> str:
        return f"{self.namespace}/{self.name}"


@dataclass(slots=True)
class QueuedPodGroupInfo(PodGroupInfo):
    """The group's members popped for one pod-group cycle, in the order they are tried
    (priority, highest first, then the first attempt's time)."""

    queued_pod_infos: list[QueuedPodInfo] = field(default_factory=list)
    unscheduled_pods: list[Pod] = field(default_factory=list)
    """The same members' pods (what workload-aware preemption looks at)."""

    def set_pods(self, queued_pod_infos: list[QueuedPodInfo]) -> None:
        self.queued_pod_infos = queued_pod_infos
        self.unscheduled_pods = [pod_info.pod for pod_info in queued_pod_infos]
