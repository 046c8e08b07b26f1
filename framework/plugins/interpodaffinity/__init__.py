"""InterPodAffinity (upstream ``plugins/interpodaffinity``)."""
