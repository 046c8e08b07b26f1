"""Selecting the host: the highest total score, ties broken exactly as upstream's heap does.

v1.36 pops the best node from a binary heap (Go's container/heap) over the scored nodes in
evaluation order, comparing totals and then a randomizer that only extender scoring sets. So
without extenders, which of several equally scored nodes wins depends on the heap's shape:
this module reproduces Go's Init / Pop sift operations so the same node wins.
"""

from __future__ import annotations

from framework.interface.types import NodePluginScores


class SortedNodeScores:
    """Scored nodes, popped best first (upstream sortedNodeScores over a nodeScoreHeap).

    The heap orders ``(total_score, randomizer)`` keys, largest first: the comparison upstream's
    ``Less`` makes, done on tuples because a cycle sifts hundreds of nodes.
    """

    def __init__(self, scores: list[NodePluginScores]) -> None:
        self._heap = list(scores)
        self._keys = [(s.total_score, s.randomizer) for s in self._heap]
        n = len(self._heap)
        for i in range(n // 2 - 1, -1, -1):
            self._down(i, n)

    def __len__(self) -> int:
        return len(self._heap)

    def pop(self) -> str:
        """The name of the best remaining node."""
        return self.pop_score().name

    def pop_score(self) -> NodePluginScores:
        heap, keys = self._heap, self._keys
        n = len(heap) - 1
        heap[0], heap[n] = heap[n], heap[0]
        keys[0], keys[n] = keys[n], keys[0]
        self._down(0, n)
        keys.pop()
        return heap.pop()

    def _down(self, i: int, n: int) -> None:
        heap, keys = self._heap, self._keys
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
