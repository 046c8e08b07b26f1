"""Bulk creation: N nodes or pods from one manifest, numbered, in chunks, with progress."""

from __future__ import annotations

import pytest

from playground.workspaces.importing import CHUNK_SIZE, Refused, bulk_create
from playground.workspaces.models import ClusterObject, ObjectChange

NODE_TEMPLATE = """
apiVersion: v1
kind: Node
metadata:
  name: worker
  uid: copied-from-somewhere
  labels: {topology.kubernetes.io/zone: a, kubernetes.io/hostname: worker}
status: {allocatable: {cpu: "8", memory: 32Gi, pods: "110"}}
"""
POD_TEMPLATE = {
    "apiVersion": "v1",
    "kind": "Pod",
    "metadata": {"name": "web", "namespace": "shop", "labels": {"app": "web"}},
    "spec": {"containers": [{"name": "c", "image": "nginx"}]},
}


@pytest.fixture(autouse=True)
def shop(cluster):
    """The pods' namespace (kube-apiserver refuses pods in a namespace it does not have)."""
    cluster.add({"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": "shop"}})


def test_copies_are_named_after_the_template_and_numbered(workspace, cluster):
    names = bulk_create(workspace, NODE_TEMPLATE, 3)
    assert names == ["worker-0", "worker-1", "worker-2"]
    assert [n.name for n in cluster.list("Node")] == names


def test_each_copy_is_an_object_of_its_own(workspace, cluster):
    bulk_create(workspace, NODE_TEMPLATE, 2)
    first, second = cluster.list("Node")
    assert first.uid != second.uid
    assert "copied-from-somewhere" not in (first.uid, second.uid)
    assert first.labels == {
        "topology.kubernetes.io/zone": "a",
        "kubernetes.io/hostname": "worker-0",
    }
    assert second.labels["kubernetes.io/hostname"] == "worker-1"


def test_pods_keep_their_namespace_and_labels(workspace, cluster):
    bulk_create(workspace, POD_TEMPLATE, 2)
    assert [(p.key, p.labels) for p in cluster.list("Pod")] == [
        ("shop/web-0", {"app": "web"}),
        ("shop/web-1", {"app": "web"}),
    ]


def test_a_second_run_continues_the_numbering(workspace):
    bulk_create(workspace, POD_TEMPLATE, 2)
    assert bulk_create(workspace, POD_TEMPLATE, 2) == ["web-2", "web-3"]


def test_progress_is_reported_after_each_chunk(workspace):
    reports = []
    bulk_create(workspace, POD_TEMPLATE, 5, on_progress=lambda *r: reports.append(r), chunk_size=2)
    assert reports == [(2, 5), (4, 5), (5, 5)]


def test_a_thousand_pods_are_written_in_a_few_statements_per_chunk(
    workspace, django_assert_max_num_queries
):
    with django_assert_max_num_queries(10 * 1000 // CHUNK_SIZE + 10):
        bulk_create(workspace, POD_TEMPLATE, 1000)
    assert ClusterObject.objects.filter(kind="Pod").count() == 1000
    assert ObjectChange.objects.filter(event_type="ADDED", kind="Pod").count() == 1000


@pytest.mark.parametrize(
    ("template", "count", "expected"),
    [
        (POD_TEMPLATE, 0, "bulk creation: count: must be between 1 and 10000"),
        (
            {**POD_TEMPLATE, "spec": {**POD_TEMPLATE["spec"], "priorityClassName": "gold"}},
            2,
            'Pod "shop/web-0": spec.priorityClassName: no PriorityClass with name gold was found',
        ),
        (
            {**POD_TEMPLATE, "metadata": {"name": "Web"}},
            2,
            'Pod "default/Web-0": metadata.name: Invalid value: "Web-0"',
        ),
        ("kind: Pod\n---\nkind: Pod\n", 2, "template: expected one object, found 2"),
        (
            {**POD_TEMPLATE, "spec": {"containers": "nginx"}},
            2,
            'Pod "shop/web": spec.containers: expected a list',
        ),
        (
            {**POD_TEMPLATE, "metadata": {"name": "web", "namespace": "nowhere"}},
            2,
            'Pod "nowhere/web-0": metadata.namespace: namespaces "nowhere" not found',
        ),
    ],
    ids=[
        "no copies",
        "a class that does not exist",
        "a name the API server refuses",
        "two objects instead of one",
        "a template that does not parse",
        "a namespace that does not exist",
    ],
)
def test_a_bad_request_is_refused_before_anything_is_written(workspace, template, count, expected):
    with pytest.raises(Refused) as raised:
        bulk_create(workspace, template, count)
    assert str(raised.value).startswith(expected)
    assert not ClusterObject.objects.exclude(kind="Namespace").exists()
