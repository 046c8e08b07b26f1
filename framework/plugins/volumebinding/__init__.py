"""The VolumeBinding plugin (PreFilter, Filter, PreScore, Score, Reserve, PreBind)."""

from framework.plugins.volumebinding.volume_binding import VolumeBinding

__all__ = ["VolumeBinding"]
