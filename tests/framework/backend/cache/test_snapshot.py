"""Cache.update_snapshot: the incremental refresh of the per-cycle Snapshot.

The operation tables are upstream's TestSchedulerCache_UpdateSnapshot and
TestSchedulerCache_updateNodeInfoSnapshotList (pod group cases left out: out of scope).
"""

from __future__ import annotations

from collections.abc import Callable

import pytest

from framework.backend.cache.cache import Cache
from framework.backend.cache.errors import (
    CacheError,
    NodeInfoNotFoundError,
    SnapshotInconsistentError,
)
from framework.backend.cache.snapshot import Snapshot
from framework.interface.node_info import NodeInfo, PodInfo

from .helpers import node, pod, pod_with_affinity, pod_with_anti_affinity, pod_with_pvc

NODES = [node(f"test-node{i}", allocatable={"cpu": "1000m", "memory": "100m"}) for i in range(10)]
UPDATED_NODES = [node(n.name, allocatable={"cpu": "2000m", "memory": "500m"}) for n in NODES]
PODS = [pod(f"test-pod{i}", f"test-node{i % 10}", uid=f"test-puid{i}") for i in range(20)]
UPDATED_PODS = [pod(p.name, p.spec.node_name, uid=p.uid, priority=1000) for p in PODS]
PODS_WITH_AFFINITY = [pod_with_affinity(f"p-affinity-{i}", f"test-node{i}") for i in range(10)]


class Run:
    """Applies a test's operations to one cache and one snapshot, as upstream's closures."""

    def __init__(self) -> None:
        self.cache = Cache()
        self.snapshot = Snapshot()


Op = Callable[[Run], None]


def add_node(i: int) -> Op:
    return lambda r: r.cache.add_node(NODES[i])


def remove_node(i: int) -> Op:
    return lambda r: r.cache.remove_node(NODES[i])


def update_node(i: int) -> Op:
    return lambda r: r.cache.update_node(NODES[i], UPDATED_NODES[i])


def add_pod(i: int) -> Op:
    return lambda r: r.cache.add_pod(PODS[i])


def update_pod(i: int) -> Op:
    return lambda r: r.cache.update_pod(PODS[i], UPDATED_PODS[i])


def remove_pod(i: int) -> Op:
    return lambda r: r.cache.remove_pod(PODS[i])


def assume_pod(i: int) -> Op:
    return lambda r: r.cache.assume_pod(PODS[i])


def forget_pod(i: int) -> Op:
    return lambda r: r.cache.forget_pod(PODS[i])


def assume_pod_in_snapshot(i: int) -> Op:
    return lambda r: r.snapshot.assume_pod(PodInfo(PODS[i]))


def forget_pod_in_snapshot(i: int) -> Op:
    return lambda r: r.snapshot.forget_pod(PODS[i])


def add_pod_with_affinity(i: int) -> Op:
    return lambda r: r.cache.add_pod(PODS_WITH_AFFINITY[i])


def remove_pod_with_affinity(i: int) -> Op:
    return lambda r: r.cache.remove_pod(PODS_WITH_AFFINITY[i])


def assume_pod_with_affinity(i: int) -> Op:
    return lambda r: r.cache.assume_pod(PODS_WITH_AFFINITY[i])


def forget_pod_with_affinity(i: int) -> Op:
    return lambda r: r.cache.forget_pod(PODS_WITH_AFFINITY[i])


def assume_pod_with_affinity_in_snapshot(i: int) -> Op:
    return lambda r: r.snapshot.assume_pod(PodInfo(PODS_WITH_AFFINITY[i]))


def forget_pod_with_affinity_in_snapshot(i: int) -> Op:
    return lambda r: r.snapshot.forget_pod(PODS_WITH_AFFINITY[i])


def add_pod_with_pvc(pod_id: int, node_id: int, pvc_id: int) -> Op:
    return lambda r: r.cache.add_pod(pod_with_pvc(pod_id, node_id, pvc_id))


def remove_pod_with_pvc(pod_id: int, node_id: int, pvc_id: int) -> Op:
    return lambda r: r.cache.remove_pod(pod_with_pvc(pod_id, node_id, pvc_id))


def assume_pod_with_pvc(pod_id: int, node_id: int, pvc_id: int) -> Op:
    return lambda r: r.cache.assume_pod(pod_with_pvc(pod_id, node_id, pvc_id))


