"""The DefaultBinder plugin (Bind)."""

from framework.plugins.defaultbinder.default_binder import DefaultBinder

__all__ = ["DefaultBinder"]
