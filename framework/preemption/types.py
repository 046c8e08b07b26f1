"""Victims and candidates: what a dry run of preemption finds on a node, and what a pod
group's preemption weighs (the preemptor, its victims as units, the domain they live in)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from framework.api.pod import PREEMPT_LOWER_PRIORITY, PREEMPT_NEVER

if TYPE_CHECKING:
    from framework.api.pod import Pod
    from framework.api.pod_group import PodGroup
    from framework.interface.node_info import NodeInfo, PodInfo


@dataclass(slots=True)
class Victims:
    """Pods to evict on one node, most important first (the extender API's ``Victims``)."""

    pods: list[Pod] = field(default_factory=list)
    num_pdb_violations: int = 0


@dataclass(slots=True)
class Candidate:
    """A node the preemptor could be nominated to, once its victims are gone."""

    name: str
    victims: Victims


class CandidateList:
    """At most ``capacity`` candidates; further ones are dropped, as upstream's fixed array."""

    __slots__ = ("capacity", "items")

    def __init__(self, capacity: int) -> None:
        self.capacity = capacity
        self.items: list[Candidate] = []

    def add(self, candidate: Candidate) -> None:
        if len(self.items) < self.capacity:
            self.items.append(candidate)

    def size(self) -> int:
        return len(self.items)

    def get(self) -> list[Candidate]:
        return self.items


class PodGroupPreemptor:
    """A pod group that preempts as a whole (upstream ``podGroupPreemptor``).

    Its priority is the PodGroup's, whatever its pods say; one member with ``preemptionPolicy:
    Never`` (which pods get from their priority class) makes the whole group Never.
    """

    __slots__ = ("pod_group", "pods", "preemption_policy", "priority")

    def __init__(self, pod_group: PodGroup, pods: list[Pod]) -> None:
        self.pod_group = pod_group
        self.pods = pods
        self.priority = pod_group.spec.priority
        never = any(pod.spec.preemption_policy == PREEMPT_NEVER for pod in pods)
        self.preemption_policy = PREEMPT_NEVER if never else PREEMPT_LOWER_PRIORITY


class Victim:
    """What is evicted as one unit: a pod, or every running pod of a PodGroup whose
    ``disruptionMode`` is ``PodGroup`` (upstream ``victim``)."""

    __slots__ = ("affected_nodes", "earliest_start_time", "pods", "priority")

    def __init__(
        self,
        pods: list[PodInfo],
        priority: int,
        node_infos: list[NodeInfo],
        earliest_start_time: int | None = None,
    ) -> None:
        self.pods = pods
        self.priority = priority
        self.affected_nodes: dict[str, NodeInfo] = {n.node_name: n for n in node_infos}
        self.earliest_start_time = earliest_start_time

    def is_pod_group(self) -> bool:
        """Whether the unit's pods belong to a group (upstream asks its first pod)."""
        return self.pods[0].pod.spec.pod_group_name is not None


@dataclass(slots=True)
class Domain:
    """Where a pod group's preemption looks for victims: the whole cluster, here."""

    name: str
    nodes: list[NodeInfo]
    all_possible_victims: list[Victim]
