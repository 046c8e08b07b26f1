"""Binding through DatabaseCluster: the API server's Binding subresource, checks and texts."""

from __future__ import annotations

import pytest

from framework.cluster.interface import BindError
from playground.workspaces.models import ClusterObject
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
