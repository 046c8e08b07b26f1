"""What the volume plugins find conflicting on a node."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from framework.explain.filter_run import FilterRun
    from framework.interface.node_info import NodeInfo


def volume_conflicts(run: FilterRun, node: NodeInfo) -> str:
    return ""
