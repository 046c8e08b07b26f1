"""The DynamicResources plugin: ResourceClaims (not simulated) and DRA extended resources."""

from framework.plugins.dynamicresources.dynamicresources import DynamicResources

__all__ = ["DynamicResources"]
