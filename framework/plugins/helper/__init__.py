"""Helpers shared by in-tree plugins (upstream ``plugins/helper``)."""
