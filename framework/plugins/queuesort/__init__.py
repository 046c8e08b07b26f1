"""The PrioritySort plugin (QueueSort)."""