def forget_pod_with_pvc(pod_id: int, node_id: int, pvc_id: int) -> Op:
    return lambda r: r.cache.forget_pod(pod_with_pvc(pod_id, node_id, pvc_id))


def assume_pod_with_pvc_in_snapshot(pod_id: int, node_id: int, pvc_id: int) -> Op:
    return lambda r: r.snapshot.assume_pod(PodInfo(pod_with_pvc(pod_id, node_id, pvc_id)))


def forget_pod_with_pvc_in_snapshot(pod_id: int, node_id: int, pvc_id: int) -> Op:
    return lambda r: r.snapshot.forget_pod(pod_with_pvc(pod_id, node_id, pvc_id))


def update_snapshot() -> Op:
    def run(r: Run) -> None:
        r.cache.update_snapshot(r.snapshot)
        assert_snapshot_matches_cache(r.cache, r.snapshot)

    return run


def same_node_info(want: NodeInfo, got: NodeInfo) -> bool:
    def fields(info: NodeInfo) -> tuple:
        return (
            info.node,
            [p.pod for p in info.pods],
            [p.pod for p in info.pods_with_affinity],
            [p.pod for p in info.pods_with_required_anti_affinity],
            info.requested,
            info.non_zero_requested,
            info.allocatable,
            info.used_ports,
            info.pvc_ref_counts,
            set(info.image_states),
            info.generation,
        )

    return fields(want) == fields(got)


def assert_snapshot_matches_cache(cache: Cache, snapshot: Snapshot) -> None:
    """Upstream's compareCacheWithNodeInfoSnapshot."""
    tree = cache._node_tree
    assert len(snapshot.node_info_map) == tree.num_nodes
    for name, item in cache._nodes.items():
        if item.info.node is None:
            assert name not in snapshot.node_info_map
        else:
            assert same_node_info(item.info, snapshot.node_info_map[name])

    expected_list = [snapshot.node_info_map[name] for name in tree.list()]
    assert len(snapshot.node_info_list) == tree.num_nodes
    assert all(a is b for a, b in zip(expected_list, snapshot.node_info_list, strict=True))
    expected_affinity = [n for n in expected_list if n.pods_with_affinity]
    assert all(
        a is b
        for a, b in zip(
            expected_affinity, snapshot.have_pods_with_affinity_node_info_list, strict=True
        )
    )
    for node_info in expected_list:
        assert set(node_info.pvc_ref_counts) <= snapshot.used_pvc_set


