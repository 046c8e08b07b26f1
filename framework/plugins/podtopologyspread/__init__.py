"""PodTopologySpread (upstream ``plugins/podtopologyspread``)."""
