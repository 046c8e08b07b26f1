"""The workspace list and a workspace's overview."""

import pytest
from django.contrib.auth import get_user_model

from playground.workspaces.models import Workspace
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
