"""The NodeAffinity plugin (PreFilter, Filter, PreScore, Score)."""

from framework.plugins.nodeaffinity.node_affinity import NodeAffinity

__all__ = ["NodeAffinity"]
