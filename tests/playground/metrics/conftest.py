"""Every /metrics test scrapes with a known token."""

from __future__ import annotations

import pytest

from tests.playground.metrics.scrape import TOKEN


@pytest.fixture(autouse=True)
def metrics_token(settings):
    settings.METRICS_TOKEN = TOKEN
