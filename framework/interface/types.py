"""Small value types passed between the runtime and plugins."""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from enum import IntEnum
from operator import add
from typing import TYPE_CHECKING, Any, overload

from framework.interface.status import Code, Status

if TYPE_CHECKING:
    from framework.interface.node_info import NodeInfo, PodInfo

MAX_NODE_SCORE = 100
MIN_NODE_SCORE = 0
MAX_TOTAL_SCORE = (1 << 63) - 1

EXTENDER_NAME = "Extender"
"""The pseudo plugin name recorded when an extender rejected nodes."""


@dataclass(slots=True)
class NodeScore:
    """A node's score from one plugin; NormalizeScore rewrites ``score`` in place."""

    name: str
    score: int


@dataclass(slots=True)
class PluginScore:
    """One plugin's (weighted) score for a node."""

    name: str
    score: int


class NodePluginScores:
    """All weighted plugin scores of one node and their total.

    ``randomizer`` breaks ties between equal totals; only extender scoring sets it (as
    upstream). The runtime scores hundreds of nodes per cycle and only the totals are read
    on the hot path, so ``of_weighted`` defers building the PluginScores until ``scores`` is read.
    """

    __slots__ = ("_plugin_names", "_scores", "_weighted", "name", "randomizer", "total_score")

    def __init__(
        self,
        name: str,
        scores: list[PluginScore] | None = None,
        total_score: int = 0,
        randomizer: int = 0,
    ) -> None:
        self.name = name
        self._scores: list[PluginScore] | None = [] if scores is None else scores
        self._plugin_names: Sequence[str] = ()
        self._weighted: Sequence[int] = ()
        self.total_score = total_score
        self.randomizer = randomizer

    @classmethod
    def of_weighted(
        cls, name: str, plugin_names: Sequence[str], weighted: Sequence[int]
    ) -> NodePluginScores:
        """The node's weighted score from each plugin (in ``plugin_names`` order), summed."""
        node_scores = cls(name, None, sum(weighted))
        node_scores._scores = None
        node_scores._plugin_names = plugin_names
        node_scores._weighted = weighted
        return node_scores

    @property
    def scores(self) -> list[PluginScore]:
        if self._scores is None:
            self._scores = [
                PluginScore(plugin, score)
                for plugin, score in zip(self._plugin_names, self._weighted, strict=True)
            ]
        return self._scores

    @scores.setter
    def scores(self, scores: list[PluginScore]) -> None:
        self._scores = scores

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, NodePluginScores):
            return NotImplemented
        return (self.name, self.scores, self.total_score, self.randomizer) == (
            other.name,
            other.scores,
            other.total_score,
            other.randomizer,
        )

    def __repr__(self) -> str:
        return (
            f"NodePluginScores(name={self.name!r}, scores={self.scores!r}, "
            f"total_score={self.total_score!r}, randomizer={self.randomizer!r})"
        )


class ScoredNodes(Sequence[NodePluginScores]):
    """The Score extension point's result: a ``NodePluginScores`` per node, in node order.

    Kept as columns (the nodes' names, each plugin's weighted scores, the totals) and turned
    into ``NodePluginScores`` only for the items someone reads: a cycle scores hundreds of
    nodes, and host selection and the trace need only the names and the totals. Items are
    built once and kept, so a change made to one (extender scores) stays; ``names`` and
    ``totals`` are the runtime's and do not follow such changes: take ``list(scored)`` before
    changing items.
    """

    __slots__ = ("_columns", "_items", "_plugin_names", "names", "totals")

    def __init__(
        self,
        names: list[str],
        plugin_names: Sequence[str],
        weighted_columns: list[list[int]],
        totals: list[int],
    ) -> None:
        self.names = names
        self.totals = totals
        self._plugin_names = plugin_names
        self._columns = weighted_columns
        self._items: list[NodePluginScores | None] = [None] * len(names)

    @classmethod
    def of_weighted_columns(
        cls, names: list[str], plugin_names: Sequence[str], weighted_columns: list[list[int]]
    ) -> ScoredNodes:
        """From one column of weighted scores per plugin (each in node order)."""
        totals = list(weighted_columns[0]) if weighted_columns else [0] * len(names)
        for column in weighted_columns[1:]:
            totals = list(map(add, totals, column))
        return cls(names, plugin_names, weighted_columns, totals)

    def __len__(self) -> int:
        return len(self.names)

    @overload
    def __getitem__(self, index: int) -> NodePluginScores: ...

    @overload
    def __getitem__(self, index: slice) -> list[NodePluginScores]: ...

    def __getitem__(self, index: int | slice) -> NodePluginScores | list[NodePluginScores]:
        if isinstance(index, slice):
            return [self[i] for i in range(*index.indices(len(self)))]
        item = self._items[index]
        if item is None:
            item = self._items[index] = NodePluginScores.of_weighted(
                self.names[index],
                self._plugin_names,
                tuple(column[index] for column in self._columns),
            )
        return item

    def __iter__(self) -> Iterator[NodePluginScores]:
        return (self[i] for i in range(len(self)))

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Sequence):
            return NotImplemented
        return list(self) == list(other)

    def __repr__(self) -> str:
        return f"ScoredNodes({list(self)!r})"


