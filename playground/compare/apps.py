"""Comparing profiles over a workspace's cluster, a snapshot or a recording."""

from __future__ import annotations

from django.apps import AppConfig


class CompareConfig(AppConfig):
    name = "playground.compare"
    label = "compare"
