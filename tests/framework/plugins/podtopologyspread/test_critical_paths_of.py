"""critical_paths_of: the two smallest domains, exactly as updating every domain in turn."""

from __future__ import annotations

import random

import pytest

from framework.plugins.podtopologyspread.filtering import CriticalPaths, critical_paths_of


def updated_in_turn(counts: dict[str, int]) -> CriticalPaths:
    paths = CriticalPaths()
    for value, num in counts.items():
        paths.update(value, num)
    return paths


@pytest.mark.parametrize("seed", range(40))
def test_it_equals_updating_every_domain_in_turn(seed):
    rng = random.Random(seed)
    values = rng.sample(["", "a", "b", "c", "d", "e", "f", "g", "h"], rng.randint(0, 9))
    counts = {value: rng.randint(0, 3) for value in values}

    assert critical_paths_of(counts).paths == updated_in_turn(counts).paths
