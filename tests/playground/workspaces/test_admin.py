"""The admin changes cluster objects only through DatabaseCluster, as the playground does.

A pod deleted in the admin is logged for the scheduler like one deleted on its page; adding and
editing are left to the playground's YAML editor, which the admin links to; the change log the
scheduler follows cannot be edited by hand.
"""

import pytest
from django.contrib.auth import get_user_model

from playground.workspaces.models import ClusterObject, ObjectChange, Workspace
from tests.playground.scheduling.manifests import node_manifest, pod_manifest

ADMIN = "/admin/workspaces/clusterobject/"


@pytest.fixture
def admin_client(client, db):
    client.force_login(get_user_model().objects.create_superuser("root", password="x"))
    return client


@pytest.fixture
def pods(cluster):
    cluster.add(node_manifest("n1"))
    for name in ("a", "b", "c"):
        cluster.add(pod_manifest(name))
    return {row.name: row for row in ClusterObject.objects.filter(kind="Pod")}


def deletions():
    return list(
        ObjectChange.objects.filter(event_type="DELETED").values_list("kind", "namespace", "name")
    )


def test_deleting_an_object_in_the_admin_logs_the_deletion_for_the_scheduler(admin_client, pods):
    response = admin_client.post(f"{ADMIN}{pods['a'].pk}/delete/", {"post": "yes"})

    assert response.status_code == 302
    assert deletions() == [("Pod", "default", "a")]
    assert not ClusterObject.objects.filter(name="a").exists()


def test_the_bulk_delete_action_logs_every_deletion(admin_client, pods):
    selected = [pods["a"].pk, pods["c"].pk]
    response = admin_client.post(
        ADMIN, {"action": "delete_selected", "_selected_action": selected, "post": "yes"}
    )

    assert response.status_code == 302
    assert sorted(deletions()) == [("Pod", "default", "a"), ("Pod", "default", "c")]
    assert sorted(ClusterObject.objects.values_list("name", flat=True)) == ["b", "n1"]


def test_an_object_is_shown_read_only_with_a_link_to_its_yaml_editor(admin_client, workspace, pods):
    row = pods["b"]
    content = admin_client.get(f"{ADMIN}{row.pk}/change/").content.decode()

    assert f'<a href="/w/{workspace.slug}/objects/{row.pk}/">Edit Pod default/b' in content
    assert 'name="_save"' not in content
    assert admin_client.post(f"{ADMIN}{row.pk}/change/", {"name": "x"}).status_code == 403
    assert ClusterObject.objects.get(pk=row.pk).name == "b"


def test_objects_cannot_be_added_in_the_admin_and_the_list_says_where(admin_client, pods):
    assert admin_client.get(f"{ADMIN}add/").status_code == 403
    content = admin_client.get(ADMIN).content.decode()
    assert "Objects are added and edited in the playground" in content
    assert "/w/lab/objects/" in content


def test_the_change_log_cannot_be_changed_in_the_admin(admin_client, pods):
    change = ObjectChange.objects.first()
    url = f"/admin/workspaces/objectchange/{change.pk}/"
    assert admin_client.get(url + "change/").status_code == 200  # readable
    assert admin_client.post(url + "change/", {"name": "x"}).status_code == 403
    assert admin_client.post(url + "delete/", {"post": "yes"}).status_code == 403
    assert admin_client.get("/admin/workspaces/objectchange/add/").status_code == 403


@pytest.mark.parametrize("bulk", [False, True], ids=["one", "with the bulk action"])
def test_a_workspace_deleted_in_the_admin_has_its_scheduler_stopped_first(
    admin_client, workspace, monkeypatch, bulk
):
    stopped = []
    monkeypatch.setattr(
        "playground.scheduling.workspace_deletion.stop_scheduler",
        lambda workspace_id, timeout=None: stopped.append(workspace_id) or True,
    )
    if bulk:
        data = {"action": "delete_selected", "_selected_action": [workspace.pk], "post": "yes"}
        admin_client.post("/admin/workspaces/workspace/", data)
    else:
        admin_client.post(f"/admin/workspaces/workspace/{workspace.pk}/delete/", {"post": "yes"})

    assert stopped == [workspace.pk]
    assert not Workspace.objects.exists()
