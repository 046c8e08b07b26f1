"""The SchedulingGates plugin (PreEnqueue)."""

from framework.plugins.schedulinggates.scheduling_gates import SchedulingGates

__all__ = ["SchedulingGates"]
