"""DatabaseCluster stores objects as an API server does: versions, identity, refusals."""

from __future__ import annotations

import datetime as dt

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from framework.api.core import ObjectReference
from framework.api.errors import ObjectError
from framework.cluster.interface import NotFoundError
from playground.workspaces.cluster import AlreadyExistsError, ConflictError, DatabaseCluster
from playground.workspaces.models import ClusterObject, KubeEvent, ObjectChange
from tests.framework.builders import make_node, make_pod


def pod_manifest(name: str = "web", **spec) -> dict:
    return {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {"name": name},
        "spec": {"containers": [{"name": "c", "image": "nginx"}], **spec},
    }


def test_an_added_object_reads_back_with_the_change_id_as_its_resource_version(cluster):
    cluster.add(make_node("n1"))
    stored = cluster.add(make_pod("web", cpu="500m"))
    change = ObjectChange.objects.get(name="web")
    row = ClusterObject.objects.get(name="web")
    assert row.resource_version == change.id
    assert stored.metadata.resource_version == str(change.id)
    got = cluster.get("Pod", "web", "default")
    assert got.metadata.resource_version == str(change.id)
    assert str(got.spec.containers[0].resources.requests["cpu"]) == "500m"


def test_the_stored_manifest_spells_out_identity_as_the_api_server_would(cluster):
    cluster.add(pod_manifest("web"))
    metadata = ClusterObject.objects.get(name="web").manifest["metadata"]
    assert metadata["namespace"] == "default"
    assert metadata["uid"] == cluster.get("Pod", "web", "default").uid
    assert metadata["resourceVersion"] == str(ObjectChange.objects.get().id)
    assert dt.datetime.fromisoformat(metadata["creationTimestamp"]).tzinfo is not None


def test_a_missing_object_reads_as_none(cluster):
    assert cluster.get("Pod", "web", "default") is None
    assert cluster.get("Node", "n1") is None


def test_objects_are_listed_in_creation_order_per_kind_and_namespace(cluster):
    cluster.add({"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": "team"}})
    for name, namespace in (("b", "default"), ("a", "team"), ("c", "default")):
        cluster.add(make_pod(name, namespace))
    cluster.add(make_node("n1"))
    assert [p.key for p in cluster.list("Pod")] == ["default/b", "team/a", "default/c"]
    assert [p.name for p in cluster.list("Pod", "default")] == ["b", "c"]
    assert cluster.kinds() == ["Namespace", "Node", "Pod"]


def test_a_namespace_the_workspace_lacks_refuses_new_objects_but_not_from_a_real_cluster(
    cluster, workspace
):
    with pytest.raises(ObjectError, match='namespaces "team" not found'):
        cluster.add(make_pod("a", "team"))
    errors = cluster.admission_errors([make_pod("a", "team"), make_pod("b", "kube-system")])
    assert [str(e) for e in errors] == [
        'Pod "team/a": metadata.namespace: namespaces "team" not found'
    ]
    assert cluster.list("Pod") == []
    # A mirror or a replay writes what a real API server admitted, in its watch order.
    DatabaseCluster(workspace, from_api_server=True).add(make_pod("a", "team"))
    assert [p.key for p in cluster.list("Pod")] == ["team/a"]


def test_workspaces_do_not_see_each_others_objects(cluster, workspace, user):
    other = DatabaseCluster(type(workspace).objects.create(name="B", slug="b", owner=user))
    other.add(make_node("n1"))
    assert cluster.get("Node", "n1") is None
    assert cluster.list("Node") == []
    assert cluster.latest_change_id() == 0


def test_adding_an_existing_object_replaces_it_keeping_uid_creation_time_and_place(cluster):
    first = cluster.add(make_pod("web", uid="u-1"))
    cluster.add(make_pod("other"))
    created = ClusterObject.objects.get(name="web").manifest["metadata"]["creationTimestamp"]
    replaced = cluster.add(make_pod("web", cpu="2"))
    assert replaced.uid == first.uid == "u-1"
    assert int(replaced.metadata.resource_version) > int(first.metadata.resource_version)
    assert ClusterObject.objects.get(name="web").manifest["metadata"]["creationTimestamp"] == (
        created
    )
    assert [p.name for p in cluster.list("Pod")] == ["web", "other"]
    assert list(ObjectChange.objects.values_list("event_type", flat=True)) == [
        "ADDED",
        "ADDED",
        "MODIFIED",
    ]


def test_creating_an_existing_object_is_refused_with_the_api_server_text(cluster):
    cluster.create(make_pod("web"))
    with pytest.raises(AlreadyExistsError) as raised:
        cluster.create(make_pod("web"))
    assert str(raised.value) == 'pods "web" already exists'
    assert ObjectChange.objects.count() == 1


