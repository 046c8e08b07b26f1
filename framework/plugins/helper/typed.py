"""Checks the objects a queueing hint receives (upstream ``util.As``).

A hint is handed whatever the event carried; a wrong type is an error, which the queue treats
as Queue, so a mistake never strands a pod.
"""

from __future__ import annotations

from typing import Any, TypeVar

T = TypeVar("T")


def as_typed(kind: type[T], old_obj: Any, new_obj: Any) -> tuple[T | None, T | None]:
    """``(old, new)`` as ``kind``; either may be None (an Add has no old object)."""
    return _checked(kind, old_obj), _checked(kind, new_obj)


def _checked(kind: type[T], obj: Any) -> T | None:
    if obj is None or isinstance(obj, kind):
        return obj
    raise TypeError(f"expected {kind.__name__}, but got {type(obj).__name__}")


def go_type_name(args: Any) -> str:
    """How upstream's ``%T`` shows plugin args it did not expect (``<nil>`` for none)."""
    return "<nil>" if args is None else type(args).__name__
