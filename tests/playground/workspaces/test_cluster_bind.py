"""Binding through DatabaseCluster: the API server's Binding subresource, checks and texts."""

from __future__ import annotations

import pytest
from django.utils import timezone

from framework.cluster.interface import BindError
from playground.workspaces.cluster import Binding
from playground.workspaces.models import ClusterObject, KubeEvent
from tests.framework.builders import make_node, make_pod


@pytest.fixture
def node(cluster):
    return cluster.add(make_node("n1"))


def test_a_bind_sets_the_node_and_marks_the_pod_scheduled(cluster, node):
    pod = cluster.add(make_pod("web"))
    cluster.bind("default", "web", pod.uid, "n1")
    bound = cluster.get("Pod", "web", "default")
    assert bound.spec.node_name == "n1"
    condition = bound.status.condition("PodScheduled")
    assert (condition.status, condition.reason, condition.message) == ("True", "", "")
    assert condition.last_transition_time is not None
    assert ClusterObject.objects.get(name="web").node_name == "n1"


def test_a_bind_replaces_an_earlier_unschedulable_condition(cluster, node):
    pod = cluster.add(make_pod("web"))
    unschedulable = {"type": "PodScheduled", "status": "False", "reason": "Unschedulable"}
    cluster.update_pod_status("default", "web", unschedulable)
    cluster.bind("default", "web", pod.uid, "n1")
    conditions = cluster.get("Pod", "web", "default").status.conditions
    assert [(c.type, c.status, c.reason) for c in conditions] == [("PodScheduled", "True", "")]


def test_a_bind_without_a_uid_skips_the_precondition(cluster, node):
    cluster.add(make_pod("web", uid="u-1"))
    cluster.bind("default", "web", "", "n1")
    assert cluster.get("Pod", "web", "default").spec.node_name == "n1"


@pytest.mark.parametrize(
    ("pod", "uid", "message"),
    [
        (None, "u-1", 'pods "web" not found'),
        (
            make_pod("web", uid="u-2"),
            "u-1",
            'Operation cannot be fulfilled on pods/binding "web": the UID in the precondition '
            "(u-1) does not match the UID in record (u-2). The object might have been deleted "
            "and then recreated",
        ),
        (
            make_pod("web", uid="u-1", node_name="n2"),
            "u-1",
            'pod web is already assigned to node "n2"',
        ),
        (
            make_pod("web", uid="u-1", schedulingGates=[{"name": "wait"}]),
            "u-1",
            "pod web has non-empty .spec.schedulingGates",
        ),
    ],
    ids=[
        "a pod that does not exist",
        "a pod deleted and created again under the same name",
        "a pod already bound",
        "a pod with scheduling gates",
    ],
)
def test_a_refused_bind_raises_the_api_server_text_and_changes_nothing(
    cluster, node, pod, uid, message
):
    if pod is not None:
        cluster.add(pod)
    before = cluster.latest_change_id()
    with pytest.raises(BindError) as raised:
        cluster.bind("default", "web", uid, "n1")
    assert str(raised.value) == message
    assert cluster.latest_change_id() == before


def test_a_pod_being_deleted_cannot_be_bound(cluster, node):
    manifest = make_pod("web", uid="u-1").to_dict()
    manifest["metadata"]["deletionTimestamp"] = "2026-01-01T00:00:00Z"
    cluster.add(manifest)
    with pytest.raises(BindError) as raised:
        cluster.bind("default", "web", "u-1", "n1")
    assert str(raised.value) == "pod web is being deleted, cannot be assigned to a host"


# ----------------------------------------------------------------------------------------------
# Many binds in one transaction


