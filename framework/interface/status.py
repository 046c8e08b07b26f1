"""Status codes and the Status a plugin returns.

A plugin returns ``None`` for success, as upstream returns a nil ``*Status``; the helpers here
treat ``None`` and a Success status alike so callers never test for both.
"""

from __future__ import annotations

from enum import IntEnum


class Code(IntEnum):
    """What a plugin decided; the values and their order are upstream's."""

    SUCCESS = 0
    ERROR = 1
    UNSCHEDULABLE = 2
    UNSCHEDULABLE_AND_UNRESOLVABLE = 3
    WAIT = 4
    SKIP = 5
    PENDING = 6

    def __str__(self) -> str:
        return _CODE_NAMES[self]


_CODE_NAMES = {
    Code.SUCCESS: "Success",
    Code.ERROR: "Error",
    Code.UNSCHEDULABLE: "Unschedulable",
    Code.UNSCHEDULABLE_AND_UNRESOLVABLE: "UnschedulableAndUnresolvable",
    Code.WAIT: "Wait",
    Code.SKIP: "Skip",
    Code.PENDING: "Pending",
}

_REJECTED = frozenset({Code.UNSCHEDULABLE, Code.UNSCHEDULABLE_AND_UNRESOLVABLE, Code.PENDING})


class Status:
    """The result of running a plugin: code, reasons, an optional error and the failing plugin."""

    __slots__ = ("code", "err", "plugin", "reasons")

    def __init__(
        self, code: Code = Code.SUCCESS, *reasons: str, err: BaseException | None = None
    ) -> None:
        self.code = code
        self.reasons: list[str] = list(reasons)
        self.err = err
        self.plugin = ""

    @classmethod
    def as_status(cls, err: BaseException | None) -> Status | None:
        """Wraps an error in an Error status (upstream AsStatus)."""
        if err is None:
            return None
        return cls(Code.ERROR, err=err)

    @classmethod
    def error(cls, message: str) -> Status:
        """An Error status whose message is ``message``, as ``AsStatus(errors.New(msg))``."""
        return cls(Code.ERROR, err=StatusError(message))

    def with_plugin(self, plugin: str) -> Status:
        self.plugin = plugin
        return self

    def with_error(self, err: BaseException) -> Status:
        self.err = err
        return self

    def append_reason(self, reason: str) -> None:
        self.reasons.append(reason)

    def all_reasons(self) -> list[str]:
        """Reasons with the error's text first, as upstream's Reasons()."""
        if self.err is not None:
            return [str(self.err), *self.reasons]
        return self.reasons

    def message(self) -> str:
        return ", ".join(self.all_reasons())

    def is_success(self) -> bool:
        return self.code == Code.SUCCESS

    def is_wait(self) -> bool:
        return self.code == Code.WAIT

    def is_skip(self) -> bool:
        return self.code == Code.SKIP

    def is_error(self) -> bool:
        return self.code == Code.ERROR

    def is_rejected(self) -> bool:
        """Unschedulable, UnschedulableAndUnresolvable or Pending."""
        return self.code in _REJECTED

    def as_error(self) -> BaseException | None:
        """None for success, wait and skip; otherwise an exception carrying the message."""
        if self.code in (Code.SUCCESS, Code.WAIT, Code.SKIP):
            return None
        if self.err is not None:
            return self.err
        return StatusError(self.message())

    def clone(self) -> Status:
        copy = Status(self.code, *self.reasons, err=self.err)
        copy.plugin = self.plugin
        return copy

    def __eq__(self, other: object) -> bool:
        if other is None:
            return self.is_success()
        if not isinstance(other, Status):
            return NotImplemented
        return (
            self.code == other.code
            and self.all_reasons() == other.all_reasons()
            and self.plugin == other.plugin
        )

    def __hash__(self) -> int:
        return hash((self.code, tuple(self.all_reasons()), self.plugin))

    def __str__(self) -> str:
        return self.message()

    def __repr__(self) -> str:
        plugin = f", plugin={self.plugin!r}" if self.plugin else ""
        return f"Status({self.code}, {self.all_reasons()!r}{plugin})"


class StatusError(Exception):
    """An error built from a message, compared by its text (like Go's errors.New values)."""

    def __eq__(self, other: object) -> bool:
        return isinstance(other, StatusError) and str(self) == str(other)

    def __hash__(self) -> int:
        return hash(str(self))


def code_of(status: Status | None) -> Code:
    """The code of a possibly-None status (None is Success)."""
    return Code.SUCCESS if status is None else status.code


def is_success(status: Status | None) -> bool:
    return status is None or status.code == Code.SUCCESS


def is_skip(status: Status | None) -> bool:
    return status is not None and status.code == Code.SKIP


def is_rejected(status: Status | None) -> bool:
    return status is not None and status.code in _REJECTED


def wrap_error(status: Status | None, prefix: str) -> Status:
    """An Error status reading ``prefix: <original message>`` (upstream's ``fmt.Errorf("%w")``)."""
    err = status.as_error() if status is not None else None
    # Go prints a nil error wrapped with %w as "%!w(<nil>)" (e.g. a Filter returning Wait).
    text = "%!w(<nil>)" if err is None else str(err)
    return Status(Code.ERROR, err=StatusError(f"{prefix}: {text}"))
