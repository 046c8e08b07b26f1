"""A small per-process memory of answers that are slow to compute and cheap to key.

Explaining an attempt reads the whole workspace; the answer only changes when what it depends
on does (the attempt, the cluster's latest change, the pod's place in the queue). Pages key
their answers by those and keep the latest few here, shared by the process's threads.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Callable, Hashable
from typing import Any


class RecentAnswers:
    """The ``size`` answers asked for last, by key."""

    def __init__(self, size: int) -> None:
        self._size = size
        self._lock = threading.Lock()
        self._answers: OrderedDict[Hashable, Any] = OrderedDict()

    def get_or_compute(self, key: Hashable, compute: Callable[[], Any]) -> Any:
        """The answer kept for ``key``, else ``compute()``'s (kept unless it raised)."""
        with self._lock:
            if key in self._answers:
                self._answers.move_to_end(key)
                return self._answers[key]
        answer = compute()
        with self._lock:
            self._answers[key] = answer
            self._answers.move_to_end(key)
            while len(self._answers) > self._size:
                self._answers.popitem(last=False)
        return answer

    def clear(self) -> None:
        with self._lock:
            self._answers.clear()
