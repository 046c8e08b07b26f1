"""What PodTopologySpread and InterPodAffinity find missing on a node."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from framework.explain.filter_run import FilterRun
    from framework.interface.node_info import NodeInfo


def topology_spread(run: FilterRun, node: NodeInfo) -> str:
    return ""


def inter_pod_affinity(run: FilterRun, node: NodeInfo) -> str:
    return ""