UPDATE_SNAPSHOT_CASES = [
    ("Empty cache", [], [], 0, set()),
    ("Single node", [add_node(1)], [1], 0, set()),
    (
        "Add node, remove it, add it again",
        [add_node(1), update_snapshot(), remove_node(1), add_node(1)],
        [1],
        0,
        set(),
    ),
    (
        "Add node and remove it in the same cycle, add it again",
        [add_node(1), update_snapshot(), add_node(2), remove_node(1)],
        [2],
        0,
        set(),
    ),
    (
        "Add a few nodes, and snapshot in the middle",
        [
            add_node(0),
            update_snapshot(),
            add_node(1),
            update_snapshot(),
            add_node(2),
            update_snapshot(),
            add_node(3),
        ],
        [3, 2, 1, 0],
        0,
        set(),
    ),
    (
        "Add a few nodes, and snapshot in the end",
        [add_node(0), add_node(2), add_node(5), add_node(6)],
        [6, 5, 2, 0],
        0,
        set(),
    ),
    (
        "Update some nodes",
        [add_node(0), add_node(1), add_node(5), update_snapshot(), update_node(1)],
        [1, 5, 0],
        0,
        set(),
    ),
    (
        "Add a few nodes, and remove all of them",
        [
            add_node(0),
            add_node(2),
            add_node(5),
            add_node(6),
            update_snapshot(),
            remove_node(0),
            remove_node(2),
            remove_node(5),
            remove_node(6),
        ],
        [],
        0,
        set(),
    ),
    (
        "Add a few nodes, and remove some of them",
        [
            add_node(0),
            add_node(2),
            add_node(5),
            add_node(6),
            update_snapshot(),
            remove_node(0),
            remove_node(6),
        ],
        [5, 2],
        0,
        set(),
    ),
    (
        "Add a few nodes, remove all of them, and add more",
        [
            add_node(2),
            add_node(5),
            add_node(6),
            update_snapshot(),
            remove_node(2),
            remove_node(5),
            remove_node(6),
            update_snapshot(),
            add_node(7),
            add_node(9),
        ],
        [9, 7],
        0,
        set(),
    ),
    (
        "Update nodes in particular order",
        [add_node(8), update_node(2), update_node(8), update_snapshot(), add_node(1)],
        [1, 8, 2],
        0,
        set(),
    ),
    (
        "Add some nodes and some pods",
        [add_node(0), add_node(2), add_node(8), update_snapshot(), add_pod(8), add_pod(2)],
        [2, 8, 0],
        0,
        set(),
    ),
    (
        "Updating a pod moves its node to the head",
        [add_node(0), add_pod(0), add_node(2), add_node(4), update_pod(0)],
        [0, 4, 2],
        0,
        set(),
    ),
    (
        "Add pod before its node",
        [add_node(0), add_pod(1), update_pod(1), add_node(1)],
        [1, 0],
        0,
        set(),
    ),
    (
        "Remove node before its pods",
        [
            add_node(0),
            add_node(1),
            add_pod(1),
            add_pod(11),
            update_snapshot(),
            remove_node(1),
            update_snapshot(),
            update_pod(1),
            update_pod(11),
            remove_pod(1),
            remove_pod(11),
        ],
        [0],
        0,
        set(),
    ),
    (
        "Add Pods with affinity",
        [add_node(0), add_pod_with_affinity(0), update_snapshot(), add_node(1)],
        [1, 0],
        1,
        set(),
    ),
    (
        "Add Pods with PVC",
        [add_node(0), add_pod_with_pvc(0, 0, 0), update_snapshot(), add_node(1)],
        [1, 0],
        0,
        {"test-ns/test-pvc0"},
    ),
    (
        "Add multiple nodes with pods with affinity",
        [
            add_node(0),
            add_pod_with_affinity(0),
            update_snapshot(),
            add_node(1),
            add_pod_with_affinity(1),
            update_snapshot(),
        ],
        [1, 0],
        2,
        set(),
    ),
    (
        "Add multiple nodes with pods with PVC",
        [
            add_node(0),
            add_pod_with_pvc(0, 0, 0),
            update_snapshot(),
            add_node(1),
            add_pod_with_pvc(1, 1, 1),
            update_snapshot(),
        ],
        [1, 0],
        0,
        {"test-ns/test-pvc0", "test-ns/test-pvc1"},
    ),
    (
        "Add then Remove pods with affinity",
        [
            add_node(0),
            add_node(1),
            add_pod_with_affinity(0),
            update_snapshot(),
            remove_pod_with_affinity(0),
            update_snapshot(),
        ],
        [0, 1],
        0,
        set(),
    ),
    (
        "Add then Remove pod with PVC",
        [
            add_node(0),
            add_pod_with_pvc(0, 0, 0),
            update_snapshot(),
            remove_pod_with_pvc(0, 0, 0),
            add_pod_with_pvc(2, 0, 2),
            update_snapshot(),
        ],
        [0],
        0,
        {"test-ns/test-pvc2"},
    ),
    (
        "Add then Remove pod with PVC and add same pod again",
        [
            add_node(0),
            add_pod_with_pvc(0, 0, 0),
            update_snapshot(),
            remove_pod_with_pvc(0, 0, 0),
            add_pod_with_pvc(0, 0, 0),
            update_snapshot(),
        ],
        [0],
        0,
        {"test-ns/test-pvc0"},
    ),
    (
        "Add and Remove multiple pods with PVC with same ref count length different content",
        [
            add_node(0),
            add_node(1),
            add_pod_with_pvc(0, 0, 0),
            add_pod_with_pvc(1, 1, 1),
            update_snapshot(),
            remove_pod_with_pvc(0, 0, 0),
            remove_pod_with_pvc(1, 1, 1),
            add_pod_with_pvc(2, 0, 2),
            add_pod_with_pvc(3, 1, 3),
            update_snapshot(),
        ],
        [1, 0],
        0,
        {"test-ns/test-pvc2", "test-ns/test-pvc3"},
    ),
    (
        "Add and Remove multiple pods with PVC",
        [
            add_node(0),
            add_node(1),
            add_pod_with_pvc(0, 0, 0),
            add_pod_with_pvc(1, 1, 1),
            add_pod_with_pvc(2, 0, 2),
            update_snapshot(),
            remove_pod_with_pvc(0, 0, 0),
            remove_pod_with_pvc(1, 1, 1),
            update_snapshot(),
            add_pod_with_pvc(0, 0, 0),
            update_snapshot(),
            add_pod_with_pvc(3, 1, 3),
            add_pod_with_pvc(4, 0, 0),
            add_pod_with_pvc(5, 1, 1),
            update_snapshot(),
            remove_pod_with_pvc(0, 0, 0),
            remove_pod_with_pvc(3, 1, 3),
            remove_pod_with_pvc(4, 0, 0),
            update_snapshot(),
        ],
        [0, 1],
        0,
        {"test-ns/test-pvc1", "test-ns/test-pvc2"},
    ),
    (
        "Assume and forget in cache, and in snapshot",
        [
            add_node(0),
            add_node(2),
            add_node(4),
            add_node(8),
            update_snapshot(),
            assume_pod(8),
            assume_pod_in_snapshot(4),
            assume_pod(0),
            forget_pod(0),
            assume_pod_in_snapshot(2),
            forget_pod_in_snapshot(4),
            update_snapshot(),
        ],
        [0, 8, 4, 2],
        0,
        set(),
    ),
    (
        "Assume and forget in cache, and in snapshot, with affinity",
        [
            add_node(0),
            add_node(2),
            add_node(4),
            add_node(8),
            update_snapshot(),
            assume_pod_with_affinity(8),
            assume_pod_with_affinity_in_snapshot(4),
            assume_pod_with_affinity(0),
            forget_pod_with_affinity(0),
            assume_pod_with_affinity_in_snapshot(2),
            forget_pod_with_affinity_in_snapshot(4),
            update_snapshot(),
        ],
        [0, 8, 4, 2],
        1,
        set(),
    ),
    (
        "Assume and forget in cache, and in snapshot, with PVC",
        [
            add_node(0),
            add_node(2),
            add_node(4),
            add_node(8),
            update_snapshot(),
            assume_pod_with_pvc(8, 8, 8),
            assume_pod_with_pvc_in_snapshot(4, 4, 4),
            assume_pod_with_pvc(0, 0, 0),
            forget_pod_with_pvc(0, 0, 0),
            assume_pod_with_pvc_in_snapshot(2, 2, 2),
            forget_pod_with_pvc_in_snapshot(4, 4, 4),
            update_snapshot(),
        ],
        [0, 8, 4, 2],
        0,
        {"test-ns/test-pvc8"},
    ),
]


