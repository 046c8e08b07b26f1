"""The NodeUnschedulable plugin (Filter)."""
