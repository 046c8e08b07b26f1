"""The Parallelizer plugins and the runtime use to fan work out over nodes.

CPython runs one bytecode at a time, so threads would only add overhead for this CPU-bound
work: pieces run in order in the calling thread. The configured parallelism is kept (plugins
such as preemption read it) and the stop-at-first-result contract matches upstream's
``Until`` + result channel, which is what makes the sequential form equivalent.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

DEFAULT_PARALLELISM = 16


class Parallelizer:
    __slots__ = ("parallelism",)

    def __init__(self, parallelism: int = DEFAULT_PARALLELISM) -> None:
        self.parallelism = parallelism

    def until(self, pieces: int, do_work_piece: Callable[[int], Any], operation: str = "") -> Any:
        """Runs pieces 0..n-1; returns the first non-None result and stops there, else None."""
        for index in range(pieces):
            result = do_work_piece(index)
            if result is not None:
                return result
        return None
