"""What can go wrong in a comparison, as exceptions a caller can tell apart."""

from __future__ import annotations


class CompareError(ValueError):
    """A configuration, the objects or a recording cannot be compared.

    ``part`` says which input is at fault ("features", "config", "objects" or "recording") and
    ``variant`` which variant's configuration, so a caller can name the file; the message
    names the field (or the line)."""

    def __init__(self, message: str, part: str = "", variant: str = "") -> None:
        super().__init__(message)
        self.part = part
        self.variant = variant

    def __reduce__(self) -> tuple[type, tuple[str, str, str]]:
        # Raised in a worker process, re-raised in the caller's: keep the attributes.
        return (type(self), (str(self), self.part, self.variant))


class RecordingError(CompareError):
    """A recording that cannot be read; the message names the line."""

    def __init__(self, message: str, part: str = "recording", variant: str = "") -> None:
        super().__init__(message, part, variant)


class Cancelled(Exception):
    """The caller's ``should_stop`` asked a variant's run to stop."""
