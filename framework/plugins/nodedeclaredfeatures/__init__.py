"""The NodeDeclaredFeatures plugin (PreFilter, Filter) and the feature inference it uses."""

from framework.plugins.nodedeclaredfeatures.nodedeclaredfeatures import NodeDeclaredFeatures

__all__ = ["NodeDeclaredFeatures"]
