"""The scheduler cache: what every node holds, including pods the scheduler only assumed.

Pod states (upstream's state machine; "Initial" and "Deleted" pods are simply not cached)::

    Initial --assume_pod--> Assumed --add_pod--> Added --remove_pod--> Deleted
       ^                       |                  ^  |
       +------forget_pod-------+   Initial --add_pod-+  +--update_pod--> Added

An assumed pod is counted on its node as soon as the scheduling cycle picks the node, so
the next cycle sees its resources while binding runs. The pod's Add event from the cluster
confirms it; a failed binding forgets it. In v1.36 assumed pods never expire: upstream
removed the expiry (and FinishBinding) because the scheduler always either confirms or
forgets them.

NodeInfos form a doubly linked list, most recently changed first, so ``update_snapshot``
walks only the NodeInfos changed since the snapshot's generation.
"""

from __future__ import annotations

import logging
import threading
from bisect import bisect_left
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from framework.backend.cache.errors import (
    CacheCorruptedError,
    CacheError,
    SnapshotInconsistentError,
    get_pod_key,
    kobj,
)
from framework.backend.cache.node_tree import NodeTree, NodeTreeError, ZonesExhaustedError
from framework.backend.cache.pod_group_state import (
    PodGroupKey,
    PodGroupState,
    PodGroupStateLister,
    pod_group_key,
)
from framework.interface.node_info import ImageStateSummary, NodeInfo

if TYPE_CHECKING:
    from framework.api.node import Node
    from framework.api.pod import Pod
    from framework.backend.cache.snapshot import Snapshot

logger = logging.getLogger(__name__)


class _NodeInfoListItem:
    """One NodeInfo in the cache's most-recently-updated list."""

    __slots__ = ("info", "next", "prev")

    def __init__(self, info: NodeInfo) -> None:
        self.info = info
        self.next: _NodeInfoListItem | None = None
        self.prev: _NodeInfoListItem | None = None


@dataclass(slots=True)
class Dump:
    """A copy of the cache for debugging and display (not for scheduling)."""

    assumed_pods: set[str] = field(default_factory=set)
    nodes: dict[str, NodeInfo] = field(default_factory=dict)


