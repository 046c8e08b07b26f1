"""Selecting the host: the highest total score, ties broken exactly as upstream's heap does.

v1.36 pops the best node from a binary heap (Go's container/heap) over the scored nodes in
evaluation order, comparing totals and then a randomizer that only extender scoring sets. So
without extenders, which of several equally scored nodes wins depends on the heap's shape:
this module reproduces Go's Init / Pop sift operations so the same node wins.
"""

from __future__ import annotations

from bisect import bisect_left
from itertools import compress
from operator import attrgetter

from framework.interface.types import NodePluginScores


class SortedNodeScores:
    """Scored nodes, popped best first (upstream sortedNodeScores over a nodeScoreHeap).

    The heap orders ``(total_score, randomizer)`` keys, largest first: the comparison upstream's
    ``Less`` makes, done on tuples because a cycle sifts hundreds of nodes.

    Most cycles pop once, and the first pop needs no heap: after Go's ``Init`` the root is the
    best node that comes first in pre-order (a node before its subtrees, a left subtree before
    the right), since a sift moves a child up only when it is strictly better, and prefers the
    left child unless the right one is strictly better. The heap itself is built only for a
    second pop (``Init``, then the first ``Pop`` again, then this one).
    """

    def __init__(self, scores: list[NodePluginScores]) -> None:
        self._scores = scores
        self._heap: list[NodePluginScores] | None = None
        self._keys: list[tuple[int, int]] = []
        self._popped_first = False

    def __len__(self) -> int:
        if self._heap is None:
            return len(self._scores) - self._popped_first
        return len(self._heap)

    def pop(self) -> str:
        """The name of the best remaining node."""
        return self.pop_score().name

    def pop_score(self) -> NodePluginScores:
        if not self._popped_first:
            self._popped_first = True
            return self._scores[_root_after_init(self._scores)]
        if self._heap is None:
            self._build_heap()
            self._pop()  # the first pop, already answered
        return self._pop()

    def _build_heap(self) -> None:
        self._heap = list(self._scores)
        self._keys = [(s.total_score, s.randomizer) for s in self._heap]
        n = len(self._heap)
        for i in range(n // 2 - 1, -1, -1):
            self._down(i, n)

    def _pop(self) -> NodePluginScores:
        heap, keys = self._heap, self._keys
        assert heap is not None
        n = len(heap) - 1
        heap[0], heap[n] = heap[n], heap[0]
        keys[0], keys[n] = keys[n], keys[0]
        self._down(0, n)
        keys.pop()
        return heap.pop()

    def _down(self, i: int, n: int) -> None:
        heap, keys = self._heap, self._keys
        assert heap is not None
        while True:
            left = 2 * i + 1
            if left >= n or left < 0:
                break
            child = left
            right = left + 1
            if right < n and keys[right] > keys[left]:
                child = right
            if not keys[child] > keys[i]:
                break
            heap[i], heap[child] = heap[child], heap[i]
            keys[i], keys[child] = keys[child], keys[i]
            i = child


def _root_after_init(scores: list[NodePluginScores]) -> int:
    """The index of the node Go's ``heap.Init`` puts at the root: among the best keys, the
    first in pre-order.

    Index ``i`` sits at depth ``d`` (``i + 1`` has ``d + 1`` bits) and its path from the root
    is ``i + 1`` without the leading 1 (0: left, 1: right). Padding paths to the deepest level
    orders nodes as pre-order does, an ancestor (equal padded path, smaller depth) first. On
    each level the first tied index has the smallest path, so one candidate per level is
    enough: cycles often tie hundreds of nodes.
    """
    totals = list(map(_TOTAL_SCORE, scores))
    keys: list[int] | list[tuple[int, int]] = totals
    if any(map(_RANDOMIZER, scores)):
        keys = list(zip(totals, map(_RANDOMIZER, scores), strict=True))
    best = max(keys)
    first = keys.index(best)
    if keys.count(best) == 1:
        return first
    tied = list(compress(range(len(keys)), map(best.__eq__, keys)))
    deepest = len(keys).bit_length() - 1
    candidates = []
    for depth in range(deepest + 1):
        level_start = (1 << depth) - 1
        at = bisect_left(tied, level_start)
        if at == len(tied):
            break
        index = tied[at]
        if index <= 2 * level_start:  # on this level, not below it
            candidates.append((((index + 1) << (deepest - depth)), depth, index))
    return min(candidates)[2]


_TOTAL_SCORE = attrgetter("total_score")
_RANDOMIZER = attrgetter("randomizer")
