"""How full each node is: requested against allocatable CPU, memory and pods.

Requests are added up by the engine's NodeInfo, as the scheduler's cache adds them (init
containers, sidecars, overhead, pod-level resources), so the bars show what NodeResourcesFit
sees. Pods that have finished (Succeeded, Failed) hold nothing, as in the scheduler's cache.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable
from dataclasses import dataclass, field

from framework.api.loader import parse_object
from framework.interface.node_info import NodeInfo
from playground.workspaces.models import ClusterObject

FINISHED_PHASES = ("Succeeded", "Failed")
HIGH_PERCENT = 80


@dataclass(frozen=True, slots=True)
class Usage:
    resource: str
    requested: int
    allocatable: int

    @property
    def percent(self) -> int:
        if self.allocatable <= 0:
            return 100 if self.requested > 0 else 0
        return min(100, round(100 * self.requested / self.allocatable))

    @property
    def level(self) -> str:
        """``full``, ``high`` or empty: the bar's colour."""
        if self.percent >= 100:
            return "full"
        return "high" if self.percent >= HIGH_PERCENT else ""


@dataclass(slots=True)
class NodeRow:
    pk: int
    name: str
    labels: dict[str, str]
    taints: list[str]
    unschedulable: bool
    cpu: Usage
    memory: Usage
    pods: Usage
    devices: list[Usage] = field(default_factory=list)
    """DRA devices allocated of those the node's ResourceSlices publish, per driver."""


def node_rows(nodes: Iterable[ClusterObject], bound_pods: Iterable[ClusterObject]) -> list[NodeRow]:
    """One row per node, its usage counted from the pods bound to it."""
    pods_by_node: dict[str, list] = defaultdict(list)
    for row in bound_pods:
        if row.node_name and row.phase not in FINISHED_PHASES:
            pods_by_node[row.node_name].append(parse_object(row.manifest))
    return [_node_row(row, pods_by_node.get(row.name, [])) for row in nodes]


def _node_row(row: ClusterObject, pods: list) -> NodeRow:
    node = parse_object(row.manifest)
    info = NodeInfo(*pods)
    info.set_node(node)
    requested, allocatable = info.requested, info.allocatable
    return NodeRow(
        pk=row.pk,
        name=node.name,
        labels=dict(node.labels),
        taints=[taint.to_string() for taint in node.spec.taints],
        unschedulable=node.spec.unschedulable,
        cpu=Usage("cpu", requested.milli_cpu, allocatable.milli_cpu),
        memory=Usage("memory", requested.memory, allocatable.memory),
        pods=Usage("pods", len(info.pods), allocatable.allowed_pod_number),
    )


@dataclass(frozen=True, slots=True)
class NodeUsage:
    """A node's usage as the scheduler service publishes it (its cache's view, assumed pods
    included): ``{name, cpu, memory, pods}``, each ``{requested, allocatable}``."""

    name: str
    cpu: Usage
    memory: Usage
    pods: Usage

    @classmethod
    def from_published(cls, entry: dict) -> NodeUsage:
        def usage(resource: str) -> Usage:
            amounts = entry.get(resource) or {}
            return Usage(resource, amounts.get("requested", 0), amounts.get("allocatable", 0))

        return cls(entry["name"], usage("cpu"), usage("memory"), usage("pods"))
