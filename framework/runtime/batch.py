"""Opportunistic batching: reuse the previous pod's ranking for an identical pod (KEP-5598).

Upstream ``framework/runtime/batch.go``. After a full cycle the scheduler stores the pod's
signature and its scored nodes, best first, less the chosen one. When the next cycle's pod has
the same signature and the node chosen last time no longer fits it (so the two pods go one per
node, and the ranking of the other nodes cannot have changed), the next best stored node is
offered as a hint: the scheduler filters only that node and, if it passes, places the pod there
without scoring. Anything else (another pod in between, a failure, another signature, an old
ranking, a node that still fits) means a full cycle, whose results replace the stored ones.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from time import perf_counter
from typing import TYPE_CHECKING, Protocol

from framework.metrics import (
    BATCH_ATTEMPT_HINT_NOT_USED,
    BATCH_ATTEMPT_HINT_USED,
    BATCH_ATTEMPT_NO_HINT,
    BATCH_ATTEMPTS_TOTAL,
    BATCH_CACHE_FLUSHED_TOTAL,
    BATCH_FLUSH_EMPTY_LIST,
    BATCH_FLUSH_EXPIRED,
    BATCH_FLUSH_NODE_MISSING,
    BATCH_FLUSH_NODE_NOT_FULL,
    BATCH_FLUSH_POD_FAILED,
    BATCH_FLUSH_POD_INCOMPATIBLE,
    BATCH_FLUSH_POD_NOT_BATCHABLE,
    BATCH_FLUSH_POD_SKIPPED,
    GET_NODE_HINT_DURATION_SECONDS,
    STORE_SCHEDULE_RESULTS_DURATION_SECONDS,
    Metrics,
)

if TYPE_CHECKING:
    from framework.api.pod import Pod
    from framework.interface.cycle_state import CycleState
    from framework.interface.handle import SharedLister
    from framework.interface.node_info import NodeInfo
    from framework.interface.status import Status
    from framework.util.clock import Clock

logger = logging.getLogger(__name__)

MAX_BATCH_AGE = 0.5
"""Seconds a stored ranking stays usable: long runs of identical pods, or a long wait between
two of them, start again from a full cycle."""


class SortedScoredNodes(Protocol):
    """Scored nodes, popped best first (the scheduler's SortedNodeScores)."""

    def pop(self) -> str: ...

    def __len__(self) -> int: ...


class BatchHandle(Protocol):
    """What the batch needs of its Framework."""

    clock: Clock
    metrics: Metrics

    def profile_name(self) -> str: ...

    def snapshot_shared_lister(self) -> SharedLister | None: ...

    def run_filter_plugins(
        self, state: CycleState, pod: Pod, node_info: NodeInfo
    ) -> Status | None: ...


@dataclass(slots=True)
class BatchState:
    """The stored ranking: whose signature it is for, the nodes left, and when it was made."""

    signature: bytes
    sorted_nodes: SortedScoredNodes
    creation_time: float


@dataclass(slots=True)
class SchedulingCycle:
    """The last cycle that stored results: its number, the node it chose, and that it did."""

    cycle_count: int = 0
    chosen_node: str = ""
    succeeded: bool = False


class OpportunisticBatch:
    """One profile's batch cache (upstream OpportunisticBatch)."""

    def __init__(self, handle: BatchHandle) -> None:
        self.handle = handle
        self.state: BatchState | None = None
        self.last_cycle = SchedulingCycle()
        self.batched_pods = 0
        """Pods placed on their hint (upstream counts them for tests)."""

    def get_node_hint(
        self, pod: Pod, signature: bytes | None, state: CycleState, cycle_count: int
    ) -> str:
        """The next best node of the stored ranking if it applies to this pod, else ""."""
        started = perf_counter()
        hint = self._node_hint(pod, signature, state, cycle_count)
        self.handle.metrics.observe(
            GET_NODE_HINT_DURATION_SECONDS,
            perf_counter() - started,
            hinted="hint" if hint else "no_hint",
            profile=self.handle.profile_name(),
        )
        return hint

    def _node_hint(
        self, pod: Pod, signature: bytes | None, state: CycleState, cycle_count: int
    ) -> str:
        if not self._state_compatible(pod, signature, cycle_count, state):
            self._count_attempt(BATCH_ATTEMPT_NO_HINT)
            return ""
        assert self.state is not None
        hint = self.state.sorted_nodes.pop()
        logger.debug(
            "OpportunisticBatch provided node hint %s for pod %s (cycle %d, %d nodes left)",
            hint,
            pod.key,
            cycle_count,
            len(self.state.sorted_nodes),
        )
        return hint

    def store_schedule_results(
        self,
        signature: bytes | None,
        hinted_node: str,
        chosen_node: str,
        other_nodes: SortedScoredNodes | None,
        cycle_count: int,
    ) -> None:
        """Remembers the cycle, and stores its ranking unless the pod went to its hint."""
        started = perf_counter()
        self._store(signature, hinted_node, chosen_node, other_nodes, cycle_count)
        self.handle.metrics.observe(
            STORE_SCHEDULE_RESULTS_DURATION_SECONDS,
            perf_counter() - started,
            profile=self.handle.profile_name(),
        )

    def _store(
        self,
        signature: bytes | None,
        hinted_node: str,
        chosen_node: str,
        other_nodes: SortedScoredNodes | None,
        cycle_count: int,
    ) -> None:
        self.last_cycle = SchedulingCycle(cycle_count, chosen_node, succeeded=True)
        if hinted_node == chosen_node:
            # The rest of the stored ranking still holds for the next identical pod.
            self._count_attempt(BATCH_ATTEMPT_HINT_USED)
            self.batched_pods += 1
            return
        if hinted_node:
            self._count_attempt(BATCH_ATTEMPT_HINT_NOT_USED)
        if signature is not None and other_nodes is not None and len(other_nodes) > 0:
            self.state = BatchState(signature, other_nodes, self.handle.clock.now())
            return
        reason = BATCH_FLUSH_POD_NOT_BATCHABLE
        if other_nodes is None or len(other_nodes) == 0:
            reason = BATCH_FLUSH_EMPTY_LIST
        self._log_unusable_state(cycle_count, reason)
        self.state = None

    def _state_compatible(
        self, pod: Pod, signature: bytes | None, cycle_count: int, state: CycleState
    ) -> bool:
        """Whether the stored ranking applies to this pod; throws it away (counted) if not."""
        if self._state_empty():
            return False
        assert self.state is not None
        if cycle_count != self.last_cycle.cycle_count + 1:
            # A pod of another profile (or one that failed) had a cycle in between.
            return self._log_unusable_state(cycle_count, BATCH_FLUSH_POD_SKIPPED)
        if not self.last_cycle.succeeded:
            return self._log_unusable_state(cycle_count, BATCH_FLUSH_POD_FAILED)
        if signature is None or signature != self.state.signature:
            return self._log_unusable_state(cycle_count, BATCH_FLUSH_POD_INCOMPATIBLE)
        if self.handle.clock.now() > self.state.creation_time + MAX_BATCH_AGE:
            return self._log_unusable_state(cycle_count, BATCH_FLUSH_EXPIRED)
        last_chosen = self._last_chosen_node()
        if last_chosen is None:
            return self._log_unusable_state(cycle_count, BATCH_FLUSH_NODE_MISSING)
        # Only if this pod no longer fits where the last one went is the next best stored node
        # this pod's best too; if it still fits there, that node's new score is unknown.
        status = self.handle.run_filter_plugins(state, pod, last_chosen)
        if status is None or not status.is_rejected():
            return self._log_unusable_state(cycle_count, BATCH_FLUSH_NODE_NOT_FULL)
        return True

    def _last_chosen_node(self) -> NodeInfo | None:
        lister = self.handle.snapshot_shared_lister()
        if lister is None:
            return None
        try:
            return lister.node_infos().get(self.last_cycle.chosen_node)
        except KeyError:
            return None

    def _state_empty(self) -> bool:
        return self.state is None or len(self.state.sorted_nodes) == 0

    def _log_unusable_state(self, cycle_count: int, reason: str) -> bool:
        """Counts a flush of the stored ranking for ``reason``; False, for the check above.

        As upstream, a ranking found unusable is only counted here; it stays until the cycle
        stores its own results (or none), and no later pod can pass the checks for it.
        """
        self.handle.metrics.inc(
            BATCH_CACHE_FLUSHED_TOTAL, profile=self.handle.profile_name(), reason=reason
        )
        logger.debug("OpportunisticBatch found unusable state (cycle %d): %s", cycle_count, reason)
        return False

    def _count_attempt(self, result: str) -> None:
        self.handle.metrics.inc(
            BATCH_ATTEMPTS_TOTAL, profile=self.handle.profile_name(), result=result
        )
