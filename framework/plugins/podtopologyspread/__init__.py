"""PodTopologySpread (upstream ``plugins/podtopologyspread``)."""

from framework.plugins.podtopologyspread.plugin import PodTopologySpread

__all__ = ["PodTopologySpread"]
