"""Fixtures: the example extender server running on 127.0.0.1 for the duration of a test."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from examples.extender.server import ExampleExtender, ExtenderServer
from tests.framework.extender.servers import serving


@pytest.fixture
def example_server() -> Iterator[ExtenderServer]:
    """The example extender on an ephemeral port; ``.extender`` holds its state."""
    with serving(ExtenderServer("127.0.0.1", 0, ExampleExtender())) as server:
        yield server
