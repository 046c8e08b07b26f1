"""Which page a websocket feeds, read from the query string it was opened with."""

import pytest

from playground.front.live import LiveView


@pytest.mark.parametrize(
    ("query", "view"),
    [
        (b"view=pods&page=3", LiveView("pods", "3")),
        (b"view=queue", LiveView("queue", "1")),
        (b"", LiveView("", "1")),
        (b"view=admin&page=-1", LiveView("", "1")),
        ("view=nodes&page=2", LiveView("nodes", "2")),
    ],
    ids=[
        "a page of pods",
        "the queue board",
        "nothing named",
        "unknown views and bad pages are ignored",
        "text as well as bytes",
    ],
)
def test_the_view_comes_from_the_query_string(query, view):
    assert LiveView.from_query(query) == view
