"""Selecting the host: the highest total score, ties broken exactly as upstream's heap does.

v1.36 pops the best node from a binary heap (Go's container/heap) over the scored nodes in
evaluation order, comparing totals and then a randomizer that only extender scoring sets. So
without extenders, which of several equally scored nodes wins depends on the heap's shape:
this module reproduces Go's Init / Pop sift operations so the same node wins.
"""

from __future__ import annotations

from framework.interface.types import NodePluginScores


def _less(a: NodePluginScores, b: NodePluginScores) -> bool:
    return a.total_score > b.total_score or (
        a.total_score == b.total_score and a.randomizer > b.randomizer
    )


class SortedNodeScores:
    """Scored nodes, popped best first (upstream sortedNodeScores over a nodeScoreHeap)."""

    def __init__(self, scores: list[NodePluginScores]) -> None:
        self._heap = list(scores)
        n = len(self._heap)
        for i in range(n // 2 - 1, -1, -1):
            self._down(i, n)

    def __len__(self) -> int:
        return len(self._heap)

    def pop(self) -> str:
        """The name of the best remaining node."""
        return self.pop_score().name

    def pop_score(self) -> NodePluginScores:
        heap = self._heap
        n = len(heap) - 1
        heap[0], heap[n] = heap[n], heap[0]
        self._down(0, n)
        return heap.pop()

    def _down(self, i0: int, n: int) -> None:
        heap = self._heap
        i = i0
        while True:
            left = 2 * i + 1
            if left >= n or left < 0:
                break
            child = left
            right = left + 1
            if right < n and _less(heap[right], heap[left]):
                child = right
            if not _less(heap[child], heap[i]):
                break
            heap[i], heap[child] = heap[child], heap[i]
            i = child
