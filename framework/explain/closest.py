"""The closest nodes: those that fail exactly one plugin, with what is missing there.

A node failing one plugin is one change away from taking the pod (more room, a toleration, a
label...). What is missing is worded per plugin by the modules beside this one; a plugin
without its own wording falls back to the reasons its Filter gave.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from framework.explain.missing_placement import (
    host_ports,
    node_affinity,
    node_name,
    node_unschedulable,
    untolerated_taints,
)
from framework.explain.missing_resources import Shortfall, resource_shortfalls
from framework.explain.missing_spread import inter_pod_affinity, topology_spread
from framework.explain.missing_volumes import volume_conflicts, volume_zone

if TYPE_CHECKING:
    from framework.explain.filter_run import FilterRun
    from framework.interface.node_info import NodeInfo
    from framework.interface.status import Status

Describe = Callable[["FilterRun", "NodeInfo", "Status"], str]

DESCRIBERS: dict[str, Describe] = {
    "TaintToleration": untolerated_taints,
    "NodeAffinity": node_affinity,
    "NodeName": node_name,
    "NodeUnschedulable": node_unschedulable,
    "NodePorts": host_ports,
    "PodTopologySpread": topology_spread,
    "InterPodAffinity": inter_pod_affinity,
    "VolumeBinding": volume_conflicts,
    "VolumeZone": volume_zone,
    "VolumeRestrictions": volume_conflicts,
    "NodeVolumeLimits": volume_conflicts,
}
"""Plugin name -> what it finds missing on a node, for people."""


@dataclass
class ClosestNode:
    """A node that fails one plugin only, and what it lacks for the pod."""

    node: str
    plugin: str
    missing: str
    resources: list[Shortfall] = field(default_factory=list)

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {"node": self.node, "plugin": self.plugin, "missing": self.missing}
        if self.resources:
            out["resources"] = [r.to_dict() for r in self.resources]
        return out


def closest_nodes(run: FilterRun) -> list[ClosestNode]:
    """Every node failing exactly one plugin, in the snapshot's node order."""
    closest = []
    for node in run.nodes:
        failures = run.failures.get(node.node_name, {})
        if len(failures) == 1:
            [(plugin, status)] = failures.items()
            closest.append(describe_missing(run, run.view(node), plugin, status))
    return closest


def describe_missing(run: FilterRun, node: NodeInfo, plugin: str, status: Status) -> ClosestNode:
    """What ``plugin`` finds missing on ``node``; its Filter reasons when not worded here."""
    if plugin == "NodeResourcesFit" and plugin in run.framework.plugins_map:
        shortfalls = resource_shortfalls(run, node)
        if shortfalls:
            text = "; ".join(s.describe() for s in shortfalls)
            return ClosestNode(node.node_name, plugin, text, shortfalls)
    describe = DESCRIBERS.get(plugin)
    text = describe(run, node, status) if describe is not None else ""
    return ClosestNode(node.node_name, plugin, text or status.message() or status.code.name)
