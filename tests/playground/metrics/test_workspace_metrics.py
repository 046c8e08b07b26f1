"""A workspace's metrics reach prometheus-client as the engine counts them."""

from __future__ import annotations

import pytest

from playground.metrics.workspace_metrics import WorkspaceMetrics
from tests.playground.metrics.scrape import TOKEN, samples, value

pytestmark = pytest.mark.django_db


def test_repeated_observations_are_exported_as_that_many(client):
    metrics = WorkspaceMetrics(987654)
    metrics.observe("scheduler_preemption_victims", 3, 4)
    metrics.observe("scheduler_preemption_victims", 100)
    scraped = samples(client.get("/metrics", HTTP_AUTHORIZATION=f"Bearer {TOKEN}").content.decode())
    name = "scheduler_preemption_victims"
    assert value(scraped, f"{name}_count", workspace="987654") == 5
    assert value(scraped, f"{name}_sum", workspace="987654") == 112
    assert value(scraped, f"{name}_bucket", workspace="987654", le="4.0") == 4
    assert value(scraped, f"{name}_bucket", workspace="987654", le="2.0") == 0
    assert value(scraped, f"{name}_bucket", workspace="987654", le="64.0") == 4
    assert metrics.histogram(name).count == 5  # the engine's own numbers too
