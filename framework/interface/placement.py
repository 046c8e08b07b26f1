"""Placements: the sets of nodes a pod group's cycle tries the group on (upstream fwk.Placement,
PodGroupAssignments, PlacementScore; TopologyAwareWorkloadScheduling).

A PlacementGenerate plugin splits the nodes into placements (one per topology domain, say);
the pod-group cycle tries the whole group on each, and PlacementScore plugins rank the ones
where it fits by what was proposed there.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Protocol

if TYPE_CHECKING:
    from framework.api.pod import Pod
    from framework.interface.node_info import NodeInfo
    from framework.interface.types import PluginScore


@dataclass(eq=False, slots=True)
class Placement:
    """A named set of nodes; compared by identity, as upstream keys results by pointer."""

    name: str = ""
    nodes: list[NodeInfo] = field(default_factory=list)


@dataclass(slots=True)
class GeneratePlacementsResult:
    """What a PlacementGenerate plugin proposes; placements may overlap, none means none fit."""

    placements: list[Placement] = field(default_factory=list)


class ProposedAssignment(Protocol):
    """A member and the node the group's cycle found for it in one placement."""

    def get_pod(self) -> Pod: ...

    def get_node_name(self) -> str: ...


@dataclass(slots=True)
class PodGroupAssignments:
    """One feasible placement and the members' proposed nodes in it (placed members only)."""

    placement: Placement
    proposed_assignments: list[ProposedAssignment] = field(default_factory=list)


@dataclass(slots=True)
class PlacementScore:
    """One plugin's score for one placement; NormalizePlacementScore rewrites it in place."""

    placement: Placement | None
    score: int


@dataclass(slots=True)
class PlacementPluginScores:
    """Every plugin's weighted score for one placement, their total, and the tie breaker."""

    placement: Placement
    scores: list[PluginScore] = field(default_factory=list)
    total_score: int = 0
    randomizer: int = 0
