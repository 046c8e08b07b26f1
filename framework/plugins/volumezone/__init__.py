"""The VolumeZone plugin (PreFilter, Filter)."""