class Cache:
    """Nodes and the pods on them, updated from cluster events and the scheduler's assumptions.

    Thread-safe: binding cycles may confirm or forget pods while a scheduling cycle runs.
    """

    def __init__(self, generic_workload_enabled: bool = False) -> None:
        """``generic_workload_enabled``: the GenericWorkload gate; with it on, the cache
        keeps each pod group's members by state (see ``pod_group_state``)."""
        self._lock = threading.Lock()
        self._assumed_pods: set[str] = set()
        self._pod_states: dict[str, Pod] = {}
        self._nodes: dict[str, _NodeInfoListItem] = {}
        self._head_node: _NodeInfoListItem | None = None
        self._node_tree = NodeTree()
        # The snapshot's node list and each node's index in it (see _positions).
        self._list_positions: tuple[list[NodeInfo], dict[int, int]] | None = None
        # Shared by every NodeInfo holding the image, so num_nodes stays current everywhere.
        self._image_states: dict[str, ImageStateSummary] = {}
        self._generic_workload_enabled = generic_workload_enabled
        self._pod_group_states: dict[PodGroupKey, PodGroupState] = {}

    # -- pods --------------------------------------------------------------------------------

    def assume_pod(self, pod: Pod) -> None:
        """Counts a pod on ``pod.spec.node_name`` before its binding is confirmed."""
        key = get_pod_key(pod)
        with self._lock:
            if key in self._pod_states:
                raise CacheError(f"pod {key}({kobj(pod)}) is in the cache, so can't be assumed")
            self._add_pod(pod, assumed=True)

    def forget_pod(self, pod: Pod) -> None:
        """Drops an assumed pod (its binding failed); a pod no longer cached is fine."""
        key = get_pod_key(pod)
        with self._lock:
            cached = self._pod_states.get(key)
            if cached is None:
                return
            if cached.spec.node_name != pod.spec.node_name:
                raise CacheError(
                    f"pod {key}({kobj(pod)}) was assumed on {pod.spec.node_name} "
                    f"but assigned to {cached.spec.node_name}"
                )
            if key not in self._assumed_pods:
                raise CacheError(f"pod {key}({kobj(pod)}) wasn't assumed so cannot be forgotten")
            self._remove_pod(pod, forget=True)

    def add_pod(self, pod: Pod) -> None:
        """Confirms an assumed pod (taking the cluster's version of it), or adds a bound pod."""
        key = get_pod_key(pod)
        with self._lock:
            cached = self._pod_states.get(key)
            if cached is not None and key in self._assumed_pods:
                self._log_failure("updating pod", self._update_pod, cached, pod)
                if cached.spec.node_name != pod.spec.node_name:
                    logger.info(
                        "Pod was added to a different node than it was assumed "
                        "(podKey=%s, pod=%s, assumedNode=%s, currentNode=%s)",
                        key,
                        kobj(pod),
                        pod.spec.node_name,
                        cached.spec.node_name,
                    )
            elif cached is None:
                self._log_failure("adding pod", self._add_pod, pod, False)
            else:
                raise CacheError(f"pod {key}({kobj(pod)}) was already in added state")

    def update_pod(self, old_pod: Pod, new_pod: Pod) -> None:
        """Replaces an added pod's old version with the new one on the same node."""
        key = get_pod_key(old_pod)
        with self._lock:
            cached = self._pod_states.get(key)
            if cached is None:
                raise CacheError(
                    f"pod {key}({kobj(old_pod)}) is not added to scheduler cache, "
                    "so cannot be updated"
                )
            # An assumed pod gets an Add event (and becomes Added) before any Update.
            if key in self._assumed_pods:
                raise CacheError(f"assumed pod {key}({kobj(old_pod)}) should not be updated")
            if cached.spec.node_name != new_pod.spec.node_name:
                raise CacheCorruptedError(
                    "Pod updated on a different node than previously added to. Scheduler cache "
                    "is corrupted and can badly affect scheduling decisions "
                    f"(podKey={key}, pod={kobj(old_pod)})"
                )
            self._update_pod(old_pod, new_pod)

    def remove_pod(self, pod: Pod) -> None:
        """Removes an added (or assumed) pod: it was deleted in the cluster."""
        key = get_pod_key(pod)
        with self._lock:
            cached = self._pod_states.get(key)
            if cached is None:
                raise CacheError(
                    f"pod {key}({kobj(pod)}) is not found in scheduler cache, "
                    "so cannot be removed from it"
                )
            if cached.spec.node_name != pod.spec.node_name:
                logger.error(
                    "Pod was added to a different node than it was assumed "
                    "(podKey=%s, pod=%s, assumedNode=%s, currentNode=%s)",
                    key,
                    kobj(pod),
                    pod.spec.node_name,
                    cached.spec.node_name,
                )
                # An empty node name means a missed Delete event: the informer's last state.
                if pod.spec.node_name:
                    raise CacheCorruptedError(
                        "Scheduler cache is corrupted and can badly affect scheduling decisions"
                    )
            self._remove_pod(cached)

    def is_assumed_pod(self, pod: Pod) -> bool:
        key = get_pod_key(pod)
        with self._lock:
            return key in self._assumed_pods

    def get_pod(self, pod: Pod) -> Pod:
        """The cached version of the pod, even when its node is already gone."""
        key = get_pod_key(pod)
        with self._lock:
            cached = self._pod_states.get(key)
        if cached is None:
            raise CacheError(f"pod {key}({kobj(pod)}) does not exist in scheduler cache")
        return cached

    def _add_pod(self, pod: Pod, assumed: bool) -> None:
        key = get_pod_key(pod)
        item = self._nodes.get(pod.spec.node_name)
        if item is None:
            item = self._new_item(pod.spec.node_name)
        item.info.add_pod(pod)
        self._move_node_info_to_head(pod.spec.node_name)
        self._pod_states[key] = pod
        if assumed:
            self._assumed_pods.add(key)
        group = self._pod_group_of(pod)
        if group is not None:
            join = self._assume_pod_group_member if assumed else self._add_pod_group_member
            join(group, pod)

    def _update_pod(self, old_pod: Pod, new_pod: Pod) -> None:
        self._remove_pod(old_pod)
        self._add_pod(new_pod, assumed=False)

    def _remove_pod(self, pod: Pod, forget: bool = False) -> None:
        """Takes the pod off its node; a node already removed goes once its last pod does.
        ``forget``: the pod was only assumed, so its group gets it back as unscheduled."""
        key = get_pod_key(pod)
        node_name = pod.spec.node_name
        item = self._nodes.get(node_name)
        if item is None:
            logger.error(
                "Node not found when trying to remove pod (node=%s, podKey=%s, pod=%s)",
                node_name,
                key,
                kobj(pod),
            )
        else:
            try:
                item.info.remove_pod(pod)
            except (LookupError, ValueError) as error:
                raise CacheError(str(error)) from error
            if not item.info.pods and item.info.node is None:
                self._remove_node_info_from_list(node_name)
            else:
                self._move_node_info_to_head(node_name)
        self._pod_states.pop(key, None)
        self._assumed_pods.discard(key)
        group = self._pod_group_of(pod)
        if group is not None:
            leave = self._forget_pod_group_member if forget else self._remove_pod_group_member
            leave(group, pod)

    @staticmethod
    def _log_failure(what: str, operation: Callable[..., None], *args: object) -> None:
        """Upstream logs, and does not return, errors of AddPod's inner steps."""
        try:
            operation(*args)
        except CacheError:
            logger.exception("Error occurred while %s", what)

    # -- pod groups (GenericWorkload) --------------------------------------------------------

    def add_pod_group_member(self, pod: Pod) -> None:
        """A pending member of a group arrived (the queue gets it too)."""
        group = self._pod_group_of(pod)
        if group is not None:
            with self._lock:
                self._add_pod_group_member(group, pod)

    def update_pod_group_member(self, old_pod: Pod, new_pod: Pod) -> None:
        """A pending member changed."""
        group = self._pod_group_of(new_pod)
        if group is None:
            return
        with self._lock:
            state = self._known_pod_group_state(group, new_pod, "update", "add")
            if state is not None:
                state.update_pod(old_pod, new_pod)

    def remove_pod_group_member(self, pod: Pod) -> None:
        """A pending member was deleted."""
        group = self._pod_group_of(pod)
        if group is not None:
            with self._lock:
                self._remove_pod_group_member(group, pod)

    def pod_group_states(self) -> PodGroupStateLister:
        """The live states, as the GangScheduling plugin reads them outside pod-group cycles
        (upstream PodGroupManager.PodGroupStates)."""
        return PodGroupStateLister(self._pod_group_states, self._lock)

    def _pod_group_of(self, pod: Pod) -> PodGroupKey | None:
        return pod_group_key(pod) if self._generic_workload_enabled else None

    def _add_pod_group_member(self, group: PodGroupKey, pod: Pod) -> None:
        state = self._pod_group_states.get(group)
        if state is None:
            state = self._pod_group_states[group] = PodGroupState()
        state.add_pod(pod)

    def _remove_pod_group_member(self, group: PodGroupKey, pod: Pod) -> None:
        state = self._pod_group_states.get(group)
        if state is None:
            return
        state.delete_pod(pod.uid)
        if state.empty():
            del self._pod_group_states[group]

    def _assume_pod_group_member(self, group: PodGroupKey, pod: Pod) -> None:
        state = self._pod_group_states.get(group)
        if state is None:
            # A member assumed before the cache heard of it: known from now on, as assumed.
            state = self._pod_group_states[group] = PodGroupState()
            state.all_pods[pod.uid] = pod
        state.assume_pod(pod)

    def _forget_pod_group_member(self, group: PodGroupKey, pod: Pod) -> None:
        state = self._known_pod_group_state(group, pod, "forget", "add or assume")
        if state is not None:
            state.forget_pod(pod.uid)

    def _known_pod_group_state(
        self, group: PodGroupKey, pod: Pod, operation: str, missed: str
    ) -> PodGroupState | None:
        """The group's state; its absence means an event was missed, which upstream logs."""
        state = self._pod_group_states.get(group)
        if state is None:
            logger.error(
                "Pod group state not found for %s, this indicates a missed %s event "
                "(pod=%s, podGroupKey=%s)",
                operation,
                missed,
                kobj(pod),
                group,
            )
        return state

    # -- nodes -------------------------------------------------------------------------------

    def add_node(self, node: Node) -> NodeInfo:
        """Adds (or re-adds) a node; returns a copy of its NodeInfo."""
        with self._lock:
            item = self._nodes.get(node.name)
            if item is None:
                item = self._new_item(node.name)
            else:
                self._remove_node_image_states(item.info.node)
            self._move_node_info_to_head(node.name)
            self._node_tree.add_node(node)
            self._add_node_image_states(node, item.info)
            item.info.set_node(node)
            return item.info.clone()

    def update_node(self, old_node: Node | None, new_node: Node) -> NodeInfo:
        """Replaces the node object (adding it if unknown); returns a copy of its NodeInfo."""
        with self._lock:
            item = self._nodes.get(new_node.name)
            if item is None:
                item = self._new_item(new_node.name)
                self._node_tree.add_node(new_node)
            else:
                self._remove_node_image_states(item.info.node)
            self._move_node_info_to_head(new_node.name)
            self._node_tree.update_node(old_node, new_node)
            self._add_node_image_states(new_node, item.info)
            item.info.set_node(new_node)
            return item.info.clone()

    def remove_node(self, node: Node) -> None:
        """Removes the node from scheduling at once.

        Pods still on it stay, in a "ghost" NodeInfo without a node, until their own delete
        events arrive (pod and node events come on different watches). Snapshots skip ghosts.
        """
        with self._lock:
            item = self._nodes.get(node.name)
            if item is None:
                raise CacheError(f"node {node.name} is not found")
            item.info.remove_node()
            if not item.info.pods:
                self._remove_node_info_from_list(node.name)
            else:
                self._move_node_info_to_head(node.name)
            try:
                self._node_tree.remove_node(node)
            except NodeTreeError as error:
                raise CacheError(str(error)) from error
            self._remove_node_image_states(node)

    def get_node(self, name: str) -> NodeInfo:
        """A copy of the node's NodeInfo (ghosts included); for tests and inspection."""
        with self._lock:
            item = self._nodes.get(name)
            if item is None:
                raise CacheError(f"node {name} does not exist in scheduler cache")
            return item.info.clone()

    def node_count(self) -> int:
        """NodeInfos held, ghosts included."""
        with self._lock:
            return len(self._nodes)

    def pod_count(self) -> int:
        """Pods held on NodeInfos, those on removed nodes included."""
        with self._lock:
            return sum(len(item.info.pods) for item in self._nodes.values())

    def sizes(self) -> tuple[int, int, int]:
        """Assumed pods, pods (assumed ones too) and NodeInfos (ghosts too), as upstream's
        ``scheduler_cache_size`` counts them."""
        with self._lock:
            return len(self._assumed_pods), len(self._pod_states), len(self._nodes)

    def dump(self) -> Dump:
        """Copies of every NodeInfo and the assumed pod keys; costly, for debugging and the UI."""
        with self._lock:
            return Dump(
                assumed_pods=set(self._assumed_pods),
                nodes={name: item.info.clone() for name, item in self._nodes.items()},
            )

    def _add_node_image_states(self, node: Node, node_info: NodeInfo) -> None:
        summaries: dict[str, ImageStateSummary] = {}
        for image in node.status.images:
            for name in image.names:
                state = self._image_states.get(name)
                if state is None:
                    state = ImageStateSummary(image.size_bytes, nodes={node.name})
                    self._image_states[name] = state
                else:
                    state.nodes.add(node.name)
                summaries.setdefault(name, state)
        node_info.image_states = summaries

    def _remove_node_image_states(self, node: Node | None) -> None:
        """Takes the node off its images; an image on no node left is forgotten."""
        if node is None:
            return
        for image in node.status.images:
            for name in image.names:
                state = self._image_states.get(name)
                if state is None:
                    continue
                state.nodes.discard(node.name)
                if not state.nodes:
                    del self._image_states[name]

    # -- the most-recently-updated list ------------------------------------------------------

    def _new_item(self, name: str) -> _NodeInfoListItem:
        item = _NodeInfoListItem(NodeInfo())
        self._nodes[name] = item
        return item

    def _move_node_info_to_head(self, name: str) -> None:
        item = self._nodes.get(name)
        if item is None:
            logger.error("No node info with given name found in the cache (node=%s)", name)
            return
        if item is self._head_node:
            return
        if item.prev is not None:
            item.prev.next = item.next
        if item.next is not None:
            item.next.prev = item.prev
        if self._head_node is not None:
            self._head_node.prev = item
        item.next = self._head_node
        item.prev = None
        self._head_node = item

    def _remove_node_info_from_list(self, name: str) -> None:
        item = self._nodes.get(name)
        if item is None:
            logger.error("No node info with given name found in the cache (node=%s)", name)
            return
        if item.prev is not None:
            item.prev.next = item.next
        if item.next is not None:
            item.next.prev = item.prev
        if item is self._head_node:
            self._head_node = item.next
        del self._nodes[name]

    def _node_infos_by_recency(self) -> Iterator[NodeInfo]:
        item = self._head_node
        while item is not None:
            yield item.info
            item = item.next

    # -- snapshot ----------------------------------------------------------------------------

    def update_snapshot(self, snapshot: Snapshot) -> None:
        """Brings the snapshot up to date, copying only NodeInfos changed since its generation.

        Called at the start of every scheduling cycle. Only nodes that exist (not ghosts) end
        up in the snapshot. The node list is rebuilt in node-tree order when nodes came or
        went; the affinity lists and the PVC set are rebuilt when some node's membership in
        them changed. Raises SnapshotInconsistentError (after repairing the lists) when the
        list length disagrees with the node tree.
        """
        with self._lock:
            snapshot.forget_all_assumed_pods()
            changes = self._copy_changed_node_infos(snapshot)
            update_all_lists = changes.node_added
            if len(snapshot.node_info_map) > self._node_tree.num_nodes:
                self._remove_deleted_nodes_from_snapshot(snapshot)
                update_all_lists = True
            if update_all_lists:
                self._update_node_info_snapshot_list(snapshot, True)
            elif changes.lists_affected():
                self._move_between_lists(snapshot, changes)
            if len(snapshot.node_info_list) != self._node_tree.num_nodes:
                message = (
                    "snapshot state is not consistent, length of NodeInfoList="
                    f"{len(snapshot.node_info_list)} not equal to length of nodes in tree="
                    f"{self._node_tree.num_nodes} , length of NodeInfoMap="
                    f"{len(snapshot.node_info_map)}, length of nodes in cache={len(self._nodes)}"
                    ", trying to recover"
                )
                logger.error(message)
                self._update_node_info_snapshot_list(snapshot, True)
                raise SnapshotInconsistentError(message)
            self._update_pod_group_state_snapshot(snapshot)

    def _update_pod_group_state_snapshot(self, snapshot: Snapshot) -> None:
        """Drops the snapshot's groups the cache no longer has and copies those whose
        generation moved on since."""
        copies = snapshot.pod_group_state_snapshots
        for group in [g for g in copies if g not in self._pod_group_states]:
            del copies[group]
        for group, state in self._pod_group_states.items():
            copy = copies.get(group)
            if copy is None or copy.generation != state.generation:
                copies[group] = state.snapshot()

    def _copy_changed_node_infos(self, snapshot: Snapshot) -> _SnapshotChanges:
        changes = _SnapshotChanges()
        for info in self._node_infos_by_recency():
            if info.generation <= snapshot.generation:
                break  # everything further down was copied by an earlier refresh
            if info.node is None:
                continue  # a ghost
            clone = info.clone()
            existing = snapshot.node_info_map.get(info.node.name)
            if existing is None:
                changes.node_added = True  # every list is rebuilt
                snapshot.node_info_map[info.node.name] = clone
            else:
                changes.compare(existing, clone)
                # Overwrite in place: the snapshot's lists point at this very object.
                _assign_node_info(existing, clone)
                snapshot.node_sums.node_changed(existing)
        if self._head_node is not None:
            snapshot.generation = self._head_node.info.generation
        return changes

    def _remove_deleted_nodes_from_snapshot(self, snapshot: Snapshot) -> None:
        to_delete = len(snapshot.node_info_map) - self._node_tree.num_nodes
        for name in list(snapshot.node_info_map):
            if to_delete <= 0:
                break
            item = self._nodes.get(name)
            if item is None or item.info.node is None:
                del snapshot.node_info_map[name]
                to_delete -= 1

    def _update_node_info_snapshot_list(self, snapshot: Snapshot, update_all: bool) -> None:
        if update_all:
            snapshot.node_info_list = self._node_infos_in_tree_order(snapshot)
        # Comprehensions: this walks every node whenever a pod with affinity comes or goes.
        nodes = snapshot.node_info_list
        snapshot.have_pods_with_affinity_node_info_list = [n for n in nodes if n.pods_with_affinity]
        snapshot.have_pods_with_required_anti_affinity_node_info_list = [
            n for n in nodes if n.pods_with_required_anti_affinity
        ]
        snapshot.used_pvc_set = {key for n in nodes if n.pvc_ref_counts for key in n.pvc_ref_counts}

    def _move_between_lists(self, snapshot: Snapshot, changes: _SnapshotChanges) -> None:
        """Adds and removes the nodes that joined or left the affinity lists, in node list
        order, and rebuilds the PVC set if some node's PVCs changed: the lists come out as
        ``_update_node_info_snapshot_list`` builds them, without walking every node."""
        position = self._positions(snapshot.node_info_list)
        try:
            _move(
                snapshot.have_pods_with_affinity_node_info_list,
                changes.affinity_moves,
                position,
                lambda n: bool(n.pods_with_affinity),
            )
            _move(
                snapshot.have_pods_with_required_anti_affinity_node_info_list,
                changes.anti_affinity_moves,
                position,
                lambda n: bool(n.pods_with_required_anti_affinity),
            )
        except KeyError:  # a node missing from the node list: the refresh reports it next
            self._update_node_info_snapshot_list(snapshot, False)
            return
        if changes.pvcs_changed:
            nodes = snapshot.node_info_list
            snapshot.used_pvc_set = {
                key for n in nodes if n.pvc_ref_counts for key in n.pvc_ref_counts
            }

    def _positions(self, nodes: list[NodeInfo]) -> Callable[[NodeInfo], int]:
        """Each node's index in ``nodes`` (the snapshot's node list, rebuilt when nodes come
        or go: the index is kept until then)."""
        if self._list_positions is None or self._list_positions[0] is not nodes:
            self._list_positions = (nodes, {id(n): i for i, n in enumerate(nodes)})
        indexes = self._list_positions[1]
        return lambda node_info: indexes[id(node_info)]

    def _node_infos_in_tree_order(self, snapshot: Snapshot) -> list[NodeInfo]:
        try:
            names = self._node_tree.list()
        except ZonesExhaustedError as error:
            logger.error(
                "Error occurred while retrieving the list of names of the nodes from node tree: %s",
                error,
            )
            names = error.partial
        node_infos = []
        for name in names:
            node_info = snapshot.node_info_map.get(name)
            if node_info is None:
                logger.error(
                    "Node exists in nodeTree but not in NodeInfoMap, this should not happen "
                    "(node=%s)",
                    name,
                )
                continue
            node_infos.append(node_info)
        return node_infos


