"""Semantic versions as Kubernetes' CEL semver library (v1) sees them.

Parsing is blang/semver v4's strict ``Parse`` (its error texts word for word), ordering is
semver 2.0.0 precedence (build metadata ignored), and ``semver(s, true)`` normalizes first
as the library's ``normalizeAndParse`` does. Device attributes of type ``version`` reach
selectors as these values.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import total_ordering

_NUMBERS = "0123456789"
_ALPHANUM = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ-" + _NUMBERS
_MAX_UINT64 = (1 << 64) - 1


class SemverError(ValueError):
    """Not a semantic version; the message is blang/semver's."""


@total_ordering
@dataclass(frozen=True, slots=True)
class Semver:
    """A parsed version. Equal when precedence is equal (``1.0.0+a == 1.0.0+b``)."""

    major: int
    minor: int
    patch: int
    pre: tuple[int | str, ...] = ()
    build: tuple[str, ...] = ()

    @classmethod
    def parse(cls, text: str) -> Semver:
        """blang/semver ``Parse``: ``MAJOR.MINOR.PATCH[-pre][+build]``, nothing relaxed."""
        if not text:
            raise SemverError("Version string empty")
        parts = text.split(".", 2)
        if len(parts) != 3:
            raise SemverError("No Major.Minor.Patch elements found")
        major = _number(parts[0], "Major")
        minor = _number(parts[1], "Minor")
        patch_text, build = parts[2], ()
        if "+" in patch_text:
            patch_text, _, build_text = patch_text.partition("+")
            build = tuple(_build_identifier(b) for b in build_text.split("."))
        pre: tuple[int | str, ...] = ()
        if "-" in patch_text:
            patch_text, _, pre_text = patch_text.partition("-")
            pre = tuple(_pre_release_identifier(p) for p in pre_text.split("."))
        patch = _number(patch_text, "Patch")
        return cls(major, minor, patch, pre, build)

    @classmethod
    def parse_normalized(cls, text: str) -> Semver:
        """``semver(s, true)``: no ``v`` prefix, no leading zeros, ``1`` and ``1.2`` filled up."""
        if text.startswith("v"):
            text = text[1:]
        parts = text.split(".", 2)
        for index, part in enumerate(parts):
            if len(part) > 1:
                part = part.lstrip("0")
                if not part or part[0] not in _NUMBERS:
                    part = "0" + part
                parts[index] = part
        if len(parts) < 3:
            if any(c in parts[-1] for c in "+-"):
                raise SemverError("short version cannot contain PreRelease/Build meta data")
            parts += ["0"] * (3 - len(parts))
        return cls.parse(".".join(parts))

    def compare(self, other: Semver) -> int:
        """-1, 0 or 1 by semver precedence."""
        mine, theirs = (self.major, self.minor, self.patch), (other.major, other.minor, other.patch)
        if mine != theirs:
            return -1 if mine < theirs else 1
        if not self.pre or not other.pre:
            return (not self.pre) - (not other.pre)
        for a, b in zip(self.pre, other.pre, strict=False):
            order = _compare_identifiers(a, b)
            if order:
                return order
        return (len(self.pre) > len(other.pre)) - (len(self.pre) < len(other.pre))

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Semver) and self.compare(other) == 0

    def __lt__(self, other: Semver) -> bool:
        return self.compare(other) < 0

    def __hash__(self) -> int:
        return hash((self.major, self.minor, self.patch, self.pre))

    def __str__(self) -> str:
        text = f"{self.major}.{self.minor}.{self.patch}"
        if self.pre:
            text += "-" + ".".join(str(p) for p in self.pre)
        if self.build:
            text += "+" + ".".join(self.build)
        return text


def _number(text: str, part: str) -> int:
    """One of major, minor, patch (``part`` capitalized, as the messages begin)."""
    if not _contains_only(text, _NUMBERS):
        raise SemverError(f"Invalid character(s) found in {part.lower()} number {_quote(text)}")
    if len(text) > 1 and text[0] == "0":
        raise SemverError(f"{part} number must not contain leading zeroes {_quote(text)}")
    return _uint64(text)


def _pre_release_identifier(text: str) -> int | str:
    if not text:
        raise SemverError("Prerelease is empty")
    if _contains_only(text, _NUMBERS):
        if len(text) > 1 and text[0] == "0":
            raise SemverError(
                f"Numeric PreRelease version must not contain leading zeroes {_quote(text)}"
            )
        return _uint64(text)
    if _contains_only(text, _ALPHANUM):
        return text
    raise SemverError(f"Invalid character(s) found in prerelease {_quote(text)}")


def _build_identifier(text: str) -> str:
    if not text:
        raise SemverError("Build meta data is empty")
    if not _contains_only(text, _ALPHANUM):
        raise SemverError(f"Invalid character(s) found in build meta data {_quote(text)}")
    return text


def _compare_identifiers(a: int | str, b: int | str) -> int:
    """Numeric identifiers sort before alphanumeric ones, each kind in its own order."""
    if isinstance(a, int) != isinstance(b, int):
        return -1 if isinstance(a, int) else 1
    return (a > b) - (a < b)  # type: ignore[operator]


def _uint64(text: str) -> int:
    """Go's ``strconv.ParseUint(s, 10, 64)``: an empty string or an overflow is an error."""
    if not text:
        raise SemverError('strconv.ParseUint: parsing "": invalid syntax')
    value = int(text)
    if value > _MAX_UINT64:
        raise SemverError(f"strconv.ParseUint: parsing {_quote(text)}: value out of range")
    return value


def _contains_only(text: str, allowed: str) -> bool:
    return all(c in allowed for c in text)


def _quote(text: str) -> str:
    """Go's ``%q`` for the printable ASCII these messages quote."""
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"') + '"'
