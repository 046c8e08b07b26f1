"""Snapshot: the cache's NodeInfos frozen for one scheduling cycle.

The scheduler refreshes one long-lived Snapshot at the start of every cycle
(``Cache.update_snapshot``); plugins read it through the SharedLister protocol and never see
changes made while the cycle runs. NodeInfo objects in a snapshot keep their identity across
refreshes (only their contents are overwritten), so lists built in earlier cycles stay valid.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Iterable, Mapping
from typing import TYPE_CHECKING, Any

from framework.backend.cache.errors import (
    CacheError,
    NodeInfoNotFoundError,
    get_pod_key,
)
from framework.backend.cache.pod_group_state import (
    PodGroupKey,
    PodGroupStateLister,
    PodGroupStateSnapshot,
    pod_group_key,
)
from framework.interface.node_info import ImageStateSummary, NodeInfo, PodInfo
from framework.interface.node_sums import NodeQuery, NodeSums, OnNodesWith

if TYPE_CHECKING:
    from framework.api.node import Node
    from framework.api.pod import Pod
    from framework.interface.placement import Placement

logger = logging.getLogger(__name__)


class Snapshot:
    """Node infos by name and in node-tree order, plus the lists some plugins need often.

    Implements NodeInfoLister, StorageInfoLister and SharedLister. Not thread-safe: the
    scheduling cycle that owns it is its only reader and writer.
    """

    __slots__ = (
        "assumed_pods",
        "generation",
        "has_backup",
        "have_pods_with_affinity_node_info_list",
        "have_pods_with_required_anti_affinity_node_info_list",
        "node_info_list",
        "node_info_map",
        "node_sums",
        "placement_node_names",
        "placement_nodes",
        "pod_group_state_snapshots",
        "used_pvc_set",
    )

    def __init__(self) -> None:
        self.node_info_map: dict[str, NodeInfo] = {}
        self.node_info_list: list[NodeInfo] = []
        self.have_pods_with_affinity_node_info_list: list[NodeInfo] = []
        self.have_pods_with_required_anti_affinity_node_info_list: list[NodeInfo] = []
        # "namespace/name" of every PVC used by at least one scheduled pod.
        self.used_pvc_set: set[str] = set()
        # The highest NodeInfo generation copied in; the next refresh copies only newer ones.
        self.generation = 0
        # Pods assumed in this snapshot only (pod group cycles), by pod key.
        self.assumed_pods: dict[str, Pod] = {}
        # Sums over the nodes that plugins ask for every cycle, and the NodeInfos changed in
        # place since (whoever changes one calls node_sums.node_changed).
        self.node_sums = NodeSums()
        # Each pod group's state as the cache had it at the last refresh (GenericWorkload).
        self.pod_group_state_snapshots: dict[PodGroupKey, PodGroupStateSnapshot] = {}
        # Whether NodeInfo copies stand in for the cache's until a restore (backup_snapshot).
        self.has_backup = False
        # The assumed placement's nodes (a pod-group cycle trying one placement), or None:
        # every node is in.
        self.placement_nodes: list[NodeInfo] | None = None
        self.placement_node_names: frozenset[str] = frozenset()

    # -- SharedLister ------------------------------------------------------------------------

    def node_infos(self) -> Snapshot:
        return self

    def storage_infos(self) -> Snapshot:
        return self

    def pod_group_states(self) -> PodGroupStateLister:
        """The groups' states as this cycle began, with what the cycle assumed since."""
        return PodGroupStateLister(self.pod_group_state_snapshots)

    # -- NodeInfoLister ----------------------------------------------------------------------

    def list(self) -> list[NodeInfo]:
        return self.node_info_list

    def have_pods_with_affinity_list(self) -> list[NodeInfo]:
        return self.have_pods_with_affinity_node_info_list

    def have_pods_with_required_anti_affinity_list(self) -> list[NodeInfo]:
        return self.have_pods_with_required_anti_affinity_node_info_list

    def get(self, node_name: str) -> NodeInfo:
        """The node's NodeInfo; a node that is gone (only its pods remain) is not found."""
        node_info = self.node_info_map.get(node_name)
        if node_info is None or node_info.node is None:
            raise NodeInfoNotFoundError(f'nodeinfo not found for node name "{node_name}"')
        return node_info

    # -- sums kept over the nodes (framework.interface.node_sums) ---------------------------

    def kept_node_sum(self, query: NodeQuery, nodes: list[NodeInfo]) -> Mapping[Any, int] | None:
        """The query summed over ``nodes``, kept up to date between cycles; None when
        ``nodes`` is not one of this snapshot's lists.

        A sum over one of the lists of nodes with pods with (anti-)affinity is kept over every
        node, skipping those without such pods: the same, as long as no pod is assumed in the
        snapshot alone (those lists do not follow such pods, as upstream's do not).
        """
        if nodes is self.node_info_list:
            return self.node_sums.totals(query, nodes)
        if self.assumed_pods:
            return None
        if nodes is self.have_pods_with_affinity_node_info_list:
            return self.node_sums.totals(
                OnNodesWith("pods_with_affinity", query), self.node_info_list
            )
        if nodes is self.have_pods_with_required_anti_affinity_node_info_list:
            return self.node_sums.totals(
                OnNodesWith("pods_with_required_anti_affinity", query), self.node_info_list
            )
        return None

    # -- StorageInfoLister -------------------------------------------------------------------

    def is_pvc_used_by_pods(self, key: str) -> bool:
        return key in self.used_pvc_set

    # -- placement: the nodes a pod-group cycle tries the group on --------------------------

    def assume_placement(self, placement: Placement) -> None:
        """Limits the ``*_in_placement`` methods to the placement's nodes until
        ``forget_placement``; ``list`` and ``get`` still see every node. The placement's
        NodeInfos must be this snapshot's own (assumed pods show through them); otherwise
        CacheError, and no placement is set. Every node is the same as no placement."""
        if len(placement.nodes) == len(self.node_info_list):
            self.forget_placement()
            return
        names = set()
        for node_info in placement.nodes:
            name = node_info.node_name
            own = self.node_info_map.get(name)
            if own is None:
                self.forget_placement()
                raise CacheError(f"node {name} in placement is not present in snapshot")
            if own is not node_info:
                self.forget_placement()
                raise CacheError(
                    f"node {name} in placement is not the same instance as in the snapshot"
                )
            names.add(name)
        self.placement_nodes = placement.nodes
        self.placement_node_names = frozenset(names)

    def forget_placement(self) -> None:
        self.placement_nodes = None
        self.placement_node_names = frozenset()

    def num_nodes_in_placement(self) -> int:
        if self.placement_nodes is not None:
            return len(self.placement_nodes)
        return len(self.node_info_list)

    def list_nodes_in_placement(self) -> list[NodeInfo]:
        if self.placement_nodes is not None:
            return self.placement_nodes
        return self.node_info_list

    def in_placement(self, node_name: str) -> bool:
        """Whether the node is in the assumed placement (always, without one)."""
        return self.placement_nodes is None or node_name in self.placement_node_names

    def get_node_in_placement(self, node_name: str) -> NodeInfo:
        if self.in_placement(node_name):
            return self.get(node_name)
        raise NodeInfoNotFoundError(f'node "{node_name}" not found in placement')

    # -- backup (workload-aware preemption) ------------------------------------------------

    def backup_snapshot(self) -> Callable[[], None]:
        """Puts copies of every NodeInfo in place of the originals and returns the restore
        that puts the originals back (upstream ``BackupSnapshot``).

        Workload-aware preemption takes victims out of the snapshot to try the pod group
        without them; the copies take those changes, the originals stay as the cache made
        them. Backups do not stack.
        """
        if self.has_backup:
            raise CacheError("cannot stack backups")
        originals = (
            self.node_info_map,
            self.node_info_list,
            self.have_pods_with_affinity_node_info_list,
            self.have_pods_with_required_anti_affinity_node_info_list,
        )
        copies = {name: node_info.clone() for name, node_info in self.node_info_map.items()}
        self.node_info_map = copies
        self.node_info_list = [copies[n.node_name] for n in originals[1]]
        self.have_pods_with_affinity_node_info_list = [
            n for n in self.node_info_list if n.pods_with_affinity
        ]
        self.have_pods_with_required_anti_affinity_node_info_list = [
            n for n in self.node_info_list if n.pods_with_required_anti_affinity
        ]
        self.has_backup = True

        def restore() -> None:
            self.has_backup = False
            (
                self.node_info_map,
                self.node_info_list,
                self.have_pods_with_affinity_node_info_list,
                self.have_pods_with_required_anti_affinity_node_info_list,
            ) = originals

        return restore

    # -- pods assumed in the snapshot only ---------------------------------------------------

    def assume_pod(self, pod_info: PodInfo) -> None:
        """Adds the pod to its node in this snapshot only; forget it before the next refresh.

        The NodeInfo keeps its generation, so the next refresh still sees it as the cache's
        copy of that generation.
        """
        pod = pod_info.pod
        key = get_pod_key(pod)
        node_info = self.node_info_map.get(pod.spec.node_name)
        if node_info is None:
            node_info = NodeInfo()
            self.node_info_map[pod.spec.node_name] = node_info
        generation = node_info.generation
        node_info.add_pod_info(pod_info)
        node_info.generation = generation
        self.node_sums.node_changed(node_info)
        self.assumed_pods[key] = pod
        group = self._pod_group_state_of(pod)
        if group is not None:
            group.assume_pod(pod)

    def forget_pod(self, pod: Pod) -> None:
        """Undoes ``assume_pod``; raises CacheError for a pod not assumed in this snapshot."""
        key = get_pod_key(pod)
        assumed = self.assumed_pods.pop(key, None)
        if assumed is None:
            raise CacheError(f'assumed pod "{key}" not found in the snapshot')
        node_name = assumed.spec.node_name
        node_info = self.node_info_map.get(node_name)
        if node_info is not None:
            self._remove_assumed(node_name, node_info, pod)
        group = self._pod_group_state_of(assumed)
        if group is not None:
            group.forget_pod(assumed.uid)

    def _remove_assumed(self, node_name: str, node_info: NodeInfo, pod: Pod) -> None:
        generation = node_info.generation
        try:
            node_info.remove_pod(pod)
        except (LookupError, ValueError) as error:
            raise CacheError(str(error)) from error
        node_info.generation = generation
        self.node_sums.node_changed(node_info)
        if not node_info.pods and node_info.node is None:
            del self.node_info_map[node_name]

    def _pod_group_state_of(self, pod: Pod) -> PodGroupStateSnapshot | None:
        """The snapshot's copy of the pod's group; None outside groups or with the
        GenericWorkload gate off (the cache then copies no group in)."""
        group = pod_group_key(pod)
        return None if group is None else self.pod_group_state_snapshots.get(group)

    def forget_all_assumed_pods(self) -> None:
        """A safety net run before every refresh, for pods a cycle failed to forget."""
        if not self.assumed_pods:
            return
        for pod in list(self.assumed_pods.values()):
            try:
                self.forget_pod(pod)
            except CacheError:
                logger.exception("Failed to forget assumed pod")
        logger.error(
            "Found assumed pods in the snapshot that were not forgotten (assumedPodsCount=%d)",
            len(self.assumed_pods),
        )