@pytest.mark.parametrize(
    ("operations", "expected_order", "expected_with_affinity", "expected_used_pvcs"),
    [case[1:] for case in UPDATE_SNAPSHOT_CASES],
    ids=[case[0] for case in UPDATE_SNAPSHOT_CASES],
)
def test_it_keeps_the_snapshot_equal_to_the_cache(
    operations, expected_order, expected_with_affinity, expected_used_pvcs
):
    run = Run()
    for operation in operations:
        operation(run)

    # The most-recently-updated list, ghosts included (they have no node to name).
    infos = list(run.cache._node_infos_by_recency())
    assert len(infos) == run.cache.node_count() == len(expected_order)
    for info, i in zip(infos, expected_order, strict=True):
        if info.node is not None:
            assert info.node_name == NODES[i].name
    assert len(run.snapshot.have_pods_with_affinity_node_info_list) == expected_with_affinity
    assert run.snapshot.used_pvc_set == expected_used_pvcs

    run.cache.update_snapshot(run.snapshot)
    assert_snapshot_matches_cache(run.cache, run.snapshot)


def zoned_nodes():
    """node-0..1 in region-0/zone-0, node-2..7 in region-1/zone-1."""
    nodes = []
    for zone, count in enumerate([2, 6]):
        labels = {
            "topology.kubernetes.io/region": f"region-{zone}",
            "topology.kubernetes.io/zone": f"zone-{zone}",
        }
        nodes += [node(f"node-{len(nodes) + j}", labels=labels) for j in range(count)]
    return nodes


ZONED = zoned_nodes()


