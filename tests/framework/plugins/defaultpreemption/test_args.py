"""Building DefaultPreemption from its args, and how many candidates the args ask for."""

from __future__ import annotations

import random

import pytest

from framework.config.types import DefaultPreemptionArgs, NodeResourcesFitArgs
from framework.plugins.defaultpreemption.default_preemption import DefaultPreemption
from framework.plugins.feature import Features
from tests.framework.preemption.helpers import default_preemption_args, new_framework


def args(percentage: int, absolute: int) -> DefaultPreemptionArgs:
    return DefaultPreemptionArgs(
        min_candidate_nodes_percentage=percentage, min_candidate_nodes_absolute=absolute
    )


@pytest.mark.parametrize(
    ("given", "message"),
    [
        (None, "got args of type <nil>, want *DefaultPreemptionArgs"),
        (
            NodeResourcesFitArgs(),
            "got args of type NodeResourcesFitArgs, want *DefaultPreemptionArgs",
        ),
        (
            args(101, 1),
            "minCandidateNodesPercentage: Invalid value: 101: not in valid range [0, 100]",
        ),
        (
            args(0, 0),
            "[minCandidateNodesPercentage: Invalid value: 0: cannot be zero at the same time as "
            "minCandidateNodesAbsolute, minCandidateNodesAbsolute: Invalid value: 0: cannot be "
            "zero at the same time as minCandidateNodesPercentage]",
        ),
    ],
    ids=["missing args", "args of another plugin", "a percentage over 100", "both limits zero"],
)
def test_bad_args_are_refused_with_upstreams_message(given: object, message: str) -> None:
    with pytest.raises(ValueError) as raised:
        DefaultPreemption(given, new_framework([], []), Features())

    assert str(raised.value) == message


@pytest.mark.parametrize(
    ("percentage", "absolute", "num_nodes", "expected"),
    [
        (10, 100, 4, 4),
        (10, 100, 5000, 500),
        (10, 100, 500, 100),
        (40, 1, 5, 2),
        (40, 2, 5, 2),
        (0, 3, 10, 3),
        (100, 0, 7, 7),
        (33, 0, 10, 3),
    ],
    ids=[
        "the absolute minimum is capped at the number of nodes",
        "a percentage of a large cluster",
        "the absolute minimum wins over a small percentage",
        "a percentage rounds down",
        "the percentage wins over a smaller absolute minimum",
        "only an absolute minimum",
        "every node",
        "a third of ten nodes is three",
    ],
)
def test_the_number_of_candidates_follows_the_args(
    percentage: int, absolute: int, num_nodes: int, expected: int
) -> None:
    plugin = DefaultPreemption(args(percentage, absolute), new_framework([], []), Features())

    assert plugin.calculate_num_candidates(num_nodes) == expected


def test_the_offset_comes_from_the_injected_generator() -> None:
    fwk = new_framework([], [])
    first = DefaultPreemption(default_preemption_args(), fwk, Features(), rng=random.Random(7))
    second = DefaultPreemption(default_preemption_args(), fwk, Features(), rng=random.Random(7))

    offsets = [first.get_offset_and_num_candidates(50)[0] for _ in range(20)]

    assert offsets == [second.get_offset_and_num_candidates(50)[0] for _ in range(20)]
    assert all(0 <= offset < 50 for offset in offsets)
    assert len(set(offsets)) > 1


def test_without_a_generator_the_handles_seeded_one_is_used() -> None:
    fwk = new_framework([], [])
    fwk.rng = random.Random(3)
    plugin = DefaultPreemption(default_preemption_args(), fwk, Features())

    got = [plugin.get_offset_and_num_candidates(1000)[0] for _ in range(5)]

    expected = random.Random(3)
    assert got == [expected.randrange(1000) for _ in range(5)]


def test_offsets_come_from_the_handles_seeded_generator() -> None:
    def offsets(seed: int) -> list[int]:
        handle = new_framework([], [])
        handle.rng = random.Random(seed)
        plugin = DefaultPreemption(default_preemption_args(), handle, Features())
        return [plugin.get_offset_and_num_candidates(1000)[0] for _ in range(5)]

    assert offsets(7) == offsets(7)
    assert offsets(7) != offsets(8)
