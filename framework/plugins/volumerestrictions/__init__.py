"""The VolumeRestrictions plugin (PreFilter, Filter)."""
