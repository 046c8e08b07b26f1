"""The NodeVolumeLimits plugin (PreFilter, Filter): CSI attach limits per node."""

from framework.plugins.nodevolumelimits.csi import CSILimits

__all__ = ["CSILimits"]
