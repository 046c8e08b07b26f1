"""The VolumeZone plugin (PreFilter, Filter)."""

from framework.plugins.volumezone.volume_zone import VolumeZone

__all__ = ["VolumeZone"]
