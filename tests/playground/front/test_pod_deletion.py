"""Deleting pods in bulk from the pods page: ticked ones or all matching the filter, after a
confirmation, through the change log the scheduler follows."""

from __future__ import annotations

import pytest

from playground.workspaces.models import ClusterObject, ObjectChange
from tests.playground.front.rows import pod, store

URL = "/w/lab/delete-pods/"


def web(name: str, app: str = "web", **spec) -> dict:
    manifest = pod(name, **spec)
    manifest["metadata"]["labels"] = {"app": app}
    return manifest


@pytest.fixture
def pods(workspace):
    for name in ("web-1", "web-2", "web-3"):
        store(workspace, web(name))
    store(workspace, web("db-1", app="db", nodeName="n1"))
    return workspace


def remaining() -> list[str]:
    return sorted(ClusterObject.objects.filter(kind="Pod").values_list("name", flat=True))


def test_ticked_pods_are_deleted_once_confirmed(logged_in, pods, woken):
    asked = logged_in.post(URL, {"selection": "selected", "uid": ["uid-web-2", "uid-db-1"]})
    content = asked.content.decode()
    assert "<h1>Delete 2 pods?</h1>" in content
    assert "<li><code>default/db-1</code></li><li><code>default/web-2</code></li>" in content
    assert '<input type="hidden" name="uids" value="uid-db-1 uid-web-2">' in content
    assert remaining() == ["db-1", "web-1", "web-2", "web-3"] and woken == []

    done = logged_in.post(URL, {"confirm": "yes", "uids": "uid-db-1 uid-web-2"}, follow=True)

    assert remaining() == ["web-1", "web-3"]
    deletions = ObjectChange.objects.filter(event_type="DELETED").order_by("id")
    assert [(c.kind, c.name) for c in deletions] == [("Pod", "web-2"), ("Pod", "db-1")]
    assert woken == [pods]
    assert done.redirect_chain == [("/w/lab/pods/", 302)]
    assert '<p class="flash success">Deleted 2 pods.</p>' in done.content.decode()


def test_all_pods_matching_the_filter_are_deleted_and_the_filter_kept(logged_in, pods):
    asked = logged_in.post(URL, {"selection": "matching", "labels": "app=web", "name": "web"})
    content = asked.content.decode()
    assert "<h1>Delete 3 pods?</h1>" in content
    assert "Every pod matching the filter <code>name: web</code> <code>labels: app=web</code>" in (
        content
    )
    assert '<input type="hidden" name="labels" value="app=web">' in content

    uids = "uid-web-1 uid-web-2 uid-web-3"
    done = logged_in.post(URL, {"confirm": "yes", "uids": uids, "labels": "app=web", "name": "web"})

    assert done["Location"] == "/w/lab/pods/?name=web&labels=app%3Dweb"
    assert remaining() == ["db-1"]


def test_the_pods_confirmed_are_deleted_not_those_matching_by_then(logged_in, pods, workspace):
    logged_in.post(URL, {"selection": "matching", "labels": "app=web"})
    store(workspace, web("web-4"))  # created while the person read the confirmation
    ClusterObject.objects.filter(name="web-1").delete()  # and one deleted elsewhere

    done = logged_in.post(
        URL, {"confirm": "yes", "uids": "uid-web-1 uid-web-2 uid-web-3"}, follow=True
    )

    assert remaining() == ["db-1", "web-4"]
    assert "Deleted 2 pods (1 was already gone)." in done.content.decode()


def test_a_long_list_names_the_first_pods_and_counts_the_rest(logged_in, workspace):
    for i in range(60):
        store(workspace, web(f"p{i:02}"))
    content = logged_in.post(URL, {"selection": "matching"}).content.decode()
    assert "<h1>Delete 60 pods?</h1>" in content
    assert "(no filter: every pod of the workspace)" in content
    assert "default/p49" in content and "default/p50" not in content
    assert "and 10 more." in content


@pytest.mark.parametrize(
    ("data", "message"),
    [
        (
            {"selection": "selected"},
            "No pod was selected: tick the pods to delete, or delete all matching the filter.",
        ),
        (
            {"selection": "matching", "labels": "app=nothing"},
            "No pod matches the filter: nothing was deleted.",
        ),
    ],
    ids=["nothing ticked", "nothing matches"],
)
def test_nothing_to_delete_says_so_on_the_pods_page(logged_in, pods, data, message):
    done = logged_in.post(URL, data, follow=True)
    assert f'<p class="flash error">{message}</p>' in done.content.decode()
    assert remaining() == ["db-1", "web-1", "web-2", "web-3"]


def test_deleting_needs_a_post_and_access(logged_in, client, stranger, pods):
    assert logged_in.get(URL).status_code == 405
    client.force_login(stranger)
    assert client.post(URL, {"confirm": "yes", "uids": "uid-web-1"}).status_code == 404
    assert "web-1" in remaining()
