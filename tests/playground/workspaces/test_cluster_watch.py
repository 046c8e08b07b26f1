"""Following a DatabaseCluster: the change log, watch events, and parity with InMemoryCluster."""

from __future__ import annotations

import threading

import pytest

from framework.cluster.memory import InMemoryCluster
from playground.workspaces.cluster import DatabaseCluster
from tests.framework.builders import make_node, make_pod


class Events(list):
    """A watch handler that keeps (event type, key, old node, new node, new version)."""

    def __call__(self, event_type, old, new) -> None:
        obj = new if new is not None else old
        self.append(
            (
                event_type,
                f"{obj.kind} {obj.key}",
                _node_of(old),
                _node_of(new),
            )
        )


def _node_of(obj) -> str | None:
    if obj is None:
        return None
    return obj.spec.node_name if obj.kind == "Pod" else ""


def a_day_in_the_cluster(cluster) -> None:
    """Writes the scheduler and a user make, in an order that exercises every event type."""
    cluster.add(make_node("n1"))
    pod = cluster.add(make_pod("web", uid="u-1"))
    cluster.update_pod_status("default", "web", {"type": "PodScheduled", "status": "False"})
    cluster.bind("default", "web", pod.uid, "n1")
    cluster.add(make_node("n1", cpu="8"))
    cluster.delete(cluster.get("Pod", "web", "default"))


def test_watchers_see_the_same_events_as_on_the_in_memory_cluster(cluster):
    expected, got = Events(), Events()
    memory = InMemoryCluster()
    memory.watch(expected)
    cluster.watch(got)
    a_day_in_the_cluster(memory)
    a_day_in_the_cluster(cluster)
    assert got == expected
    assert [e[0] for e in got] == ["ADDED", "ADDED", "MODIFIED", "MODIFIED", "MODIFIED", "DELETED"]


def test_each_event_carries_the_previous_version_as_old(cluster):
    seen = []
    cluster.watch(lambda event_type, old, new: seen.append((old, new)))
    cluster.add(make_node("n1"))
    cluster.add(make_node("n1", cpu="8"))
    (_, added), (old, new) = seen
    assert old.metadata.resource_version == added.metadata.resource_version
    assert int(new.metadata.resource_version) > int(old.metadata.resource_version)
    assert str(old.status.allocatable["cpu"]) == "4"
    assert str(new.status.allocatable["cpu"]) == "8"


def test_resource_versions_increase_with_every_write(cluster):
    versions = []
    cluster.watch(lambda event_type, old, new: versions.append(int(new.metadata.resource_version)))
    cluster.add(make_node("n1"))
    pod = cluster.add(make_pod("web"))
    cluster.update_pod_status("default", "web", nominated_node_name="n1")
    cluster.bind("default", "web", pod.uid, "n1")
    assert versions == sorted(versions)
    assert len(set(versions)) == 4


def test_changes_made_elsewhere_arrive_at_the_next_dispatch_in_order(workspace, cluster):
    events = Events()
    cluster.watch(events)
    elsewhere = DatabaseCluster(workspace)
    elsewhere.add(make_node("n1"))
    elsewhere.add(make_pod("web"))
    assert events == []
    assert cluster.dispatch_changes() == 2
    assert events == [("ADDED", "Node n1", None, ""), ("ADDED", "Pod default/web", None, "")]
    assert cluster.dispatch_changes() == 0


def test_a_watch_starts_after_the_changes_made_before_it(cluster):
    cluster.add(make_node("n1"))
    events = Events()
    cluster.watch(events)
    cluster.add(make_node("n2"))
    assert events == [("ADDED", "Node n2", None, "")]


def test_a_watch_inside_a_consistent_read_starts_where_the_read_did(workspace, cluster):
    cluster.add(make_node("n1"))
    events = Events()
    with cluster.consistent_read() as change_id:
        assert change_id == cluster.latest_change_id()
        assert [n.name for n in cluster.list("Node")] == ["n1"]
        cluster.watch(events)
    DatabaseCluster(workspace).add(make_node("n2"))
    cluster.dispatch_changes()
    assert events == [("ADDED", "Node n2", None, "")]


def test_a_handler_that_writes_sees_its_change_after_the_ones_before_it(workspace, cluster):
    order = []

    def handler(event_type, old, new):
        order.append(new.name)
        if new.name == "n1":
            cluster.add(make_node("n1-echo"))

    cluster.watch(handler)
    elsewhere = DatabaseCluster(workspace)
    elsewhere.add(make_node("n1"))
    elsewhere.add(make_node("n2"))
    cluster.dispatch_changes()
    assert order == ["n1", "n2", "n1-echo"]


def test_the_change_log_lists_changes_after_an_id_with_both_versions(cluster):
    cluster.add(make_node("n1"))
    start = cluster.latest_change_id()
    cluster.add(make_node("n1", cpu="8"))
    cluster.delete(cluster.get("Node", "n1"))
    changes = cluster.changes_since(start)
    assert [(c.event_type, c.old is not None, c.new is not None) for c in changes] == [
        ("MODIFIED", True, True),
        ("DELETED", True, False),
    ]
    assert changes[0].id == int(changes[0].new.metadata.resource_version)
    assert changes[1].old is changes[0].new
    assert [c.id for c in cluster.changes_since(start, limit=1)] == [changes[0].id]


@pytest.mark.parametrize("limit", [None, 1], ids=["all at once", "one at a time"])
def test_following_the_log_by_id_replays_every_change_once(cluster, limit):
    for index in range(3):
        cluster.add(make_node(f"n{index}"))
    seen, position = [], 0
    while changes := cluster.changes_since(position, limit):
        seen.extend(c.new.name for c in changes)
        position = changes[-1].id
    assert seen == ["n0", "n1", "n2"]


@pytest.mark.django_db(transaction=True)
def test_writers_wait_while_a_consistent_read_is_open(workspace):
    from django.db import connection

    written = threading.Event()

    def write() -> None:
        try:
            DatabaseCluster(workspace).add(make_node("n1"))
            written.set()
        finally:
            connection.close()

    reader = DatabaseCluster(workspace)
    writer = threading.Thread(target=write)
    with reader.consistent_read() as change_id:
        writer.start()
        assert not written.wait(0.5)
        assert reader.list("Node") == []
    writer.join(timeout=10)
    assert written.is_set()
    assert reader.latest_change_id() > change_id
