"""Go's ``sort.Slice``: pattern-defeating quicksort, reproduced step by step.

Preemption orders victims with ``sort.Slice`` and a ``less`` that reads the clock for pods
without a start time, so two such pods each look older than the other. With a comparator that
is not a strict weak order the result depends on the exact sequence of comparisons and swaps;
only the same algorithm gives the same victims. Python's ``sorted`` is stable and would not.
For up to 12 elements Go runs an insertion sort, which is what most nodes see.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TypeVar

T = TypeVar("T")

_MAX_INSERTION = 12
_SHORTEST_NINTHER = 50
_MAX_SWAPS = 4 * 3
_MAX_STEPS = 5
_SHORTEST_SHIFTING = 50
_UINT64 = (1 << 64) - 1

_UNKNOWN_HINT, _INCREASING_HINT, _DECREASING_HINT = 0, 1, 2


def sort_slice(items: list[T], less: Callable[[T, T], bool]) -> None:
    """Sorts ``items`` in place exactly as Go's ``sort.Slice(items, less)`` does."""
    length = len(items)
    _Sorter(items, less).pdqsort(0, length, length.bit_length())


class _Sorter:
    __slots__ = ("items", "less_items")

    def __init__(self, items: list, less_items: Callable) -> None:
        self.items = items
        self.less_items = less_items

    def less(self, i: int, j: int) -> bool:
        return self.less_items(self.items[i], self.items[j])

    def swap(self, i: int, j: int) -> None:
        items = self.items
        items[i], items[j] = items[j], items[i]

    # -- the main loop ------------------------------------------------------------------------

    def pdqsort(self, a: int, b: int, limit: int) -> None:
        was_balanced = True
        was_partitioned = True
        while True:
            length = b - a
            if length <= _MAX_INSERTION:
                self.insertion_sort(a, b)
                return
            if limit == 0:
                self.heap_sort(a, b)
                return
            if not was_balanced:
                self.break_patterns(a, b)
                limit -= 1
            pivot, hint = self.choose_pivot(a, b)
            if hint == _DECREASING_HINT:
                self.reverse_range(a, b)
                pivot = (b - 1) - (pivot - a)
                hint = _INCREASING_HINT
            if (
                was_balanced
                and was_partitioned
                and hint == _INCREASING_HINT
                and self.partial_insertion_sort(a, b)
            ):
                return
            if a > 0 and not self.less(a - 1, pivot):
                a = self.partition_equal(a, b, pivot)
                continue
            mid, was_partitioned = self.partition(a, b, pivot)
            left, right = mid - a, b - mid
            threshold = length // 8
            if left < right:
                was_balanced = left >= threshold
                self.pdqsort(a, mid, limit)
                a = mid + 1
            else:
                was_balanced = right >= threshold
                self.pdqsort(mid + 1, b, limit)
                b = mid

    # -- small ranges ----------------------------------------------------------------------------

    def insertion_sort(self, a: int, b: int) -> None:
        # less and swap inlined: most nodes have few victims, so this is all the sort they see.
        items, less = self.items, self.less_items
        for i in range(a + 1, b):
            j = i
            while j > a and less(items[j], items[j - 1]):
                items[j], items[j - 1] = items[j - 1], items[j]
                j -= 1

    def partial_insertion_sort(self, a: int, b: int) -> bool:
        """Fixes a few out-of-order neighbours; True when the range ends up sorted."""
        i = a + 1
        for _ in range(_MAX_STEPS):
            while i < b and not self.less(i, i - 1):
                i += 1
            if i == b:
                return True
            if b - a < _SHORTEST_SHIFTING:
                return False
            self.swap(i, i - 1)
            if i - a >= 2:
                j = i - 1
                while j >= 1 and self.less(j, j - 1):
                    self.swap(j, j - 1)
                    j -= 1
            if b - i >= 2:
                j = i + 1
                while j < b and self.less(j, j - 1):
                    self.swap(j, j - 1)
                    j += 1
        return False

    # -- heap sort fallback ----------------------------------------------------------------------

    def heap_sort(self, a: int, b: int) -> None:
        first, hi = a, b - a
        for i in range((hi - 1) // 2, -1, -1):
            self.sift_down(i, hi, first)
        for i in range(hi - 1, -1, -1):
            self.swap(first, first + i)
            self.sift_down(0, i, first)

    def sift_down(self, lo: int, hi: int, first: int) -> None:
        root = lo
        while True:
            child = 2 * root + 1
            if child >= hi:
                return
            if child + 1 < hi and self.less(first + child, first + child + 1):
                child += 1
            if not self.less(first + root, first + child):
                return
            self.swap(first + root, first + child)
            root = child

    # -- partitioning ----------------------------------------------------------------------------

    def partition(self, a: int, b: int, pivot: int) -> tuple[int, bool]:
        """Moves the pivot to its final place; True when nothing had to move."""
        self.swap(a, pivot)
        i, j = a + 1, b - 1
        while i <= j and self.less(i, a):
            i += 1
        while i <= j and not self.less(j, a):
            j -= 1
        if i > j:
            self.swap(j, a)
            return j, True
        self.swap(i, j)
        i += 1
        j -= 1
        while True:
            while i <= j and self.less(i, a):
                i += 1
            while i <= j and not self.less(j, a):
                j -= 1
            if i > j:
                break
            self.swap(i, j)
            i += 1
            j -= 1
        self.swap(j, a)
        return j, False

    def partition_equal(self, a: int, b: int, pivot: int) -> int:
        """Splits elements equal to the pivot from greater ones; returns where the latter start."""
        self.swap(a, pivot)
        i, j = a + 1, b - 1
        while True:
            while i <= j and not self.less(a, i):
                i += 1
            while i <= j and self.less(a, j):
                j -= 1
            if i > j:
                return i
            self.swap(i, j)
            i += 1
            j -= 1

    def break_patterns(self, a: int, b: int) -> None:
        length = b - a
        if length < 8:
            return
        state = length
        modulus = 1 << length.bit_length()
        middle = a + (length // 4) * 2
        for index in range(middle - 1, middle + 2):
            state = _xorshift(state)
            other = state & (modulus - 1)
            if other >= length:
                other -= length
            self.swap(index, a + other)

    # -- pivot choice ----------------------------------------------------------------------------

    def choose_pivot(self, a: int, b: int) -> tuple[int, int]:
        length = b - a
        quarter = length // 4
        i, j, k = a + quarter, a + quarter * 2, a + quarter * 3
        swaps = [0]
        if length >= 8:
            if length >= _SHORTEST_NINTHER:
                i = self.median(i - 1, i, i + 1, swaps)
                j = self.median(j - 1, j, j + 1, swaps)
                k = self.median(k - 1, k, k + 1, swaps)
            j = self.median(i, j, k, swaps)
        if swaps[0] == 0:
            return j, _INCREASING_HINT
        if swaps[0] == _MAX_SWAPS:
            return j, _DECREASING_HINT
        return j, _UNKNOWN_HINT

    def median(self, a: int, b: int, c: int, swaps: list[int]) -> int:
        a, b = self.order2(a, b, swaps)
        b, c = self.order2(b, c, swaps)
        a, b = self.order2(a, b, swaps)
        return b

    def order2(self, a: int, b: int, swaps: list[int]) -> tuple[int, int]:
        if self.less(b, a):
            swaps[0] += 1
            return b, a
        return a, b

    def reverse_range(self, a: int, b: int) -> None:
        i, j = a, b - 1
        while i < j:
            self.swap(i, j)
            i += 1
            j -= 1


def _xorshift(state: int) -> int:
    state ^= (state << 13) & _UINT64
    state ^= state >> 7
    state ^= (state << 17) & _UINT64
    return state
