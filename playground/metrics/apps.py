"""Prometheus metrics: ``/metrics`` and the samples the Metrics tab draws from."""

from __future__ import annotations

from django.apps import AppConfig


class MetricsConfig(AppConfig):
    name = "playground.metrics"
    label = "metrics"
