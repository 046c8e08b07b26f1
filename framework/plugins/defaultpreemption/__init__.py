"""The DefaultPreemption plugin (PostFilter, PreEnqueue)."""

from framework.plugins.defaultpreemption.default_preemption import DefaultPreemption

__all__ = ["DefaultPreemption"]
