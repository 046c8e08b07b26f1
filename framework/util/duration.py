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
_PART = re.compile(r"([0-9.]*)([^0-9.]*)")


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
    quoted = '"' + text + '"'
    body = text[1:] if text[:1] in ("+", "-") else text
    sign = -1 if text[:1] == "-" else 1
    if body == "0":
        return timedelta(0)
    if not body:
        raise ValueError(f"time: invalid duration {quoted}")
    nanos = 0.0
    for number, unit in _split(body, quoted):
        if unit not in _UNIT_NANOS:
            raise ValueError(f'time: unknown unit "{unit}" in duration {quoted}')
        nanos += float(number) * _UNIT_NANOS[unit]
    return timedelta(microseconds=sign * nanos / 1000)


def _split(body: str, quoted: str) -> list[tuple[str, str]]:
    """``"1h30.5m"`` -> ``[("1", "h"), ("30.5", "m")]``, with Go's errors for malformed text."""
    parts = []
    for match in _PART.finditer(body):
        number, unit = match.group(1), match.group(2)
        if not number and not unit:
            continue
        if number in (".", "") or not any(ch.isdigit() for ch in number):
            raise ValueError(f"time: invalid duration {quoted}")
        if not unit:
            raise ValueError(f"time: missing unit in duration {quoted}")
        parts.append((number, unit))
    if "".join(n + u for n, u in parts) != body:
        raise ValueError(f"time: invalid duration {quoted}")
    return parts
