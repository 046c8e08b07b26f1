"""The NodePorts plugin (PreFilter, Filter)."""
