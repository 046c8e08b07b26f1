"""The VolumeBinding plugin (PreFilter, Filter, PreScore, Score, Reserve, PreBind)."""