class _SnapshotChanges:
    """What a refresh found, deciding which of the snapshot's lists must change."""

    __slots__ = ("affinity_moves", "anti_affinity_moves", "node_added", "pvcs_changed")

    def __init__(self) -> None:
        self.node_added = False
        # Snapshot NodeInfos that joined or left the list of nodes with pods with affinity.
        self.affinity_moves: list[NodeInfo] = []
        # The same for the list of nodes with pods with required anti-affinity.
        self.anti_affinity_moves: list[NodeInfo] = []
        self.pvcs_changed = False

    def lists_affected(self) -> bool:
        return bool(self.affinity_moves or self.anti_affinity_moves or self.pvcs_changed)

    def compare(self, before: NodeInfo, after: NodeInfo) -> None:
        """Notes whether the node joined or left the affinity lists or changed its PVCs."""
        if bool(before.pods_with_affinity) != bool(after.pods_with_affinity):
            self.affinity_moves.append(before)
        if bool(before.pods_with_required_anti_affinity) != bool(
            after.pods_with_required_anti_affinity
        ):
            self.anti_affinity_moves.append(before)
        if not self.pvcs_changed:
            self.pvcs_changed = before.pvc_ref_counts.keys() != after.pvc_ref_counts.keys()


def _move(
    node_infos: list[NodeInfo],
    moves: list[NodeInfo],
    position: Callable[[NodeInfo], int],
    belongs: Callable[[NodeInfo], bool],
) -> None:
    """Puts each moved node (already overwritten) in ``node_infos`` if it now ``belongs``
    there, at its place in node list order, or takes it out if it no longer does."""
    for node_info in moves:
        where = position(node_info)
        index = bisect_left(node_infos, where, key=position)
        present = index < len(node_infos) and node_infos[index] is node_info
        if belongs(node_info):
            if not present:
                node_infos.insert(index, node_info)
        elif present:
            del node_infos[index]


def _assign_node_info(target: NodeInfo, source: NodeInfo) -> None:
    """Copies every field of ``source`` into ``target`` (Go's ``*existing = *clone``)."""
    for name in NodeInfo.__slots__:
        setattr(target, name, getattr(source, name))
