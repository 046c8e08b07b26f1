"""The NodeResourcesFit and NodeResourcesBalancedAllocation plugins."""

from framework.plugins.noderesources.balanced_allocation import BalancedAllocation
from framework.plugins.noderesources.fit import Fit

__all__ = ["BalancedAllocation", "Fit"]
