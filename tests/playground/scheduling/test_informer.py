"""The service's cluster reads from memory, kept current by the change log like an informer."""

from __future__ import annotations

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from playground.scheduling.informer import InformerCluster
from playground.workspaces.cluster import DatabaseCluster
from tests.playground.scheduling.manifests import node_manifest, pod_manifest

pytestmark = pytest.mark.django_db


@pytest.fixture
def informer(workspace, cluster):
    cluster.add(node_manifest("n1"))
    cluster.add(pod_manifest("web"))
    informer = InformerCluster(workspace.pk)
    with informer.consistent_read():
        informer.sync()
    return informer


def test_reads_after_the_sync_ask_nothing_of_the_database(informer):
    with CaptureQueriesContext(connection) as queries:
        assert informer.get("Node", "n1").name == "n1"
        assert [p.name for p in informer.list("Pod", "default")] == ["web"]
        assert informer.list("Pod", "elsewhere") == []
        assert informer.get("Namespace", "default") is None
        assert informer.kinds() == ["Node", "Pod"]
    assert len(queries) == 0


def test_changes_made_elsewhere_are_seen_once_dispatched(informer, workspace):
    other = DatabaseCluster(workspace)
    other.add(node_manifest("n2"))
    other.delete(other.get("Pod", "web", "default"))
    assert informer.get("Node", "n2") is None  # not yet: like an informer, it lags the store

    informer.dispatch_changes()

    assert informer.get("Node", "n2").name == "n2"
    assert informer.get("Pod", "web", "default") is None


def test_its_own_writes_are_seen_at_once(informer):
    informer.update_pod_status("default", "web", nominated_node_name="n1")

    assert informer.get("Pod", "web", "default").status.nominated_node_name == "n1"


def test_pods_it_deletes_are_reported_as_victims(workspace, cluster):
    cluster.add(pod_manifest("victim", node_name="n1"))
    deleted = []
    informer = InformerCluster(workspace.pk, on_pod_deleted=deleted.append)
    with informer.consistent_read():
        informer.sync()

    informer.delete(informer.get("Pod", "victim", "default"))

    assert [pod.name for pod in deleted] == ["victim"]
    assert informer.get("Pod", "victim", "default") is None
