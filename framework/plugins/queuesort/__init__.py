"""The PrioritySort plugin (QueueSort)."""

from framework.plugins.queuesort.priority_sort import PrioritySort

__all__ = ["PrioritySort"]
