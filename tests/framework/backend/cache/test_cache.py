"""Cache: pod states (assumed, added, deleted), nodes, ghost nodes and image states.

Cases and expected values follow upstream's cache_test.go.
"""

from __future__ import annotations

import pytest

from framework.api.pod import PodCondition
from framework.api.resources import DEFAULT_MEMORY_REQUEST, DEFAULT_MILLI_CPU_REQUEST
from framework.backend.cache.cache import Cache
from framework.backend.cache.errors import CacheCorruptedError, CacheError
from framework.backend.cache.snapshot import Snapshot
from framework.interface.node_info import ImageStateSummary, Resource

from .helpers import (
    MB,
    aggregate,
    base_pod,
    expected_aggregate,
    host_ports,
    node,
    pod,
    resource,
)

TCP_80 = {"hostIP": "127.0.0.1", "hostPort": 80, "protocol": "TCP"}
TCP_8080 = {"hostIP": "127.0.0.1", "hostPort": 8080, "protocol": "TCP"}

ASSUME_PODS = [
    base_pod("node", "test-resource-request-and-port-0", "100m", "500", "", [TCP_80]),
    base_pod("node", "test-resource-request-and-port-1", "100m", "500", "", [TCP_80]),
    base_pod("node", "test-resource-request-and-port-2", "200m", "1Ki", "", [TCP_8080]),
    base_pod("node", "test-nonzero-request", "", "", "", [TCP_80]),
    base_pod("node", "test-extended-resource-1", "100m", "500", "example.com/foo:3", [TCP_80]),
    base_pod("node", "test-extended-resource-2", "200m", "1Ki", "example.com/foo:5", [TCP_8080]),
    base_pod("node", "test-extended-key", "100m", "500", "random-invalid-extended-key:100", [{}]),
]


def node_names_by_recency(cache: Cache) -> list[str]:
    return [info.node_name for info in cache._node_infos_by_recency()]


@pytest.mark.parametrize(
    ("pods", "expected"),
    [
        (
            [ASSUME_PODS[0]],
            expected_aggregate(
                resource(100, 500),
                resource(100, 500),
                [ASSUME_PODS[0]],
                host_ports(("TCP", "127.0.0.1", 80)),
            ),
        ),
        (
            [ASSUME_PODS[1], ASSUME_PODS[2]],
            expected_aggregate(
                resource(300, 1524),
                resource(300, 1524),
                [ASSUME_PODS[1], ASSUME_PODS[2]],
                host_ports(("TCP", "127.0.0.1", 80), ("TCP", "127.0.0.1", 8080)),
            ),
        ),
        (
            [ASSUME_PODS[3]],
            expected_aggregate(
                resource(0, 0),
                resource(DEFAULT_MILLI_CPU_REQUEST, DEFAULT_MEMORY_REQUEST),
                [ASSUME_PODS[3]],
                host_ports(("TCP", "127.0.0.1", 80)),
            ),
        ),
        (
            [ASSUME_PODS[4]],
            expected_aggregate(
                resource(100, 500, **{"example.com/foo": 3}),
                resource(100, 500),
                [ASSUME_PODS[4]],
                host_ports(("TCP", "127.0.0.1", 80)),
            ),
        ),
        (
            [ASSUME_PODS[4], ASSUME_PODS[5]],
            expected_aggregate(
                resource(300, 1524, **{"example.com/foo": 8}),
                resource(300, 1524),
                [ASSUME_PODS[4], ASSUME_PODS[5]],
                host_ports(("TCP", "127.0.0.1", 80), ("TCP", "127.0.0.1", 8080)),
            ),
        ),
        (
            [ASSUME_PODS[6]],
            expected_aggregate(
                resource(100, 500), resource(100, 500), [ASSUME_PODS[6]], host_ports()
            ),
        ),
    ],
    ids=[
        "assumed one pod with resource request and used ports",
        "node requested resource are equal to the sum of the assumed pods requested resource, "
        "node contains host ports defined by pods",
        "assumed pod without resource request",
        "assumed one pod with extended resource",
        "assumed two pods with extended resources",
        "assumed pod with random invalid extended resource key",
    ],
)
def test_it_counts_assumed_pods_on_their_node_until_forgotten(pods, expected):
    cache = Cache()
    for p in pods:
        cache.assume_pod(p)
        with pytest.raises(CacheError, match="is in the cache, so can't be assumed"):
            cache.assume_pod(p)
    assert aggregate(cache.get_node("node")) == expected

    for p in pods:
        cache.forget_pod(p)
        assert not cache.is_assumed_pod(p)
        with pytest.raises(CacheError, match="does not exist in scheduler cache"):
            cache.get_pod(p)


