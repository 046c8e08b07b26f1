"""Sums over a snapshot's nodes, kept up to date as its nodes change (not in upstream).

PodTopologySpread and InterPodAffinity count, every cycle, something about the pods of every
node in the cluster: matching pods per topology domain, existing pods whose anti-affinity
matches the incoming pod, and so on. Upstream walks every node each time. Between two cycles
only the few nodes that gained or lost a pod change, and consecutive pods are often alike, so
a :class:`NodeSums` keeps each such sum with its per-node parts and, when asked again, redoes
only the parts of the nodes its snapshot logged as changed since.

A *query* says what is summed: an object that is hashable, equal to another query exactly
when the two would count the same (its compared fields name everything ``contribution``
reads), and whose ``contribution(node_info)`` gives that node's part as ``{key: count}`` (or
None). :func:`sum_over_nodes` is the full walk; the kept sums always equal it, in value and,
for a query with ``ordered = True``, in key order (first node contributing a key first).
"""

from __future__ import annotations

from collections.abc import Hashable, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, ClassVar, Protocol

if TYPE_CHECKING:
    from framework.interface.node_info import NodeInfo

Part = Mapping[Any, int]
"""One node's contribution: key -> count. A key present with 0 still makes the key exist."""


class NodeQuery(Hashable, Protocol):
    """What a plugin sums over nodes (see the module docstring)."""

    ordered: ClassVar[bool]
    """Whether the totals' key order matters (it is then the full walk's order)."""

    def contribution(self, node_info: NodeInfo) -> Part | None: ...


def sum_over_nodes(query: NodeQuery, nodes: list[NodeInfo]) -> dict[Any, int]:
    """The full walk: every node's part added up, keys in the order nodes first give them."""
    totals: dict[Any, int] = {}
    contribution = query.contribution
    for node_info in nodes:
        part = contribution(node_info)
        if part:
            for key, count in part.items():
                totals[key] = totals.get(key, 0) + count
    return totals


@dataclass(frozen=True, slots=True)
class OnNodesWith:
    """``query`` on the nodes whose ``pods`` (a NodeInfo attribute listing pods) is not
    empty, and nothing on the others: a sum over one of the snapshot's lists of nodes with
    pods with affinity, kept over every node."""

    pods: str
    query: NodeQuery

    @property
    def ordered(self) -> bool:
        return self.query.ordered

    def contribution(self, node_info: NodeInfo) -> Part | None:
        return self.query.contribution(node_info) if getattr(node_info, self.pods) else None


class _NodeSum:
    """One query's totals over one node list, with each node's part to take back out."""

    __slots__ = ("cursor", "nodes", "parts", "positions", "query", "refs", "totals")

    def __init__(
        self, query: NodeQuery, nodes: list[NodeInfo], positions: dict[int, int], cursor: int
    ) -> None:
        self.query = query
        self.nodes = nodes
        self.cursor = cursor
        self.positions = positions  # id(NodeInfo) -> index in nodes, shared by the sums
        contribution = query.contribution
        self.parts: list[Part | None] = [contribution(node_info) or None for node_info in nodes]
        self._merge()

    def _merge(self) -> None:
        """Totals and, per key, how many nodes contribute it, from the parts in node order."""
        totals: dict[Any, int] = {}
        refs: dict[Any, int] = {}
        for part in self.parts:
            if part:
                for key, count in part.items():
                    totals[key] = totals.get(key, 0) + count
                    refs[key] = refs.get(key, 0) + 1
        self.totals = totals
        self.refs = refs

    def apply(self, changed: list[NodeInfo]) -> None:
        """Redoes the parts of the changed nodes that are in this sum's node list."""
        contribution = self.query.contribution
        ordered = self.query.ordered
        remerge = False
        for node_info in {id(n): n for n in changed}.values():
            index = self.positions.get(id(node_info))
            if index is None:
                continue
            old = self.parts[index]
            new = contribution(node_info) or None
            # Keys in another order count as a change only where the order matters.
            reordered = ordered and list(old or ()) != list(new or ())
            if old == new and not reordered:
                continue
            self.parts[index] = new
            if remerge:
                continue
            if reordered:
                # A key may now first appear at another node: the order is redone below.
                remerge = True
                continue
            # New before old: a key both hold keeps its place in the totals.
            self._take(new, 1)
            self._take(old, -1)
        if remerge:
            self._merge()

    def _take(self, part: Part | None, sign: int) -> None:
        if not part:
            return
        totals = self.totals
        refs = self.refs
        for key, count in part.items():
            left = refs.get(key, 0) + sign
            if left == 0:
                del refs[key]
                del totals[key]
            else:
                refs[key] = left
                totals[key] = totals.get(key, 0) + sign * count


class NodeSums:
    """A snapshot's log of changed NodeInfos, and the sums asked of it lately.

    The snapshot (and the cache refreshing it) calls :meth:`node_changed` for every NodeInfo
    whose pods or node it changes in place; a new node list (nodes added or removed) starts
    every sum afresh. Not thread-safe, like the snapshot.
    """

    MAX_SUMS = 32
    """Sums kept, least recently asked dropped first."""
    MAX_LOG = 4096
    """Logged changes kept; a sum that has not been asked for longer is rebuilt."""

    __slots__ = ("_base", "_log", "_positions", "_sums")

    def __init__(self) -> None:
        self._log: list[NodeInfo] = []
        self._base = 0  # the position in the whole history of _log[0]
        self._sums: dict[NodeQuery, _NodeSum] = {}
        self._positions: tuple[list[NodeInfo], dict[int, int]] | None = None

    def node_changed(self, node_info: NodeInfo) -> None:
        self._log.append(node_info)
        if len(self._log) > self.MAX_LOG:
            dropped = len(self._log) // 2
            del self._log[:dropped]
            self._base += dropped

    def _positions_in(self, nodes: list[NodeInfo]) -> dict[int, int]:
        if self._positions is None or self._positions[0] is not nodes:
            self._positions = (nodes, {id(node_info): i for i, node_info in enumerate(nodes)})
        return self._positions[1]

    def totals(self, query: NodeQuery, nodes: list[NodeInfo]) -> Mapping[Any, int]:
        """``sum_over_nodes(query, nodes)``, caught up from the last time; do not change it."""
        end = self._base + len(self._log)
        kept = self._sums.pop(query, None)
        if kept is None or kept.nodes is not nodes or kept.cursor < self._base:
            kept = _NodeSum(query, nodes, self._positions_in(nodes), end)
        else:
            kept.query = query  # equal, and it holds this cycle's objects rather than older ones
            if kept.cursor < end:
                kept.apply(self._log[kept.cursor - self._base :])
                kept.cursor = end
        self._sums[query] = kept
        if len(self._sums) > self.MAX_SUMS:
            del self._sums[next(iter(self._sums))]
        return kept.totals


def sum_over(query: NodeQuery, lister: object, nodes: list[NodeInfo]) -> Mapping[Any, int]:
    """``sum_over_nodes(query, nodes)``, kept up to date by the lister when it can (the
    scheduler's Snapshot can, for its own node lists), walked otherwise. Do not change it."""
    kept = getattr(lister, "kept_node_sum", None)
    totals = kept(query, nodes) if kept is not None else None
    return totals if totals is not None else sum_over_nodes(query, nodes)
