"""Victims and candidates: what a dry run of preemption finds on a node."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from framework.api.pod import Pod


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
