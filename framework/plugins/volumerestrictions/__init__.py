"""The VolumeRestrictions plugin (PreFilter, Filter)."""

from framework.plugins.volumerestrictions.volume_restrictions import VolumeRestrictions

__all__ = ["VolumeRestrictions"]