class PreFilterResult:
    """The nodes PreFilter narrowed the cycle to; ``node_names is None`` means all nodes."""

    __slots__ = ("node_names",)

    def __init__(self, node_names: Iterable[str] | None = None) -> None:
        self.node_names: set[str] | None = None if node_names is None else set(node_names)

    def all_nodes(self) -> bool:
        return self.node_names is None

    def merge(self, other: PreFilterResult | None) -> PreFilterResult | None:
        """Intersection of two results, where None (or all nodes) is the identity."""
        mine_all = self.all_nodes()
        theirs_all = other is None or other.all_nodes()
        if mine_all and theirs_all:
            return None
        if mine_all:
            return PreFilterResult(other.node_names)  # type: ignore[union-attr]
        if theirs_all:
            return PreFilterResult(self.node_names)
        return PreFilterResult(self.node_names & other.node_names)  # type: ignore[operator,union-attr]

    def __eq__(self, other: object) -> bool:
        return isinstance(other, PreFilterResult) and self.node_names == other.node_names

    def __repr__(self) -> str:
        return f"PreFilterResult({None if self.node_names is None else sorted(self.node_names)})"


def merge_pre_filter_results(
    left: PreFilterResult | None, right: PreFilterResult | None
) -> PreFilterResult | None:
    """Merge where either side may be None (all nodes)."""
    if left is None:
        return None if right is None or right.all_nodes() else PreFilterResult(right.node_names)
    return left.merge(right)


class NominatingMode(IntEnum):
    NOOP = 0
    OVERRIDE = 1


@dataclass(slots=True)
class NominatingInfo:
    """Where a PostFilter plugin wants the pod nominated, and whether to override."""

    nominated_node_name: str = ""
    nominating_mode: NominatingMode = NominatingMode.NOOP


def nominating_mode(info: NominatingInfo | None) -> NominatingMode:
    return NominatingMode.NOOP if info is None else info.nominating_mode


@dataclass(slots=True)
class PostFilterResult:
    """What a PostFilter plugin (preemption) achieved: possibly a node to nominate."""

    nominating_info: NominatingInfo | None = None

    def mode(self) -> NominatingMode:
        return nominating_mode(self.nominating_info)


@dataclass(slots=True)
class PreBindPreFlightResult:
    """A PreBind plugin's promise that its PreBind may run in parallel with its neighbours."""

    allow_parallel: bool = False


@dataclass(frozen=True, slots=True)
class SignFragment:
    """One part of a pod's signature: a key naming what of the pod it holds (the names are in
    ``framework.interface.signers``), and a JSON-serialisable value. Plugins that read the same
    thing return the same key; the framework keeps one fragment per key."""

    key: str
    value: Any


@dataclass(slots=True)
class QueuedPodInfo:
    """A pod in the scheduling queue with its bookkeeping (timestamps, attempts, rejectors).

    Times are clock seconds. ``unschedulable_count`` drives the backoff of rejected pods and
    ``consecutive_errors_count`` the backoff of pods that failed with an error, which are
    kept apart because the first punishes wasted cycles and the second protects the API server.
    """

    pod_info: PodInfo
    timestamp: float = 0.0
    attempts: int = 0
    unschedulable_count: int = 0
    consecutive_errors_count: int = 0
    initial_attempt_timestamp: float | None = None
    initial_attempt_wall: float | None = None
    """``perf_counter`` reading at the first entry into the active queue: the start of the
    pod scheduling SLI, which upstream measures on the wall clock even under a fake clock."""
    unschedulable_plugins: set[str] = field(default_factory=set)
    pending_plugins: set[str] = field(default_factory=set)
    gating_plugin: str = ""
    gating_plugin_events: list[Any] = field(default_factory=list)
    backoff_expiration: float | None = None
    """When the backoff ends; computed lazily by the backoff queue, None until then."""
    was_flushed_from_unschedulable: bool = False
    """Moved out by the unschedulable-pods timeout rather than by an event (a hint smell)."""
    pod_signature: Any = None
    """Opportunistic batching signature of the pod; None when unsigned."""

    @property
    def pod(self) -> Any:
        return self.pod_info.pod

    @property
    def gated(self) -> bool:
        """A PreEnqueue plugin keeps the pod out of the active queue."""
        return self.gating_plugin != ""

    def update(self, pod: Any) -> None:
        """Points at a new version of the pod; its old signature no longer applies."""
        self.pod_signature = None
        self.pod_info.update(pod)

    def clear_rejector_plugins(self) -> None:
        """Forgets why the previous attempt failed, before a new failure is recorded."""
        self.unschedulable_plugins.clear()
        self.pending_plugins.clear()
        self.gating_plugin = ""
        self.gating_plugin_events = []


class NodeToStatus:
    """Per-node filter statuses, with one shared status for nodes not listed (never evaluated)."""

    __slots__ = ("_statuses", "absent_nodes_status")

    def __init__(
        self,
        statuses: dict[str, Status] | None = None,
        absent_nodes_status: Status | None = None,
    ) -> None:
        self._statuses: dict[str, Status] = {} if statuses is None else statuses
        self.absent_nodes_status = (
            Status(Code.UNSCHEDULABLE_AND_UNRESOLVABLE)
            if absent_nodes_status is None
            else absent_nodes_status
        )

    def get(self, node_name: str) -> Status:
        return self._statuses.get(node_name, self.absent_nodes_status)

    def set(self, node_name: str, status: Status) -> None:
        self._statuses[node_name] = status

    def __len__(self) -> int:
        return len(self._statuses)

    def items(self) -> Iterable[tuple[str, Status]]:
        """The explicitly recorded nodes and their statuses."""
        return self._statuses.items()

    def nodes_for_status_code(self, node_infos: Iterable[NodeInfo], code: Code) -> list[NodeInfo]:
        """The nodes (explicit or absent) whose status has ``code``."""
        if self.absent_nodes_status.code == code:
            return [n for n in node_infos if self.get(n.node_name).code == code]
        by_name = {n.node_name: n for n in node_infos}
        return [
            by_name[name]
            for name, status in self._statuses.items()
            if status.code == code and name in by_name
        ]
