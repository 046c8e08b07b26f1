"""The ImageLocality plugin (Score)."""

from framework.plugins.imagelocality.image_locality import ImageLocality

__all__ = ["ImageLocality"]
