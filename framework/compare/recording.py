"""The playground's recording format (``playground/clusters/recording.py`` writes it), read:
a header line ``{"recording": 1, ...}``, the snapshot as ``t == 0`` ADDED lines, then one line
per change, ``{"t": seconds since the start, "type": "ADDED" | "MODIFIED" | "DELETED",
"object": manifest}``. A comparison replays it; so does the playground's replay into a
workspace (``playground/clusters/replay.py``), through this same reader.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from framework.compare.errors import RecordingError

RECORDING_VERSION = 1
CHANGE_TYPES = ("ADDED", "MODIFIED", "DELETED")


@dataclass(frozen=True)
class Change:
    """One line of a recording after the header: a manifest created, updated or deleted ``t``
    seconds after the recording began."""

    t: float
    type: str
    object: dict[str, Any]
    line: int = 0
    """The line of the file it came from (1 is the header; 0: not read from a file)."""


def read_recording(text: str) -> tuple[dict[str, Any], list[Change]]:
    """The header and every change of a recording, in order; RecordingError naming the line
    of the first problem."""
    lines = text.splitlines()
    if not lines or not lines[0].strip():
        raise RecordingError("line 1: the recording is empty (no header)")
    header = _json(lines[0], 1)
    if not isinstance(header, dict) or header.get("recording") != RECORDING_VERSION:
        raise RecordingError('line 1: not a recording header (expected {"recording": 1, ...})')
    changes = [
        _change(line, number)
        for number, line in enumerate(lines[1:], start=2)
        if line.strip()  # a trailing blank line is no change
    ]
    return header, changes


def _json(text: str, number: int) -> Any:
    try:
        return json.loads(text)
    except ValueError as err:
        raise RecordingError(f"line {number}: not a whole JSON line (truncated?): {err}") from None


def _change(text: str, number: int) -> Change:
    line = _json(text, number)
    if not isinstance(line, dict):
        raise RecordingError(f"line {number}: expected an object with t, type and object")
    kind = line.get("type")
    if kind not in CHANGE_TYPES:
        raise RecordingError(f"line {number}: unknown type {kind!r} (ADDED, MODIFIED or DELETED)")
    t = line.get("t")
    if isinstance(t, bool) or not isinstance(t, int | float) or t < 0:
        raise RecordingError(f"line {number}: t must be a number of seconds, not {t!r}")
    obj = line.get("object")
    if not isinstance(obj, dict) or not isinstance(obj.get("metadata"), dict):
        raise RecordingError(f"line {number}: object must be a manifest with metadata")
    return Change(float(t), kind, obj, number)