@pytest.mark.parametrize(
    ("steps", "expected"),
    [
        ([], []),
        ([0], ["node-0"]),
        ([0, "snapshot", 1], ["node-0", "node-1"]),
        ([2, 3, "snapshot", 4, 0], ["node-2", "node-0", "node-3", "node-4"]),
        (
            [2, 3, 4, 5, "snapshot", 6, 0],
            ["node-2", "node-0", "node-3", "node-4", "node-5", "node-6"],
        ),
        (
            [2, "snapshot", 3, 4, "snapshot", 5, 6, 0, 1],
            ["node-2", "node-0", "node-3", "node-1", "node-4", "node-5", "node-6"],
        ),
        (
            [2, 1, "snapshot", 3, 4, "snapshot", 5, 6, 0],
            ["node-2", "node-1", "node-3", "node-0", "node-4", "node-5", "node-6"],
        ),
    ],
    ids=[
        "Empty cache",
        "Single node",
        "Two nodes",
        "bug 91601, two nodes, update the snapshot and add two nodes in different zones",
        "bug 91601, 6 nodes, one in a different zone",
        "bug 91601, 7 nodes, two in a different zone",
        "bug 91601, 7 nodes, two in a different zone, different zone order",
    ],
)
def test_it_lists_snapshot_nodes_in_node_tree_order(steps, expected):
    cache, snapshot = Cache(), Snapshot()
    for step in steps:
        if step == "snapshot":
            cache._update_node_info_snapshot_list(snapshot, True)
            assert_snapshot_matches_cache(cache, snapshot)
            continue
        added = ZONED[step]
        cache.add_node(added)
        snapshot.node_info_map.setdefault(added.name, cache._nodes[added.name].info)

    cache._update_node_info_snapshot_list(snapshot, True)

    assert_snapshot_matches_cache(cache, snapshot)
    assert [info.node_name for info in snapshot.node_info_list] == expected


def three_node_run() -> Run:
    run = Run()
    for i in range(3):
        run.cache.add_node(NODES[i])
    run.cache.update_snapshot(run.snapshot)
    return run


def test_it_copies_only_the_node_infos_changed_since_the_last_refresh(monkeypatch):
    run = three_node_run()
    before = {name: (info, info.generation) for name, info in run.snapshot.node_info_map.items()}
    node_list = run.snapshot.node_info_list
    run.cache.add_pod(PODS[1])

    cloned = []
    original_clone = NodeInfo.clone

    def counting_clone(self: NodeInfo) -> NodeInfo:
        cloned.append(self.node_name)
        return original_clone(self)

    monkeypatch.setattr(NodeInfo, "clone", counting_clone)
    run.cache.update_snapshot(run.snapshot)

    assert cloned == ["test-node1"]
    for name, (info, generation) in before.items():
        assert run.snapshot.node_info_map[name] is info
        if name != "test-node1":
            assert info.generation == generation
    changed = run.snapshot.get("test-node1")
    assert (
        changed.generation == run.cache.get_node("test-node1").generation > before["test-node1"][1]
    )
    assert [p.pod for p in changed.pods] == [PODS[1]]
    assert run.snapshot.node_info_list is node_list
    assert run.snapshot.generation == changed.generation


def test_it_copies_nothing_when_nothing_changed(monkeypatch):
    run = three_node_run()
    generation = run.snapshot.generation
    monkeypatch.setattr(NodeInfo, "clone", lambda self: pytest.fail("nothing to copy"))
    run.cache.update_snapshot(run.snapshot)
    assert run.snapshot.generation == generation


def test_it_does_not_let_the_cycle_see_later_cache_changes():
    run = three_node_run()
    run.cache.add_pod(PODS[0])
    assert run.snapshot.get("test-node0").pods == []
    run.cache.update_snapshot(run.snapshot)
    assert [p.pod for p in run.snapshot.get("test-node0").pods] == [PODS[0]]


def test_it_rebuilds_the_node_list_when_a_node_is_added():
    run = three_node_run()
    old_list = run.snapshot.node_info_list
    run.cache.add_node(NODES[3])
    run.cache.update_snapshot(run.snapshot)
    assert run.snapshot.node_info_list is not old_list
    assert [n.node_name for n in run.snapshot.list()] == [f"test-node{i}" for i in range(4)]
    assert all(a is b for a, b in zip(old_list, run.snapshot.list()[:3], strict=False))


def test_it_drops_a_removed_node_but_keeps_its_ghost_out_of_the_snapshot():
    run = three_node_run()
    run.cache.add_pod(PODS[1])
    run.cache.remove_node(NODES[1])
    run.cache.update_snapshot(run.snapshot)
    assert [n.node_name for n in run.snapshot.list()] == ["test-node0", "test-node2"]
    assert "test-node1" not in run.snapshot.node_info_map
    with pytest.raises(NodeInfoNotFoundError) as raised:
        run.snapshot.get("test-node1")
    assert str(raised.value) == 'nodeinfo not found for node name "test-node1"'


