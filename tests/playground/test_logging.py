"""The playground's log: every record written once, with DEBUG on (``scripts/run``) or off."""

from __future__ import annotations

import logging

import pytest

RECORDS = [
    ("django.channels.server", logging.INFO),  # runserver's line per request
    ("django.request", logging.WARNING),  # "Not Found: ..."
    ("playground.scheduling.service", logging.WARNING),
]


def writers(name: str, level: int) -> list[logging.Handler]:
    """The configured console handlers that write a record of ``name`` at ``level``.

    Handlers pytest adds to capture logs are not console handlers of that exact class.
    """
    logger = logging.getLogger(name)
    if not logger.isEnabledFor(level):
        return []
    record = logger.makeRecord(name, level, __file__, 0, "a message", (), None)
    found: list[logging.Handler] = []
    current: logging.Logger | None = logger
    while current is not None:
        found += [
            handler
            for handler in current.handlers
            if type(handler) is logging.StreamHandler
            and level >= handler.level
            and handler.filter(record)
        ]
        current = current.parent if current.propagate else None
    return found


@pytest.mark.parametrize("debug", [True, False], ids=["debug", "no debug"])
@pytest.mark.parametrize(("name", "level"), RECORDS, ids=[name for name, _ in RECORDS])
def test_a_record_is_written_once(settings, debug, name, level):
    settings.DEBUG = debug
    assert len(writers(name, level)) == 1
