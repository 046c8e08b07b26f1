"""The NodePorts plugin (PreFilter, Filter)."""

from framework.plugins.nodeports.node_ports import NodePorts, fits

__all__ = ["NodePorts", "fits"]
