"""Reading ``/metrics`` back with prometheus-client's own parser."""

from __future__ import annotations

from prometheus_client.parser import text_string_to_metric_families

Sample = tuple[str, frozenset[tuple[str, str]]]
TOKEN = "s3cret-scrape-token"
"""METRICS_TOKEN in the tests (tests/playground/metrics/conftest.py sets it)."""


def samples(text: str) -> dict[Sample, float]:
    """Every sample of the exposition: (sample name, labels) -> value."""
    return {
        (sample.name, frozenset(sample.labels.items())): sample.value
        for family in text_string_to_metric_families(text)
        for sample in family.samples
    }


def value(scraped: dict[Sample, float], name: str, **labels: str) -> float:
    return scraped.get((name, frozenset(labels.items())), 0.0)