def test_it_names_the_pod_in_the_assume_error():
    cache = Cache()
    cache.assume_pod(ASSUME_PODS[0])
    with pytest.raises(CacheError) as raised:
        cache.assume_pod(ASSUME_PODS[0])
    assert str(raised.value) == (
        "pod test-resource-request-and-port-0"
        "(node_info_cache_test/test-resource-request-and-port-0) "
        "is in the cache, so can't be assumed"
    )


def test_it_confirms_an_assumed_pod_when_it_is_added():
    first = base_pod("node", "test-1", "100m", "500", "", [TCP_80])
    second = base_pod("node", "test-2", "200m", "1Ki", "", [TCP_8080])
    cache = Cache()
    cache.assume_pod(first)
    cache.assume_pod(second)

    cache.add_pod(first)
    with pytest.raises(CacheError, match="was already in added state"):
        cache.add_pod(first)
    assert not cache.is_assumed_pod(first)
    assert cache.is_assumed_pod(second)
    cache.forget_pod(second)

    assert aggregate(cache.get_node("node")) == expected_aggregate(
        resource(100, 500), resource(100, 500), [first], host_ports(("TCP", "127.0.0.1", 80))
    )


def test_it_refuses_to_forget_a_pod_that_was_added():
    added = base_pod("node", "test", "100m", "500")
    cache = Cache()
    cache.add_pod(added)
    with pytest.raises(CacheError, match=r"wasn't assumed so cannot be forgotten"):
        cache.forget_pod(added)
    assert cache.get_pod(added) is added


def test_it_refuses_to_forget_a_pod_assumed_on_another_node():
    assumed = base_pod("node-a", "test", "100m", "500")
    cache = Cache()
    cache.assume_pod(assumed)
    with pytest.raises(CacheError) as raised:
        cache.forget_pod(base_pod("node-b", "test", "100m", "500"))
    assert str(raised.value) == (
        "pod test(node_info_cache_test/test) was assumed on node-b but assigned to node-a"
    )
    assert cache.is_assumed_pod(assumed)


def test_it_dumps_copies_of_node_infos_and_the_assumed_pod_keys():
    first = base_pod("node", "test-1", "100m", "500", "", [TCP_80])
    second = base_pod("node", "test-2", "200m", "1Ki", "", [TCP_80])
    cache = Cache()
    cache.assume_pod(first)
    cache.assume_pod(second)
    cache.add_pod(first)

    dump = cache.dump()

    assert dump.assumed_pods == {"test-2"}
    assert set(dump.nodes) == {"node"}
    assert aggregate(dump.nodes["node"]) == aggregate(cache.get_node("node"))
    dump.nodes["node"].pods.clear()
    dump.assumed_pods.clear()
    assert len(cache.get_node("node").pods) == 2
    assert cache.is_assumed_pod(second)


def test_it_keeps_the_added_version_of_an_assumed_pod():
    assumed = base_pod("node1", "test-1", "100m", "500", "", [{"hostPort": 80}])
    added = base_pod("node1", "test-1", "100m", "500", "", [{"hostPort": 80}])
    added.status.conditions = [PodCondition(type="PodScheduled", status="True")]
    cache = Cache()
    cache.assume_pod(assumed)
    cache.add_pod(added)

    assert cache.get_pod(assumed) is added
    assert aggregate(cache.get_node("node1")) == expected_aggregate(
        resource(100, 500), resource(100, 500), [added], host_ports(("TCP", "0.0.0.0", 80))
    )


def test_it_moves_an_assumed_pod_to_the_node_it_was_added_on():
    assumed = base_pod("assumed-node-1", "test-1", "100m", "500", "", [{"hostPort": 80}])
    added = base_pod("actual-node", "test-1", "100m", "500", "", [{"hostPort": 80}])
    updated = base_pod("actual-node", "test-1", "200m", "500", "", [{"hostPort": 90}])
    cache = Cache()
    cache.assume_pod(assumed)
    cache.add_pod(added)
    cache.update_pod(added, updated)

    with pytest.raises(CacheError, match="node assumed-node-1 does not exist"):
        cache.get_node("assumed-node-1")
    assert aggregate(cache.get_node("actual-node")) == expected_aggregate(
        resource(200, 500), resource(200, 500), [updated], host_ports(("TCP", "0.0.0.0", 90))
    )
    assert not cache.is_assumed_pod(updated)


