"""The workspace list and a workspace's overview."""

import pytest
from django.contrib.auth import get_user_model

from playground.workspaces.models import ClusterObject, Workspace
from tests.playground.front.rows import pod, store


def test_the_list_shows_owned_and_shared_workspaces_only(logged_in, user, stranger):
    Workspace.objects.create(name="Mine", slug="mine", owner=user)
    shared = Workspace.objects.create(name="Shared", slug="shared", owner=stranger)
    shared.members.add(user)
    Workspace.objects.create(name="Private", slug="private", owner=stranger)
    content = logged_in.get("/w/").content.decode()
    assert "Mine" in content
    assert "Shared" in content
    assert "Private" not in content


def test_a_superuser_sees_every_workspace(client, stranger):
    Workspace.objects.create(name="Private", slug="private", owner=stranger)
    admin = get_user_model().objects.create_superuser("root", password="x")
    client.force_login(admin)
    assert "Private" in client.get("/w/").content.decode()


def test_the_overview_counts_objects_and_pods(logged_in, workspace):
    store(workspace, pod("a", nodeName="n1"))
    store(workspace, pod("b"))
    response = logged_in.get("/w/lab/")
    assert response.status_code == 200
    content = response.content.decode()
    assert "<h1>Lab</h1>" in content
    assert "bound pods" in content and "pending pods" in content


def test_the_overview_answers_htmx_with_its_summary_only(htmx, workspace):
    response = htmx.get("/w/lab/")
    content = response.content.decode()
    assert content.lstrip().startswith('<div id="overview-summary"')
    assert "<html" not in content
    assert "HX-Request" in response["Vary"]


@pytest.mark.parametrize("url", ["/w/", "/w/lab/"], ids=["the list", "an overview"])
def test_anonymous_visitors_are_sent_to_log_in(client, workspace, url):
    response = client.get(url)
    assert response.status_code == 302
    assert response["Location"].startswith("/login/")


def test_a_workspace_of_someone_else_is_not_found(client, stranger, workspace):
    client.force_login(stranger)
    assert client.get("/w/lab/").status_code == 404


def test_a_member_may_open_the_workspace(client, stranger, workspace):
    workspace.members.add(stranger)
    client.force_login(stranger)
    assert client.get("/w/lab/").status_code == 200


def test_opening_a_workspace_starts_its_scheduler_if_none_runs(logged_in, workspace, woken):
    logged_in.get("/w/lab/")
    assert woken == [workspace]


def test_creating_a_workspace_gives_it_the_default_configuration(logged_in, user):
    response = logged_in.post("/w/", {"name": "My Lab", "description": "tests"})
    assert response.status_code == 302
    workspace = Workspace.objects.get(slug="my-lab")
    assert response["Location"] == "/w/my-lab/"
    assert workspace.owner == user
    assert workspace.current_configuration().revision == 1


def test_a_workspace_needs_a_name(logged_in, user):
    response = logged_in.post("/w/", {"name": ""})
    assert response.status_code == 422
    assert "Name: This field is required." in response.content.decode()
    assert not Workspace.objects.exists()


def test_creating_a_workspace_needs_the_csrf_token(user):
    from django.test import Client

    strict = Client(enforce_csrf_checks=True)
    strict.force_login(user)
    assert strict.post("/w/", {"name": "X"}).status_code == 403


# ----------------------------------------------------------------------------------------------
# Deleting a workspace


def test_the_overview_of_ones_own_workspace_offers_to_delete_it(logged_in, workspace):
    content = logged_in.get("/w/lab/").content.decode()
    assert 'href="/w/lab/delete/">Delete workspace…</a>' in content


def test_deleting_asks_to_confirm_and_says_what_goes(logged_in, workspace):
    store(workspace, pod("a"))
    response = logged_in.get("/w/lab/delete/")
    content = response.content.decode()
    assert response.status_code == 200
    assert "<h1>Delete workspace Lab?</h1>" in content
    assert "1 cluster object, 0 scheduling attempts, 0 configuration revisions" in content
    assert '<button class="danger">Delete workspace Lab</button>' in content
    assert Workspace.objects.filter(slug="lab").exists()


