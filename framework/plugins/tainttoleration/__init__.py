"""The TaintToleration plugin (Filter, PreScore, Score)."""

from framework.plugins.tainttoleration.taint_toleration import TaintToleration

__all__ = ["TaintToleration"]