def new_snapshot(
    pods: Iterable[Pod], nodes: Iterable[Node], *, generic_workload_enabled: bool = False
) -> Snapshot:
    """A snapshot built directly from objects, for tests (upstream NewSnapshot); with the
    GenericWorkload gate, the pods' groups get their states too.

    Pods are placed on the NodeInfo named by ``spec.node_name``, even when no such node is
    given; those node-less NodeInfos are listed too, as upstream does. Upstream lists in Go
    map order (unspecified); here the given nodes come first, in the order given.
    """
    pods = list(pods)
    nodes = list(nodes)
    node_info_map = create_node_info_map(pods, nodes)
    ordered = {node.name: node_info_map[node.name] for node in nodes}
    for name, node_info in node_info_map.items():
        ordered.setdefault(name, node_info)

    snapshot = Snapshot()
    snapshot.node_info_map = node_info_map
    snapshot.node_info_list = list(ordered.values())
    snapshot.have_pods_with_affinity_node_info_list = [
        n for n in snapshot.node_info_list if n.pods_with_affinity
    ]
    snapshot.have_pods_with_required_anti_affinity_node_info_list = [
        n for n in snapshot.node_info_list if n.pods_with_required_anti_affinity
    ]
    snapshot.used_pvc_set = create_used_pvc_set(pods)
    if generic_workload_enabled:
        snapshot.pod_group_state_snapshots = create_pod_group_states(pods)
    return snapshot


