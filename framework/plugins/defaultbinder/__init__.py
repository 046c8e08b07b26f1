"""The DefaultBinder plugin (Bind)."""
