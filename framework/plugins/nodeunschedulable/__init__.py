"""The NodeUnschedulable plugin (Filter)."""

from framework.plugins.nodeunschedulable.node_unschedulable import NodeUnschedulable

__all__ = ["NodeUnschedulable"]