def create_pod_group_states(pods: Iterable[Pod]) -> dict[PodGroupKey, PodGroupStateSnapshot]:
    """Each group named by the pods, with them as its members."""
    states: dict[PodGroupKey, PodGroupStateSnapshot] = {}
    for pod in pods:
        group = pod_group_key(pod)
        if group is not None:
            states.setdefault(group, PodGroupStateSnapshot()).add_pod(pod)
    return states


def create_node_info_map(pods: Iterable[Pod], nodes: Iterable[Node]) -> dict[str, NodeInfo]:
    """NodeInfos by node name: each pod on its ``spec.node_name``, then each node set."""
    node_infos: dict[str, NodeInfo] = {}
    for pod in pods:
        node_infos.setdefault(pod.spec.node_name, NodeInfo()).add_pod(pod)
    nodes = list(nodes)
    image_existence = create_image_existence_map(nodes)
    for node in nodes:
        node_info = node_infos.setdefault(node.name, NodeInfo())
        node_info.set_node(node)
        node_info.image_states = get_node_image_states(node, image_existence)
    return node_infos


def create_used_pvc_set(pods: Iterable[Pod]) -> set[str]:
    """``namespace/claim`` of the PVCs used by pods already on a node."""
    used: set[str] = set()
    for pod in pods:
        if not pod.spec.node_name:
            continue
        for volume in pod.spec.volumes:
            if volume.persistent_volume_claim is not None:
                used.add(f"{pod.namespace}/{volume.persistent_volume_claim.claim_name}")
    return used


def get_node_image_states(
    node: Node, image_existence: dict[str, set[str]]
) -> dict[str, ImageStateSummary]:
    """The node's images with their size and on how many nodes each one is."""
    states: dict[str, ImageStateSummary] = {}
    for image in node.status.images:
        for name in image.names:
            states[name] = ImageStateSummary(image.size_bytes, len(image_existence.get(name, ())))
    return states


def create_image_existence_map(nodes: Iterable[Node]) -> dict[str, set[str]]:
    """For each image name, the names of the nodes that have it."""
    existence: dict[str, set[str]] = {}
    for node in nodes:
        for image in node.status.images:
            for name in image.names:
                existence.setdefault(name, set()).add(node.name)
    return existence
