"""The NodeResourcesFit and NodeResourcesBalancedAllocation plugins."""
