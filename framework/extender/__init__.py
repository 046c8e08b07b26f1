"""Scheduler extenders: external HTTP services consulted at Filter, Score, Preempt and Bind.

``build_extenders(cfg)`` turns a configuration's ``extenders`` into ``HTTPExtender``s, which
``Scheduler.from_configuration`` does by itself. See ``docs/extenders.md``.
"""

from framework.extender.build import BuildExtendersError, build_extenders
from framework.extender.http_extender import (
    DEFAULT_EXTENDER_TIMEOUT,
    ExtenderError,
    HTTPExtender,
)
from framework.extender.tls import ExtenderTLSError

__all__ = [
    "DEFAULT_EXTENDER_TIMEOUT",
    "BuildExtendersError",
    "ExtenderError",
    "ExtenderTLSError",
    "HTTPExtender",
    "build_extenders",
]
