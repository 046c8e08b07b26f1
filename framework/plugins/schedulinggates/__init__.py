"""The SchedulingGates plugin (PreEnqueue)."""
