"""The framework runtime: registry, Framework (one run method per extension point), waiting pods."""