def test_it_replaces_an_added_pod_on_each_update():
    v1 = base_pod("node", "test", "100m", "500", "", [TCP_80])
    v2 = base_pod("node", "test", "200m", "1Ki", "", [TCP_8080])
    cache = Cache()
    cache.add_pod(v1)

    cache.update_pod(v1, v2)
    assert aggregate(cache.get_node("node")) == expected_aggregate(
        resource(200, 1024), resource(200, 1024), [v2], host_ports(("TCP", "127.0.0.1", 8080))
    )
    cache.update_pod(v2, v1)
    assert aggregate(cache.get_node("node")) == expected_aggregate(
        resource(100, 500), resource(100, 500), [v1], host_ports(("TCP", "127.0.0.1", 80))
    )


@pytest.mark.parametrize(
    "assume",
    [True, False],
    ids=[
        "an assumed pod is returned as assumed",
        "an added pod is returned in its updated version",
    ],
)
def test_it_returns_the_latest_version_of_a_pod(assume):
    v1 = base_pod("node", "test", "100m", "500", "", [TCP_80])
    v2 = base_pod("node", "test", "200m", "1Ki", "", [TCP_8080])
    cache = Cache()
    with pytest.raises(CacheError, match=r"pod test\(node_info_cache_test/test\) does not exist"):
        cache.get_pod(v2)
    with pytest.raises(CacheError, match="is not added to scheduler cache, so cannot be updated"):
        cache.update_pod(v1, v2)

    if assume:
        cache.assume_pod(v1)
        assert cache.get_pod(v1) is v1
    else:
        cache.add_pod(v1)
        cache.update_pod(v1, v2)
        assert cache.get_pod(v1) is v2


def test_it_refuses_to_update_an_assumed_pod():
    assumed = base_pod("node", "test", "100m", "500")
    cache = Cache()
    cache.assume_pod(assumed)
    with pytest.raises(CacheError, match=r"assumed pod test\(.*\) should not be updated"):
        cache.update_pod(assumed, base_pod("node", "test", "200m", "500"))


def test_it_reports_a_corrupted_cache_when_an_update_moves_a_pod_to_another_node():
    added = base_pod("node-a", "test", "100m", "500")
    cache = Cache()
    cache.add_pod(added)
    with pytest.raises(CacheCorruptedError, match="Pod updated on a different node"):
        cache.update_pod(added, base_pod("node-b", "test", "100m", "500"))


def test_it_counts_ephemeral_storage_and_default_requests():
    storage_pod = pod(
        "pod-with-ephemeral-storage",
        "node",
        containers=[
            {"name": "c", "image": "i", "resources": {"requests": {"ephemeral-storage": "500"}}}
        ],
    )
    cache = Cache()
    cache.add_pod(storage_pod)
    info = cache.get_node("node")
    assert info.requested == Resource(ephemeral_storage=500)
    assert info.non_zero_requested == resource(DEFAULT_MILLI_CPU_REQUEST, DEFAULT_MEMORY_REQUEST)

    cache.remove_pod(storage_pod)
    with pytest.raises(CacheError):
        cache.get_pod(storage_pod)


@pytest.mark.parametrize("assume", [False, True], ids=["bound", "assumed"])
def test_it_removes_a_pod_and_moves_its_node_to_the_head(assume):
    removed = base_pod("node-1", "test", "100m", "500", "", [TCP_80])
    cache = Cache()
    # Pods may arrive before their node.
    if assume:
        cache.assume_pod(removed)
    else:
        cache.add_pod(removed)
    assert aggregate(cache.get_node("node-1")) == expected_aggregate(
        resource(100, 500), resource(100, 500), [removed], host_ports(("TCP", "127.0.0.1", 80))
    )
    cache.add_node(node("node-1"))
    cache.add_node(node("node-2"))

    cache.remove_pod(removed)

    with pytest.raises(CacheError):
        cache.get_pod(removed)
    with pytest.raises(CacheError, match="is not found in scheduler cache, so cannot be removed"):
        cache.remove_pod(removed)
    assert node_names_by_recency(cache)[0] == "node-1"


