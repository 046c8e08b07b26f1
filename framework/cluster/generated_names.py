"""Names for objects created with ``metadata.generateName``, as the API server makes them.

The API server cuts the prefix to 58 characters and appends five random characters from an
alphabet without vowels. Here the five characters are derived from a seed (a pod's UID and
what is being created for it), so a simulation names its objects the same way every time.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable

MAX_GENERATED_NAME_LENGTH = 58
"""A 63-character name less the five random characters (``names.MaxGeneratedNameLength``)."""

ALPHANUMS = "bcdfghjklmnpqrstvwxz2456789"
"""The characters the API server draws a generateName suffix from (no vowels, no 0, 1, 3)."""

SUFFIX_LEN = 5


def deterministic_suffix(seed: str, attempt: int = 0) -> str:
    """Five characters of the API server's alphabet, derived from ``seed``."""
    digest = hashlib.sha256(f"{seed}#{attempt}".encode()).digest()
    return "".join(ALPHANUMS[b % len(ALPHANUMS)] for b in digest[:SUFFIX_LEN])


def generated_name(generate_name: str, seed: str, taken: Callable[[str], bool]) -> str:
    """The name the API server would give: the prefix, cut, plus a suffix no object has."""
    base = generate_name[:MAX_GENERATED_NAME_LENGTH]
    attempt = 0
    name = base + deterministic_suffix(seed)
    while taken(name):
        attempt += 1
        name = base + deterministic_suffix(seed, attempt)
    return name
