"""The keyed heap under the active and backoff queues (upstream heap_test.go)."""

from __future__ import annotations

from dataclasses import dataclass

import pytest

from framework.backend.heap import Heap


@dataclass(frozen=True)
class Item:
    name: str
    val: int


def new_heap(*items: tuple[str, int]) -> Heap[Item]:
    heap: Heap[Item] = Heap(lambda item: item.name, lambda a, b: a.val < b.val)
    for name, val in items:
        heap.add_or_update(Item(name, val))
    return heap


def pop_values(heap: Heap[Item], count: int) -> list[int]:
    return [heap.pop().val for _ in range(count)]  # type: ignore[union-attr]


def test_it_pops_in_ascending_order_and_peeks_the_head():
    heap = new_heap()
    assert heap.peek() is None
    for i in range(500, 0, -1):
        heap.add_or_update(Item(f"a{i}", i))
        assert heap.peek() == Item(f"a{i}", i)
    assert pop_values(heap, 500) == list(range(1, 501))
    assert heap.pop() is None


def test_adding_an_existing_key_updates_the_item():
    heap = new_heap(("foo", 10), ("bar", 1), ("baz", 11), ("zab", 30), ("foo", 13))
    assert pop_values(heap, 2) == [1, 11]
    assert heap.delete(Item("baz", 11)) is False
    heap.add_or_update(Item("foo", 14))
    assert pop_values(heap, 2) == [14, 30]


def test_delete_works_by_key_and_keeps_the_order():
    heap = new_heap(("foo", 10), ("bar", 1), ("bal", 31), ("baz", 11))
    assert heap.delete(Item("bar", 200)) is True
    assert pop_values(heap, 1) == [10]
    heap.add_or_update(Item("zab", 30))
    heap.add_or_update(Item("faz", 30))
    size = len(heap)
    assert heap.delete(Item("non-existent", 10)) is False
    assert len(heap) == size
    assert heap.delete(Item("bal", 31)) is True
    assert heap.delete(Item("zab", 30)) is True
    assert pop_values(heap, 2) == [11, 30]
    assert len(heap) == 0


def test_an_update_moves_the_item_up_or_down():
    heap = new_heap(("foo", 10), ("bar", 1), ("bal", 31), ("baz", 11))
    heap.add_or_update(Item("baz", 0))
    assert heap.peek() == Item("baz", 0)
    assert pop_values(heap, 1) == [0]
    heap.add_or_update(Item("bar", 100))
    assert heap.peek() == Item("foo", 10)


@pytest.mark.parametrize(
    ("key", "expected"),
    [("baz", Item("baz", 11)), ("non-existing", None)],
    ids=["an item is found by its key", "an unknown key finds nothing"],
)
def test_get_finds_items_by_key(key, expected):
    heap = new_heap(("foo", 10), ("bar", 1), ("bal", 31), ("baz", 11))
    assert heap.get(Item(key, 0)) == expected
    assert heap.get_by_key(key) == expected
    assert heap.has(Item(key, 0)) is (expected is not None)


def test_list_returns_every_item():
    items = {"foo": 10, "bar": 1, "bal": 30, "baz": 11, "faz": 30}
    heap = new_heap(*items.items())
    assert new_heap().list() == []
    assert sorted(heap.list(), key=lambda item: item.name) == sorted(
        (Item(k, v) for k, v in items.items()), key=lambda item: item.name
    )


def test_ordered_lists_pop_order_without_changing_the_heap():
    heap = new_heap(("foo", 10), ("bar", 1), ("bal", 31), ("baz", 11))
    assert [item.val for item in heap.ordered()] == [1, 10, 11, 31]
    assert len(heap) == 4
    assert pop_values(heap, 4) == [1, 10, 11, 31]
