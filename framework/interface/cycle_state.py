"""CycleState: data plugins share within one scheduling cycle of one pod."""

from __future__ import annotations

from typing import Protocol


class StateData(Protocol):
    """A value stored in CycleState; cloned when the state is cloned (e.g. for preemption)."""

    def clone(self) -> StateData: ...


class NotFoundError(KeyError):
    """Raised by CycleState.read for a key nobody wrote (upstream ErrNotFound)."""

    def __str__(self) -> str:
        return "not found"


class CycleState:
    """Per-cycle key/value store plus the skip sets the runtime fills at PreFilter and PreScore."""

    __slots__ = (
        "_storage",
        "parallel_pre_bind_plugins",
        "pod_group_cycle_state",
        "record_plugin_metrics",
        "skip_all_post_filter_plugins",
        "skip_filter_plugins",
        "skip_pre_bind_plugins",
        "skip_score_plugins",
    )

    def __init__(self) -> None:
        self._storage: dict[str, StateData] = {}
        self.record_plugin_metrics = False
        self.skip_filter_plugins: frozenset[str] | set[str] = frozenset()
        self.skip_score_plugins: frozenset[str] | set[str] = frozenset()
        self.skip_pre_bind_plugins: frozenset[str] | set[str] = frozenset()
        self.parallel_pre_bind_plugins: frozenset[str] | set[str] = frozenset()
        self.skip_all_post_filter_plugins = False
        self.pod_group_cycle_state: object | None = None
        """The state of the pod-group cycle this pod is scheduled in; None outside one."""

    def is_pod_group_scheduling_cycle(self) -> bool:
        """Whether the pod is scheduled as part of its group's cycle: plugins then read the
        group's state from the snapshot, where the cycle assumes its members."""
        return self.pod_group_cycle_state is not None

    def set_pod_group_scheduling_cycle(self, pod_group_cycle_state: object | None) -> None:
        self.pod_group_cycle_state = pod_group_cycle_state

    def read(self, key: str) -> StateData:
        try:
            return self._storage[key]
        except KeyError:
            raise NotFoundError(key) from None

    def write(self, key: str, value: StateData) -> None:
        self._storage[key] = value

    def delete(self, key: str) -> None:
        self._storage.pop(key, None)

    def clone(self) -> CycleState:
        """A copy whose values are cloned, so dry runs (preemption) leave this state untouched."""
        # Preemption clones the state per node and per victim tried: skip __init__'s defaults.
        copy = CycleState.__new__(CycleState)
        copy._storage = {key: value.clone() for key, value in self._storage.items()}
        copy.record_plugin_metrics = self.record_plugin_metrics
        copy.skip_filter_plugins = self.skip_filter_plugins
        copy.skip_score_plugins = self.skip_score_plugins
        copy.skip_pre_bind_plugins = self.skip_pre_bind_plugins
        copy.parallel_pre_bind_plugins = self.parallel_pre_bind_plugins
        copy.skip_all_post_filter_plugins = self.skip_all_post_filter_plugins
        copy.pod_group_cycle_state = self.pod_group_cycle_state
        return copy

    def __contains__(self, key: str) -> bool:
        return key in self._storage