@pytest.mark.parametrize(
    ("make_pod", "list_name"),
    [
        (pod_with_affinity, "have_pods_with_affinity_node_info_list"),
        (pod_with_anti_affinity, "have_pods_with_required_anti_affinity_node_info_list"),
    ],
    ids=["pods with affinity", "pods with required anti-affinity"],
)
def test_it_rebuilds_an_affinity_list_when_a_node_joins_or_leaves_it(make_pod, list_name):
    run = three_node_run()
    assert getattr(run.snapshot, list_name) == []
    with_terms = make_pod("with-terms", "test-node2")

    run.cache.add_pod(with_terms)
    run.cache.update_snapshot(run.snapshot)
    assert getattr(run.snapshot, list_name) == [run.snapshot.get("test-node2")]
    assert getattr(run.snapshot, list_name)[0] is run.snapshot.node_info_list[2]

    run.cache.remove_pod(with_terms)
    run.cache.update_snapshot(run.snapshot)
    assert getattr(run.snapshot, list_name) == []


def test_it_keeps_the_affinity_list_when_no_node_joins_or_leaves_it():
    run = three_node_run()
    run.cache.add_pod(PODS_WITH_AFFINITY[0])
    run.cache.update_snapshot(run.snapshot)
    affinity_list = run.snapshot.have_pods_with_affinity_node_info_list

    run.cache.add_pod(pod_with_affinity("second", "test-node0"))
    run.cache.update_snapshot(run.snapshot)

    assert run.snapshot.have_pods_with_affinity_node_info_list is affinity_list
    assert len(affinity_list[0].pods_with_affinity) == 2


def test_it_tracks_the_pvcs_used_by_scheduled_pods():
    run = three_node_run()
    run.cache.add_pod(pod_with_pvc(0, 0, 7))
    run.cache.update_snapshot(run.snapshot)
    assert run.snapshot.storage_infos().is_pvc_used_by_pods("test-ns/test-pvc7")
    assert not run.snapshot.storage_infos().is_pvc_used_by_pods("test-ns/test-pvc8")


def test_it_forgets_pods_assumed_only_in_the_snapshot_before_refreshing(caplog):
    run = three_node_run()
    run.snapshot.assume_pod(PodInfo(PODS[0]))
    assert len(run.snapshot.get("test-node0").pods) == 1

    run.cache.update_snapshot(run.snapshot)

    assert run.snapshot.assumed_pods == {}
    assert run.snapshot.get("test-node0").pods == []
    assert "Found assumed pods in the snapshot that were not forgotten" in caplog.text


def test_it_repairs_and_reports_a_snapshot_that_disagrees_with_the_node_tree():
    run = three_node_run()
    run.cache._node_tree.num_nodes += 1
    with pytest.raises(SnapshotInconsistentError) as raised:
        run.cache.update_snapshot(run.snapshot)
    assert str(raised.value) == (
        "snapshot state is not consistent, length of NodeInfoList=3 not equal to length of "
        "nodes in tree=4 , length of NodeInfoMap=3, length of nodes in cache=3, "
        "trying to recover"
    )
    assert len(run.snapshot.list()) == 3


def test_a_backup_takes_changes_in_copies_and_its_restore_brings_back_the_originals():
    """Workload-aware preemption takes victims out of the snapshot between these two."""
    run = three_node_run()
    run.cache.add_pod(PODS[0])
    run.cache.add_pod(PODS_WITH_AFFINITY[0])
    run.cache.update_snapshot(run.snapshot)
    snapshot = run.snapshot
    originals = list(snapshot.node_info_list)

    restore = snapshot.backup_snapshot()
    copy = snapshot.get("test-node0")
    assert copy is not originals[0]
    assert [n.node_name for n in snapshot.list()] == ["test-node0", "test-node1", "test-node2"]
    assert snapshot.have_pods_with_affinity_list() == [copy]
    copy.remove_pod(PODS[0])
    copy.remove_pod(PODS_WITH_AFFINITY[0])
    assert len(originals[0].pods) == 2

    restore()
    assert snapshot.list() == originals
    assert all(a is b for a, b in zip(snapshot.list(), originals, strict=True))
    assert [p.pod for p in snapshot.get("test-node0").pods] == [PODS[0], PODS_WITH_AFFINITY[0]]
    assert snapshot.have_pods_with_affinity_list() == [originals[0]]


def test_backups_do_not_stack():
    snapshot = three_node_run().snapshot
    restore = snapshot.backup_snapshot()
    with pytest.raises(CacheError, match=r"^cannot stack backups$"):
        snapshot.backup_snapshot()
    restore()
    snapshot.backup_snapshot()()
