"""A keyed binary heap: items ordered by a less function, found, replaced and removed by key.

Python's ``heapq`` cannot reorder or remove an item in the middle, which the scheduling
queue does all the time (a pod is updated, deleted or activated while it waits), so this
heap keeps every item's position beside it. It takes no lock; the queue serialises access.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Generic, TypeVar

T = TypeVar("T")

KeyFunc = Callable[[T], str]
LessFunc = Callable[[T, T], bool]


class Heap(Generic[T]):
    """Items with unique keys; the head is the item no other item is less than."""

    __slots__ = ("_index", "_items", "_key_func", "_keys", "_less")

    def __init__(self, key_func: KeyFunc[T], less_func: LessFunc[T]) -> None:
        self._key_func = key_func
        self._less = less_func
        self._items: list[T] = []
        self._keys: list[str] = []
        self._index: dict[str, int] = {}

    def add_or_update(self, item: T) -> None:
        """Adds the item, or replaces the item with the same key and restores the order."""
        key = self._key_func(item)
        position = self._index.get(key)
        if position is not None:
            self._items[position] = item
            self._fix(position)
            return
        self._items.append(item)
        self._keys.append(key)
        self._index[key] = len(self._items) - 1
        self._sift_up(len(self._items) - 1)

    def delete(self, item: T) -> bool:
        """Removes the item with the same key; False if there was none."""
        position = self._index.get(self._key_func(item))
        if position is None:
            return False
        self._remove_at(position)
        return True

    def peek(self) -> T | None:
        return self._items[0] if self._items else None

    def pop(self) -> T | None:
        """Removes and returns the head; None when empty."""
        if not self._items:
            return None
        return self._remove_at(0)

    def get(self, item: T) -> T | None:
        """The stored item with the same key as ``item``."""
        return self.get_by_key(self._key_func(item))

    def get_by_key(self, key: str) -> T | None:
        position = self._index.get(key)
        return None if position is None else self._items[position]

    def has(self, item: T) -> bool:
        return self._key_func(item) in self._index

    def list(self) -> list[T]:
        """Every item, in no particular order."""
        return list(self._items)

    def ordered(self) -> list[T]:
        """Every item in the order ``pop`` would return them (ties included), heap untouched."""
        copy: Heap[T] = Heap(self._key_func, self._less)
        copy._items = list(self._items)
        copy._keys = list(self._keys)
        copy._index = dict(self._index)
        return [copy._remove_at(0) for _ in range(len(copy._items))]

    def __len__(self) -> int:
        return len(self._items)

    def __iter__(self) -> Iterator[T]:
        return iter(list(self._items))

    # -- heap maintenance ----------------------------------------------------------------------

    def _remove_at(self, position: int) -> T:
        last = len(self._items) - 1
        if position != last:
            self._swap(position, last)
        item = self._items.pop()
        del self._index[self._keys.pop()]
        if position != last:
            self._fix(position)
        return item

    def _fix(self, position: int) -> None:
        if not self._sift_down(position):
            self._sift_up(position)

    def _sift_up(self, position: int) -> None:
        items, less = self._items, self._less
        while position > 0:
            parent = (position - 1) // 2
            if not less(items[position], items[parent]):
                break
            self._swap(position, parent)
            position = parent

    def _sift_down(self, position: int) -> bool:
        """Moves the item towards the leaves; True if it moved."""
        items, less = self._items, self._less
        size = len(items)
        start = position
        while True:
            smallest = left = 2 * position + 1
            if left >= size:
                break
            right = left + 1
            if right < size and less(items[right], items[left]):
                smallest = right
            if not less(items[smallest], items[position]):
                break
            self._swap(position, smallest)
            position = smallest
        return position > start

    def _swap(self, i: int, j: int) -> None:
        items, keys, index = self._items, self._keys, self._index
        items[i], items[j] = items[j], items[i]
        keys[i], keys[j] = keys[j], keys[i]
        index[keys[i]] = i
        index[keys[j]] = j