def test_bind_many_answers_each_binding_as_bind_would(cluster, node):
    cluster.add(make_pod("fine", uid="u-fine"))
    cluster.add(make_pod("bound", uid="u-bound", node_name="n1"))
    cluster.add(make_pod("recreated", uid="u-new"))
    cluster.add(make_pod("gated", uid="u-gated", schedulingGates=[{"name": "wait"}]))
    cluster.add(make_pod("also-fine", uid="u-also"))
    bindings = [
        Binding("default", "fine", "u-fine", "n1"),
        Binding("default", "bound", "u-bound", "n1"),
        Binding("default", "gone", "u-gone", "n1"),
        Binding("default", "recreated", "u-old", "n1"),
        Binding("default", "gated", "u-gated", "n1"),
        Binding("default", "fine", "u-fine", "n2"),  # named twice: the first one wins
        Binding("default", "also-fine", "u-also", "n1"),
    ]

    refusals = cluster.bind_many(bindings)

    assert refusals == [
        "",
        'pod bound is already assigned to node "n1"',
        'pods "gone" not found',
        'Operation cannot be fulfilled on pods/binding "recreated": the UID in the precondition '
        "(u-old) does not match the UID in record (u-new). The object might have been deleted "
        "and then recreated",
        "pod gated has non-empty .spec.schedulingGates",
        'pod fine is already assigned to node "n1"',
        "",
    ]
    nodes = dict(ClusterObject.objects.filter(kind="Pod").values_list("name", "node_name"))
    assert nodes == {"fine": "n1", "bound": "n1", "recreated": "", "gated": "", "also-fine": "n1"}


def test_bind_many_logs_each_bind_as_a_change_carrying_its_resource_version(cluster, node):
    for name in ("a", "b"):
        cluster.add(make_pod(name, uid=f"u-{name}"))
    before, started = cluster.latest_change_id(), timezone.now()

    cluster.bind_many([Binding("default", n, f"u-{n}", "n1") for n in ("a", "b")])

    changes = cluster.changes_since(before)
    assert [
        (c.event_type, c.new.name, c.old.spec.node_name, c.new.spec.node_name) for c in changes
    ] == [
        ("MODIFIED", "a", "", "n1"),
        ("MODIFIED", "b", "", "n1"),
    ]
    for change in changes:
        stored = cluster.get("Pod", change.new.name, "default")
        assert stored.metadata.resource_version == str(change.id)
        assert stored.status.condition("PodScheduled").status == "True"
    assert all(row.updated >= started for row in ClusterObject.objects.filter(kind="Pod"))


def test_a_write_inside_a_binding_batch_comes_after_the_binds_before_it(cluster, node):
    cluster.add(make_pod("a", uid="u-a"))
    cluster.add(make_pod("b", uid="u-b"))
    before = cluster.latest_change_id()

    with cluster.binding_batch([("default", "a")]) as pods:
        assert pods["default", "a"].uid == "u-a"
        cluster.bind("default", "a", "u-a", "n1")
        cluster.update_pod_status("default", "b", nominated_node_name="n1")
        cluster.bind("default", "b", "u-b", "n1")  # not named up front: read when bound

    assert [(c.new.name, c.new.spec.node_name) for c in cluster.changes_since(before)] == [
        ("a", "n1"),
        ("b", ""),
        ("b", "n1"),
    ]


def test_a_binding_batch_that_raises_writes_nothing(cluster, node):
    cluster.add(make_pod("a", uid="u-a"))
    before = cluster.latest_change_id()

    with pytest.raises(RuntimeError), cluster.binding_batch([("default", "a")]):
        cluster.bind("default", "a", "u-a", "n1")
        cluster.record_event({"regarding": {"kind": "Pod", "name": "a"}, "reason": "Scheduled"})
        raise RuntimeError("the task died")

    assert cluster.latest_change_id() == before
    assert cluster.get("Pod", "a", "default").spec.node_name == ""
    assert not KubeEvent.objects.exists()


def test_events_recorded_in_a_binding_batch_are_stored_with_its_binds(cluster, node):
    cluster.add(make_pod("a", uid="u-a"))

    with cluster.binding_batch([("default", "a")]):
        cluster.bind("default", "a", "u-a", "n1")
        cluster.record_event({"regarding": {"kind": "Pod", "name": "a"}, "reason": "Scheduled"})
        assert not KubeEvent.objects.exists()

    assert list(KubeEvent.objects.values_list("regarding_name", "reason")) == [("a", "Scheduled")]


def test_a_pod_deleted_inside_a_binding_batch_cannot_be_bound_afterwards(cluster, node):
    pod = cluster.add(make_pod("a", uid="u-a"))

    with cluster.binding_batch([("default", "a")]):
        cluster.delete(pod)
        with pytest.raises(BindError, match='pods "a" not found'):
            cluster.bind("default", "a", "u-a", "n1")

    assert cluster.get("Pod", "a", "default") is None
