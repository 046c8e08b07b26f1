"""The NodeVolumeLimits plugin (PreFilter, Filter): CSI attach limits per node."""
