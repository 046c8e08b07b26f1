"""CycleState: read / write / clone and the skip sets."""

import pytest

from framework.interface.cycle_state import CycleState, NotFoundError


class Counter:
    def __init__(self, value: int) -> None:
        self.value = value

    def clone(self) -> "Counter":
        return Counter(self.value)


def test_reading_a_missing_key_raises_not_found():
    with pytest.raises(NotFoundError) as error:
        CycleState().read("missing")
    assert str(error.value) == "not found"


def test_written_values_are_read_back_and_deleted():
    state = CycleState()
    state.write("k", Counter(1))
    assert state.read("k").value == 1
    state.delete("k")
    assert "k" not in state


def test_clone_clones_values_and_keeps_skip_sets():
    state = CycleState()
    state.write("k", Counter(1))
    state.skip_filter_plugins = {"A"}
    state.skip_score_plugins = {"B"}
    copy = state.clone()
    copy.read("k").value = 2
    assert state.read("k").value == 1
    assert copy.skip_filter_plugins == {"A"}
    assert copy.skip_score_plugins == {"B"}
