"""sort_slice behaves as Go's sort.Slice: a correct sort, and Go's exact moves where it matters."""

from __future__ import annotations

import random

import pytest

from framework.preemption.go_sort import sort_slice


@pytest.mark.parametrize(
    "size",
    [0, 1, 2, 5, 12, 13, 20, 49, 50, 51, 100, 257, 1000],
    ids=lambda n: f"{n} elements",
)
@pytest.mark.parametrize(
    "shape",
    ["random", "sorted", "reversed", "few distinct values", "all equal", "organ pipe"],
)
def test_it_sorts_whatever_the_shape_and_size(size: int, shape: str) -> None:
    rng = random.Random(size)
    values = {
        "random": [rng.randrange(10_000) for _ in range(size)],
        "sorted": list(range(size)),
        "reversed": list(range(size, 0, -1)),
        "few distinct values": [rng.randrange(3) for _ in range(size)],
        "all equal": [7] * size,
        "organ pipe": [min(i, size - i) for i in range(size)],
    }[shape]
    items = list(values)

    sort_slice(items, lambda a, b: a < b)

    assert items == sorted(values)


def test_it_sorts_by_the_given_less_not_by_natural_order() -> None:
    items = ["bb", "a", "dddd", "ccc"]

    sort_slice(items, lambda a, b: len(a) > len(b))

    assert items == ["dddd", "ccc", "bb", "a"]


@pytest.mark.parametrize("size", [2, 3, 7, 12], ids=lambda n: f"{n} elements")
def test_up_to_twelve_elements_a_less_that_always_holds_reverses_them(size: int) -> None:
    # Go's insertion sort moves each element in front of every earlier one it is "less" than.
    items = list(range(size))

    sort_slice(items, lambda a, b: True)

    assert items == list(range(size - 1, -1, -1))


def test_up_to_twelve_elements_equal_keys_keep_their_order() -> None:
    items = [(1, "a"), (0, "b"), (1, "c"), (0, "d")]

    sort_slice(items, lambda x, y: x[0] < y[0])

    assert items == [(0, "b"), (0, "d"), (1, "a"), (1, "c")]


def test_more_than_twelve_equal_keys_are_not_guaranteed_to_keep_their_order() -> None:
    original = [(i % 2, i) for i in range(40)]
    items = list(original)

    sort_slice(items, lambda x, y: x[0] < y[0])

    assert [key for key, _ in items] == [0] * 20 + [1] * 20
    assert items != sorted(original, key=lambda item: item[0])
