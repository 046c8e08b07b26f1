"""The NodeName plugin (Filter)."""
