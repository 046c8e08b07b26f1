"""Go's time.Duration text (``10s``, ``1m30s``, ``500ms``), as messages and YAML print it."""

from __future__ import annotations

import re
from datetime import timedelta

_UNIT_NANOS = {
    "ns": 1,
    "us": 1_000,
    "µs": 1_000,
    "μs": 1_000,
    "ms": 1_000_000,
    "s": 1_000_000_000,
    "m": 60_000_000_000,
    "h": 3_600_000_000_000,
}
_PART = re.compile(r"(\d+(?:\.\d*)?|\.\d+)(ns|us|µs|μs|ms|s|m|h)")


def format_duration(value: float | timedelta) -> str:
    """Formats seconds (or a timedelta) exactly as Go's Duration.String()."""
    if isinstance(value, timedelta):
        nanos = (value.days * 86_400 + value.seconds) * 1_000_000_000 + value.microseconds * 1_000
    else:
        nanos = round(value * 1_000_000_000)
    if nanos == 0:
        return "0s"
    sign = "-" if nanos < 0 else ""
    nanos = abs(nanos)
    if nanos < 1_000_000_000:
        for unit, size in (("ms", 1_000_000), ("µs", 1_000), ("ns", 1)):
            if nanos >= size:
                return sign + _decimal(nanos, size) + unit
    hours, rest = divmod(nanos, 3_600_000_000_000)
    minutes, rest = divmod(rest, 60_000_000_000)
    seconds = _decimal(rest, 1_000_000_000) + "s"
    if hours:
        return f"{sign}{hours}h{minutes}m{seconds}"
    if minutes:
        return f"{sign}{minutes}m{seconds}"
    return sign + seconds


def _decimal(nanos: int, unit: int) -> str:
    whole, fraction = divmod(nanos, unit)
    if not fraction:
        return str(whole)
    digits = len(str(unit)) - 1
    return f"{whole}." + f"{fraction:0{digits}d}".rstrip("0")


def parse_duration(text: str) -> timedelta:
    """Parses Go duration text; raises ValueError with Go's wording for bad input."""
    original = text
    sign = 1
    if text[:1] in "+-":
        sign = -1 if text[0] == "-" else 1
        text = text[1:]
    if text == "0":
        return timedelta(0)
    if not text:
        raise ValueError(f'time: invalid duration "{original}"')
    position, nanos = 0, 0.0
    for match in _PART.finditer(text):
        if match.start() != position:
            raise ValueError(f'time: invalid duration "{original}"')
        nanos += float(match.group(1)) * _UNIT_NANOS[match.group(2)]
        position = match.end()
    if position != len(text):
        if re.fullmatch(r"[\d.]+", text[position:]):
            raise ValueError(f'time: missing unit in duration "{original}"')
        raise ValueError(f'time: invalid duration "{original}"')
    return timedelta(microseconds=sign * nanos / 1000)
