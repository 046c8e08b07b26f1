"""Test helpers shipped with the engine: fake plugins for every extension point.

They double as the smallest possible examples of writing a plugin.
"""
