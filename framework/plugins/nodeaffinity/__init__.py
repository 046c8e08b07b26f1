"""The NodeAffinity plugin (PreFilter, Filter, PreScore, Score)."""