def test_it_reports_a_corrupted_cache_when_a_pod_is_removed_from_another_node():
    added = base_pod("node-a", "test", "100m", "500")
    cache = Cache()
    cache.add_pod(added)
    with pytest.raises(CacheCorruptedError):
        cache.remove_pod(base_pod("node-b", "test", "100m", "500"))


def test_it_removes_a_pod_whose_delete_event_lost_its_node_name():
    added = base_pod("node-a", "test", "100m", "500")
    cache = Cache()
    cache.add_pod(added)
    cache.remove_pod(base_pod("", "test", "100m", "500"))
    assert cache.pod_count() == 0


def test_it_treats_forgetting_an_unknown_pod_as_done():
    assumed = base_pod("node", "test", "100m", "500", "", [TCP_80])
    cache = Cache()
    cache.assume_pod(assumed)
    assert cache.is_assumed_pod(assumed)
    assert cache.get_pod(assumed).namespace == assumed.namespace

    cache.forget_pod(assumed)
    assert not cache.is_assumed_pod(assumed)
    cache.forget_pod(assumed)


def test_it_never_expires_an_assumed_pod():
    # v1.36 has no assumed-pod TTL: only add_pod or forget_pod end the assumed state.
    assumed = base_pod("node", "test", "100m", "500")
    cache = Cache()
    cache.assume_pod(assumed)
    cache.update_snapshot(Snapshot())
    assert cache.is_assumed_pod(assumed)
    assert not hasattr(cache, "cleanup_assumed_pods")


def test_it_rejects_a_pod_without_uid():
    nameless = base_pod("node", "test", "100m", "500")
    nameless.metadata.uid = ""
    with pytest.raises(CacheError, match="cannot get cache key for pod with empty UID"):
        Cache().assume_pod(nameless)


RESOURCES_1 = {"cpu": "1000m", "memory": "100m", "example.com/foo": "1"}
RESOURCES_2 = {"cpu": "500m", "memory": "50m", "example.com/foo": "2"}
IMAGES_1 = {
    "gcr.io/80:latest": 80 * MB,
    "gcr.io/80:v1": 80 * MB,
    "gcr.io/300:latest": 300 * MB,
    "gcr.io/300:v1": 300 * MB,
}
IMAGES_2 = {
    "gcr.io/600:latest": 600 * MB,
    "gcr.io/80:latest": 80 * MB,
    "gcr.io/900:latest": 900 * MB,
}


def operator_nodes(count: int):
    specs = [(RESOURCES_1, IMAGES_1), (RESOURCES_2, IMAGES_2)]
    return [
        node(f"test-node-{i + 1}", allocatable=specs[i % 2][0], images=specs[i % 2][1])
        for i in range(count)
    ]


def half_cpu_pod(name: str, ports: list[dict] | None = None):
    container = {
        "name": "c",
        "image": "i",
        "resources": {"requests": {"cpu": "500m", "memory": "50m"}},
        "ports": ports or [],
    }
    return pod(name, "test-node-1", containers=[container])


