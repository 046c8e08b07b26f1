"""The ImageLocality plugin (Score)."""
