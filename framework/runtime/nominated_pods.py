"""Filtering with nominated pods counted: which pods count, and many nodes in batches.

``Framework.run_filter_plugins_with_nominated_pods`` judges one node in two passes: with the
nominated pods that count added to a copy of the node and of the cycle state, then, if that
passes and pods were added, on the node as it is. When no PreFilter extension runs in the
cycle, adding pods leaves every node's copy of the state equal to the state itself, so one
copy serves all the nodes and each pass is one batch call per plugin: the same verdicts in far
fewer calls (the first attempt of each preempting pod meets as many nominated nodes as pods
preempted before it).
"""

from __future__ import annotations

from collections.abc import Sequence
from operator import is_
from typing import TYPE_CHECKING, Protocol

if TYPE_CHECKING:
    from framework.api.pod import Pod
    from framework.interface.cycle_state import CycleState
    from framework.interface.handle import SharedLister
    from framework.interface.node_info import NodeInfo, PodInfo
    from framework.interface.status import Status


def counted_nominated_pods(pod: Pod, nominated: list[PodInfo]) -> list[PodInfo]:
    """The nominated pods filtering counts for ``pod``: others of at least its priority."""
    priority, uid = pod.spec.priority, pod.uid
    return [p for p in nominated if p.pod.spec.priority >= priority and p.pod.uid != uid]


class NominatedFilterHandle(Protocol):
    """What filtering with nominated pods needs of its Framework (a protocol: no import
    cycle with it)."""

    nodes_with_nominated_pods: NodesWithNominatedPods

    def snapshot_shared_lister(self) -> SharedLister | None: ...

    def nominated_pods_for_nodes(self, node_names: Sequence[str]) -> list[list[PodInfo]]: ...

    def run_filter_plugins_on_nodes(
        self, state: CycleState, pod: Pod, nodes: Sequence[NodeInfo]
    ) -> list[Status | None]: ...


def filter_with_nominated_pods(
    framework: NominatedFilterHandle, state: CycleState, pod: Pod, nodes: Sequence[NodeInfo]
) -> list[Status | None]:
    """Per node, what ``run_filter_plugins_with_nominated_pods`` returns for it, provided no
    PreFilter extension runs in this cycle (the caller checks)."""
    first_pass: list[int] = []
    copies: list[NodeInfo] = []
    pods_added: list[bool] = []
    second_pass: list[int] = []
    memo = framework.nodes_with_nominated_pods
    snapshot = framework.snapshot_shared_lister()
    all_nominated = framework.nominated_pods_for_nodes([n.node_name for n in nodes])
    for index, (node_info, nominated) in enumerate(zip(nodes, all_nominated, strict=True)):
        if not nominated:
            second_pass.append(index)  # gone meanwhile: filtered once, as it is
            continue
        counted = counted_nominated_pods(pod, nominated)
        first_pass.append(index)
        copies.append(memo.with_pods(node_info, counted, _in_snapshot(snapshot, node_info)))
        pods_added.append(bool(counted))
    statuses: list[Status | None] = [None] * len(nodes)
    if first_pass:
        results = framework.run_filter_plugins_on_nodes(state.clone(), pod, copies)
        for index, added, status in zip(first_pass, pods_added, results, strict=True):
            statuses[index] = status
            if added and (status is None or status.is_success()):
                second_pass.append(index)
    if second_pass:
        second_pass.sort()
        results = framework.run_filter_plugins_on_nodes(state, pod, [nodes[i] for i in second_pass])
        for index, status in zip(second_pass, results, strict=True):
            statuses[index] = status
    return statuses


class NodesWithNominatedPods:
    """Copies of nodes with their nominated pods added, kept from one cycle to the next.

    Every preempting pod's first attempt meets every node nominated before it, and each such
    node used to be copied and given its nominated pods again, cycle after cycle, though
    neither the node nor its nominated pods had changed: most of the cost of those attempts.
    A copy is kept per node with what it was made from (the NodeInfo object, its generation and
    its pod count, the PodInfo objects added) and made again when any of that differs. Filters
    only read the copies.
    """

    def __init__(self) -> None:
        self._copies: dict[str, tuple[NodeInfo, int, int, list[PodInfo], NodeInfo]] = {}

    LIMIT = 65_536
    """Copies kept at most (one per node name): beyond, they are forgotten and made again."""

    def with_pods(self, node_info: NodeInfo, pods: list[PodInfo], keep: bool) -> NodeInfo:
        """A copy of ``node_info`` with ``pods`` added (not to be changed). Only the snapshot's
        own NodeInfos are kept (``keep``): preemption's dry run filters short-lived copies."""
        if not keep:
            return _copy_with(node_info, pods)
        kept = self._copies.get(node_info.node_name)
        if (
            kept is not None
            and kept[0] is node_info
            and kept[1] == node_info.generation
            and kept[2] == len(node_info.pods)
            and len(kept[3]) == len(pods)
            and all(map(is_, kept[3], pods))
        ):
            return kept[4]
        copy = _copy_with(node_info, pods)
        if len(self._copies) >= self.LIMIT:
            self._copies.clear()
        self._copies[node_info.node_name] = (
            node_info,
            node_info.generation,
            len(node_info.pods),
            list(pods),
            copy,
        )
        return copy


def _copy_with(node_info: NodeInfo, pods: list[PodInfo]) -> NodeInfo:
    copy = node_info.clone()
    for pod_info in pods:
        copy.add_pod_info(pod_info)
    return copy


def _in_snapshot(snapshot: SharedLister | None, node_info: NodeInfo) -> bool:
    if snapshot is None:
        return False
    try:
        return snapshot.node_infos().get(node_info.node_name) is node_info
    except LookupError:
        return False