@pytest.mark.parametrize(
    ("manifest", "field"),
    [
        (pod_manifest(containers=[{"name": "c", "resources": {"requests": {"cpu": "x"}}}]), "cpu"),
        ({"apiVersion": "v1", "kind": "Pod", "metadata": {}}, "metadata.name"),
        ({"apiVersion": "v1", "kind": "Node", "metadata": {"name": "Node_1"}}, "metadata.name"),
        ({"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "a", "namespace": "A"}}, "ns"),
        ({"apiVersion": "v1", "kind": "Gadget", "metadata": {"name": "g"}}, "kind"),
    ],
    ids=[
        "an unparsable quantity",
        "a missing name",
        "a name that is no DNS subdomain",
        "a namespace that is no DNS label",
        "an unsupported kind",
    ],
)
def test_a_bad_manifest_raises_an_object_error_and_stores_nothing(cluster, manifest, field):
    with pytest.raises(ObjectError) as raised:
        cluster.add(manifest)
    message = str(raised.value)
    assert {"cpu": "cpu", "ns": "metadata.namespace"}.get(field, field) in message
    assert ClusterObject.objects.count() == 0
    assert ObjectChange.objects.count() == 0


def test_a_bad_name_is_reported_in_upstream_words(cluster):
    with pytest.raises(ObjectError) as raised:
        cluster.add({"apiVersion": "v1", "kind": "Node", "metadata": {"name": "Node_1"}})
    assert raised.value.owner == 'Node "Node_1"'
    assert raised.value.field == "metadata.name"
    assert raised.value.problem.startswith(
        'Invalid value: "Node_1": a lowercase RFC 1123 subdomain must consist of'
    )


def test_a_batch_with_one_bad_object_stores_nothing(cluster):
    with pytest.raises(ObjectError, match="no PriorityClass with name gold was found"):
        cluster.add_many([make_node("n1"), pod_manifest(priorityClassName="gold")])
    assert ClusterObject.objects.count() == 0
    assert ObjectChange.objects.count() == 0


def test_a_batch_naming_an_object_twice_is_refused(cluster):
    with pytest.raises(ObjectError, match='Node "n1": appears more than once'):
        cluster.add_many([make_node("n1"), make_node("n1")])


def test_a_batch_keeps_its_order_in_the_change_log(cluster):
    cluster.add(make_node("n2"))
    cluster.add_many([make_node("n1"), make_node("n2", cpu="8"), make_node("n3")])
    assert list(ObjectChange.objects.values_list("event_type", "name")) == [
        ("ADDED", "n2"),
        ("ADDED", "n1"),
        ("MODIFIED", "n2"),
        ("ADDED", "n3"),
    ]


def test_the_changes_of_a_run_of_replaced_objects_are_inserted_together(cluster):
    """A mirror's burst of bound pods is a run of replacements: one insert for their changes,
    in order, each with its own resourceVersion and the state it replaced."""
    cluster.add_many([make_pod(f"web-{i}") for i in range(3)])
    before = {o.name: o.manifest for o in ClusterObject.objects.filter(kind="Pod")}
    with CaptureQueriesContext(connection) as queries:
        stored = cluster.add_many([make_pod(f"web-{i}", cpu="1") for i in (2, 0, 1)])

    inserts = [q for q in queries if q["sql"].startswith('INSERT INTO "workspaces_objectchange"')]
    assert len(inserts) == 1
    changes = list(ObjectChange.objects.filter(event_type="MODIFIED").order_by("id"))
    assert [c.name for c in changes] == ["web-2", "web-0", "web-1"]
    assert [o.metadata.resource_version for o in stored] == [str(c.id) for c in changes]
    assert [c.old_manifest for c in changes] == [before[c.name] for c in changes]
    rows = {o.name: o for o in ClusterObject.objects.filter(kind="Pod")}
    assert all(rows[c.name].resource_version == c.id for c in changes)
    assert rows["web-0"].manifest["spec"]["containers"][0]["resources"]["requests"]["cpu"] == "1"


def test_updating_a_missing_object_is_not_found(cluster):
    with pytest.raises(NotFoundError, match='pods "web" not found'):
        cluster.update(make_pod("web"))


def test_an_update_from_an_outdated_copy_is_a_conflict(cluster):
    outdated = cluster.add(make_pod("web"))
    cluster.update(outdated)
    with pytest.raises(ConflictError, match='on pods "web": the object has been modified'):
        cluster.update(outdated)


def test_an_update_without_a_resource_version_is_unconditional(cluster):
    cluster.add(make_pod("web"))
    cluster.update(make_pod("web"))
    assert cluster.update(make_pod("web", cpu="1")).spec.containers[0].resources.requests


def test_an_update_naming_another_uid_is_refused(cluster):
    cluster.add(make_pod("web", uid="u-1"))
    with pytest.raises(ObjectError) as raised:
        cluster.update(make_pod("web", uid="u-2"))
    assert str(raised.value) == (
        'Pod "default/web": metadata.uid: Invalid value: "u-2": field is immutable'
    )


def test_annotations_the_engine_adds_in_place_are_stored(cluster):
    claim = cluster.add(
        {
            "apiVersion": "v1",
            "kind": "PersistentVolumeClaim",
            "metadata": {"name": "data"},
            "spec": {
                "accessModes": ["ReadWriteOnce"],
                "resources": {"requests": {"storage": "1Gi"}},
            },
        }
    ).deep_copy()
    claim.metadata.annotations["volume.kubernetes.io/selected-node"] = "n1"
    cluster.update(claim)
    assert cluster.get("PersistentVolumeClaim", "data", "default").metadata.annotations == {
        "volume.kubernetes.io/selected-node": "n1"
    }


def test_a_bound_claim_ref_is_stored(cluster):
    pv = cluster.add(
        {
            "apiVersion": "v1",
            "kind": "PersistentVolume",
            "metadata": {"name": "pv1"},
            "spec": {
                "capacity": {"storage": "1Gi"},
                "accessModes": ["ReadWriteOnce"],
                "csi": {"driver": "disk.csi.example.com", "volumeHandle": "v1"},
            },
        }
    ).deep_copy()
    pv.spec.claim_ref = ObjectReference("default", "data", "uid-1")
    cluster.update(pv)
    stored = ClusterObject.objects.get(name="pv1").manifest["spec"]["claimRef"]
    assert stored == {"namespace": "default", "name": "data", "uid": "uid-1"}
    assert cluster.get("PersistentVolume", "pv1").spec.claim_ref.uid == "uid-1"


def test_timestamps_read_by_a_yaml_loader_are_stored_as_text(cluster):
    manifest = pod_manifest("web")
    manifest["metadata"]["creationTimestamp"] = dt.datetime(2026, 1, 2, 3, 4, 5)
    cluster.add(manifest)
    stored = ClusterObject.objects.get(name="web").manifest["metadata"]["creationTimestamp"]
    assert stored == "2026-01-02T03:04:05Z"


def test_a_deleted_object_is_gone_and_its_last_state_is_in_the_log(cluster):
    pod = cluster.add(make_pod("web"))
    cluster.delete(pod)
    assert cluster.get("Pod", "web", "default") is None
    change = ObjectChange.objects.last()
    assert (change.event_type, change.new_manifest) == ("DELETED", None)
    assert change.old_manifest["metadata"]["resourceVersion"] == pod.metadata.resource_version
    with pytest.raises(NotFoundError, match='pods "web" not found'):
        cluster.delete(pod)


def test_objects_deleted_together_each_leave_their_last_state_in_the_log(cluster, monkeypatch):
    monkeypatch.setattr("playground.workspaces.cluster.DELETE_BATCH", 2)  # several statements
    pods = [cluster.add(make_pod(name)) for name in ("a", "b", "c", "keep")]
    node = cluster.add(make_node("a"))
    events = []
    cluster.watch(lambda event_type, old, new: events.append((event_type, old.name, new)))
    uids = [pod.metadata.uid for pod in pods[:3]] + [node.metadata.uid, "no-such-uid"]

    assert cluster.delete_many("Pod", uids) == 3

    assert [pod.name for pod in cluster.list("Pod")] == ["keep"]
    assert [n.name for n in cluster.list("Node")] == ["a"]  # another kind, same uid list
    assert events == [("DELETED", "a", None), ("DELETED", "b", None), ("DELETED", "c", None)]
    changes = ObjectChange.objects.filter(event_type="DELETED").order_by("id")
    assert [c.old_manifest["metadata"]["uid"] for c in changes] == uids[:3]


def test_pod_columns_follow_the_manifest(cluster):
    cluster.add(make_node("n1"))
    cluster.add(
        pod_manifest("web", nodeName="n1", priority=7, schedulerName="custom")
        | {"status": {"phase": "Running"}}
    )
    row = ClusterObject.objects.get(name="web")
    assert (row.node_name, row.priority, row.scheduler_name, row.phase) == (
        "n1",
        7,
        "custom",
        "Running",
    )
    node_row = ClusterObject.objects.get(name="n1")
    assert (node_row.node_name, node_row.priority) == ("", 0)


def test_a_pod_status_patch_sets_the_condition_and_nomination(cluster):
    cluster.add(make_pod("web"))
    condition = {"type": "PodScheduled", "status": "False", "reason": "Unschedulable"}
    cluster.update_pod_status("default", "web", condition, nominated_node_name="n2")
    pod = cluster.get("Pod", "web", "default")
    assert pod.status.nominated_node_name == "n2"
    assert [(c.type, c.status, c.reason) for c in pod.status.conditions] == [
        ("PodScheduled", "False", "Unschedulable")
    ]
    cluster.update_pod_status("default", "web", nominated_node_name="")
    assert cluster.get("Pod", "web", "default").status.nominated_node_name == ""


def test_a_status_patch_of_a_missing_pod_is_not_found(cluster):
    with pytest.raises(NotFoundError, match='pods "web" not found'):
        cluster.update_pod_status("default", "web", nominated_node_name="n1")


def test_events_are_recorded_for_the_workspace(cluster):
    cluster.record_event(
        {
            "regarding": {"kind": "Pod", "namespace": "default", "name": "web"},
            "type": "Normal",
            "reason": "Scheduled",
            "action": "Binding",
            "note": "Successfully assigned default/web to n1",
            "time": 0.0,
        }
    )
    event = KubeEvent.objects.get()
    assert (event.workspace_id, event.regarding_name, event.reason, event.note) == (
        cluster.workspace_id,
        "web",
        "Scheduled",
        "Successfully assigned default/web to n1",
    )


def test_reads_return_the_same_parsed_object_until_it_changes(cluster):
    cluster.add(make_node("n1"))
    first = cluster.get("Node", "n1")
    assert cluster.get("Node", "n1") is first
    assert cluster.list("Node")[0] is first
    cluster.add(make_node("n1", cpu="8"))
    assert cluster.get("Node", "n1") is not first


def test_a_manifest_update_is_checked_against_the_stored_object(cluster):
    cluster.add(make_pod("web", cpu="1"))
    stored = ClusterObject.objects.get(name="web")
    edited = {**stored.manifest, "spec": {**stored.manifest["spec"], "nodeName": "n9"}}
    with pytest.raises(ObjectError) as refused:
        cluster.update(edited)
    assert "spec: Forbidden: pod updates may not change fields other than" in str(refused.value)
    assert ClusterObject.objects.get(name="web").manifest == stored.manifest
    labelled = {
        **stored.manifest,
        "metadata": {**stored.manifest["metadata"], "labels": {"a": "b"}},
    }
    assert cluster.update(labelled).metadata.labels == {"a": "b"}


def test_objects_written_are_looked_up_by_their_whole_key(cluster):
    """Kind, namespace and name: the unique key's index finds each object (without the
    namespace, a pod's upsert read every pod of the workspace, 8 ms among 10,000)."""
    cluster.add_many([make_pod(f"web-{i}") for i in range(3)])
    with CaptureQueriesContext(connection) as queries:
        cluster.add_many([make_pod("web-0", cpu="1"), make_pod("web-3")])
        with cluster.binding_batch([("default", "web-1")]):
            pass
    lookups = [
        q["sql"]
        for q in queries
        if q["sql"].startswith("SELECT") and '"workspaces_clusterobject"."name" IN' in q["sql"]
    ]
    assert len(lookups) == 2
    assert all('"workspaces_clusterobject"."namespace" IN' in sql for sql in lookups)


def test_uids_are_read_per_namespace_by_the_whole_key(cluster):
    """What the mirror asks for each watch batch: each query names the namespace, so the
    unique key's index finds the rows (by kind and names alone, every pod of the workspace
    was read for each batch), and a name in another namespace is not taken for the key."""
    for namespace in ("other", "x"):
        cluster.add({"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": namespace}})
    stored = cluster.add_many(
        [make_pod("web-0"), make_pod("web-1"), make_pod("web-0", "other"), make_pod("db", "x")]
    )
    uid = {(o.namespace, o.name): o.uid for o in stored}
    keys = [("default", "web-0"), ("other", "web-0"), ("other", "web-1"), ("default", "web-1")]
    with CaptureQueriesContext(connection) as queries:
        found = cluster.uids("Pod", keys)
    assert found == {key: uid[key] for key in keys if key in uid}
    assert len(queries) == 2
    assert all('"workspaces_clusterobject"."namespace" = ' in q["sql"] for q in queries)