def test_confirming_deletes_the_workspace_and_everything_in_it(logged_in, workspace):
    store(workspace, pod("a"))
    response = logged_in.post("/w/lab/delete/")
    assert response.status_code == 302
    assert response["Location"] == "/w/"
    assert not Workspace.objects.filter(slug="lab").exists()
    assert not ClusterObject.objects.exists()
    assert "Deleted workspace Lab." in logged_in.get("/w/").content.decode()


def test_deleting_stops_the_scheduler_first(logged_in, workspace, monkeypatch):
    seen = []

    def stop(workspace_id, timeout=None):
        seen.append(Workspace.objects.filter(pk=workspace_id).exists())
        return True

    monkeypatch.setattr("playground.scheduling.workspace_deletion.stop_scheduler", stop)
    logged_in.post("/w/lab/delete/")
    assert seen == [True]  # asked to stop while the workspace was still there


def test_only_the_owner_may_delete_a_workspace(client, stranger, workspace):
    workspace.members.add(stranger)
    client.force_login(stranger)
    assert "Delete workspace" not in client.get("/w/lab/").content.decode()
    response = client.post("/w/lab/delete/")
    assert response.status_code == 403
    assert "Only its owner, ada, can delete this workspace." in response.content.decode()
    assert Workspace.objects.filter(slug="lab").exists()


def test_a_workspace_of_someone_else_cannot_be_deleted(client, stranger, workspace):
    client.force_login(stranger)
    assert client.post("/w/lab/delete/").status_code == 404
    assert Workspace.objects.filter(slug="lab").exists()


# ----------------------------------------------------------------------------------------------
# Creating a workspace: names, and what it starts with


def test_the_form_offers_an_empty_or_a_demo_cluster(logged_in):
    content = logged_in.get("/w/").content.decode()
    assert "<legend>Start with</legend>" in content
    assert 'value="empty"' in content and 'value="demo"' in content
    assert "the demo cluster: ten nodes in three zones" in content


def test_a_workspace_created_with_the_demo_cluster_holds_it(logged_in, user, woken):
    response = logged_in.post("/w/", {"name": "Trial", "start": "demo"})
    assert response["Location"] == "/w/trial/"
    workspace = Workspace.objects.get(slug="trial")
    nodes = ClusterObject.objects.filter(workspace=workspace, kind="Node")
    assert nodes.count() == 14
    assert ClusterObject.objects.filter(workspace=workspace, kind="Pod", name="urgent").exists()
    # Its gangs came with the gates they need, in the workspace's first revision.
    assert ClusterObject.objects.filter(workspace=workspace, kind="PodGroup").count() == 2
    revision = workspace.current_configuration()
    assert revision.feature_gates == "GangScheduling=true,GenericWorkload=true"
    assert workspace.changes.exists()  # written as any change, for the scheduler to read
    assert "c-gpu-1" in logged_in.get("/w/trial/nodes/").content.decode()


def test_a_workspace_created_empty_holds_nothing(logged_in, user):
    logged_in.post("/w/", {"name": "Blank", "start": "empty"})
    assert not ClusterObject.objects.filter(workspace__slug="blank").exists()


def test_a_second_workspace_with_the_same_name_is_refused(logged_in, user, workspace):
    response = logged_in.post("/w/", {"name": "LAB", "start": "empty"})
    assert response.status_code == 422
    assert (
        "Name: you already have a workspace named “Lab”: choose another name"
        in response.content.decode()
    )
    assert Workspace.objects.count() == 1


def test_someone_else_may_have_a_workspace_of_the_same_name(client, stranger, workspace):
    client.force_login(stranger)
    response = client.post("/w/", {"name": "Lab", "start": "empty"})
    assert response.status_code == 302
    assert Workspace.objects.get(owner=stranger).slug == "lab-2"


def test_a_name_without_letters_or_digits_is_refused(logged_in, user):
    response = logged_in.post("/w/", {"name": "!!!", "start": "empty"})
    assert response.status_code == 422
    assert (
        "Name: use at least one letter (a to z) or digit: the workspace&#x27;s address is made "
        "of them" in response.content.decode()
    )
    assert not Workspace.objects.exists()
