"""Workspaces: an isolated simulated cluster, its scheduler configuration and its history."""
