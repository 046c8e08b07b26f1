"""InterPodAffinity (upstream ``plugins/interpodaffinity``)."""

from framework.plugins.interpodaffinity.plugin import InterPodAffinity

__all__ = ["InterPodAffinity"]
