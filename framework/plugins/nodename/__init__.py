"""The NodeName plugin (Filter)."""

from framework.plugins.nodename.node_name import NodeName, fits

__all__ = ["NodeName", "fits"]