@pytest.mark.parametrize(
    ("nodes", "pods"),
    [
        (
            operator_nodes(4),
            [half_cpu_pod("pod1", [{"name": "http", "hostPort": 80, "containerPort": 80}])],
        ),
        (operator_nodes(3), [half_cpu_pod("pod1"), half_cpu_pod("pod2")]),
    ],
    ids=["operate the node with one pod", "operate the node with two pods"],
)
def test_it_adds_updates_and_removes_nodes(nodes, pods):
    cache = Cache()
    for n in nodes:
        cache.add_node(n)
    for p in pods:
        cache.add_pod(p)
    first = nodes[0]

    # Step 1: the node is cached with its pods, allocatable and shared image states.
    info = cache.get_node(first.name)
    assert info.node is first
    assert [p.pod for p in info.pods] == pods
    assert info.allocatable.milli_cpu == 1000
    assert info.image_states["gcr.io/80:latest"] == ImageStateSummary(80 * MB, len(nodes))
    assert info.image_states["gcr.io/300:latest"].num_nodes == (len(nodes) + 1) // 2
    assert cache._node_tree.num_nodes == len(nodes)

    # Step 2: a snapshot holds every node, with the same image summaries.
    snapshot = Snapshot()
    cache.update_snapshot(snapshot)
    assert len(snapshot.node_info_map) == len(nodes)
    assert snapshot.get(first.name).image_states == info.image_states

    # Step 3: updating the node bumps its generation.
    generation = cache.get_node(first.name).generation
    updated = node(first.name, allocatable={**RESOURCES_1, "memory": "50m"}, images=IMAGES_1)
    cache.update_node(first, updated)
    info = cache.get_node(first.name)
    assert info.generation > generation
    assert info.node is updated
    assert info.image_states["gcr.io/80:latest"].num_nodes == len(nodes)
    assert cache._node_tree.num_nodes == len(nodes)

    # Step 4: the node can be removed while it still has pods; a ghost stays.
    cache.remove_node(updated)
    assert cache.get_node(first.name).node is None
    # The ghost is still cached, so the second removal fails in the node tree.
    with pytest.raises(CacheError, match=f'node "{first.name}" in group "" was not found'):
        cache.remove_node(updated)
    assert cache._node_tree.num_nodes == len(nodes) - 1
    assert len(cache._node_tree.list()) == len(nodes) - 1
    images_of_2 = cache.get_node("test-node-2").image_states
    assert images_of_2["gcr.io/80:latest"].num_nodes == len(nodes) - 1
    for p in pods:
        assert cache.get_pod(p) is p

    # Step 5: the pods of the removed node can still be removed; the ghost then goes.
    for p in pods:
        cache.remove_pod(p)
        with pytest.raises(CacheError):
            cache.get_pod(p)
    with pytest.raises(CacheError, match="does not exist in scheduler cache"):
        cache.get_node(first.name)
    assert cache.node_count() == len(nodes) - 1


def test_it_forgets_an_image_once_no_node_has_it():
    cache = Cache()
    only_here = node("n1", images={"gcr.io/only:v1": 10 * MB, "gcr.io/shared:v1": 20 * MB})
    cache.add_node(only_here)
    cache.add_node(node("n2", images={"gcr.io/shared:v1": 20 * MB}))
    assert set(cache._image_states) == {"gcr.io/only:v1", "gcr.io/shared:v1"}

    cache.remove_node(only_here)

    assert set(cache._image_states) == {"gcr.io/shared:v1"}
    assert cache._image_states["gcr.io/shared:v1"].nodes == {"n2"}
    assert cache.get_node("n2").image_states["gcr.io/shared:v1"].num_nodes == 1


def test_it_drops_a_node_without_pods_at_once():
    cache = Cache()
    gone = node("gone")
    cache.add_node(gone)
    cache.remove_node(gone)
    assert cache.node_count() == 0
    assert node_names_by_recency(cache) == []


def test_it_revives_a_ghost_node_when_the_node_is_added_back():
    cache = Cache()
    n1 = node("n1")
    cache.add_node(n1)
    running = base_pod("n1", "running", "100m", "500")
    cache.add_pod(running)
    cache.remove_node(n1)
    snapshot = Snapshot()
    cache.update_snapshot(snapshot)
    assert snapshot.list() == []

    cache.add_node(n1)
    cache.update_snapshot(snapshot)

    assert [p.pod for p in snapshot.get("n1").pods] == [running]


def test_it_counts_nodes_and_pods_including_ghosts():
    cache = Cache()
    n1, n2 = node("n1"), node("n2")
    cache.add_node(n1)
    cache.add_node(n2)
    cache.add_pod(base_pod("n1", "a", "100m", "500"))
    cache.assume_pod(base_pod("n1", "b", "100m", "500"))
    cache.add_pod(base_pod("n3", "c", "100m", "500"))
    cache.remove_node(n1)
    assert cache.node_count() == 3
    assert cache.pod_count() == 3


def test_it_returns_copies_from_add_and_update_node():
    cache = Cache()
    n1 = node("n1")
    added = cache.add_node(n1)
    added.pods.append(None)  # type: ignore[arg-type]
    updated = cache.update_node(n1, node("n1", labels={"a": "b"}))
    assert updated.pods == []
    assert updated.node.labels == {"a": "b"}


def test_it_adds_an_unknown_node_on_update():
    cache = Cache()
    zoned = node("n1", labels={"topology.kubernetes.io/zone": "z1"})
    cache.update_node(None, zoned)
    assert cache._node_tree.list() == ["n1"]
    assert cache.get_node("n1").node is zoned
