"""A workspace that mirrors a cluster is read-only in the browser: every view that changes its
objects answers 409 with the reason and changes nothing; its scheduler's pages stay open."""

from __future__ import annotations

import html

import pytest

from playground.clusters.models import ClusterConnection
from playground.workspaces.models import ClusterObject, SchedulerCommand
from tests.playground.scheduling.manifests import node_manifest, pod_manifest

POD_YAML = (
    "apiVersion: v1\nkind: Pod\nmetadata:\n  name: extra\n  namespace: default\n"
    "spec:\n  containers:\n  - name: c\n    image: nginx\n"
)


@pytest.fixture
def mirrored(user, workspace, cluster):
    cluster.add(node_manifest("n1"))
    cluster.add(pod_manifest("web-1"))
    return ClusterConnection.objects.create(name="prod", owner=user, workspace=workspace)


def objects_now(workspace) -> list[tuple[str, str]]:
    return sorted(ClusterObject.objects.filter(workspace=workspace).values_list("kind", "name"))


@pytest.mark.parametrize(
    ("path", "data"),
    [
        ("objects/new/", {"text": POD_YAML}),
        ("objects/{node}/", {"text": "kind: Node\nmetadata:\n  name: n1\n"}),
        ("objects/{node}/delete/", {}),
        ("objects/{node}/recreate/", {"text": "kind: Node\nmetadata:\n  name: n1\n"}),
        ("delete-pods/", {"uids": "{pod_uid}"}),
        ("import/", {"text": POD_YAML}),
        ("bulk/", {"kind": "Pod", "count": "5", "prefix": "many"}),
    ],
    ids=["new", "edit", "delete", "recreate", "delete-pods", "import", "bulk"],
)
def test_object_changes_are_refused_with_the_reason(logged_in, workspace, mirrored, path, data):
    node = ClusterObject.objects.get(workspace=workspace, kind="Node")
    pod = ClusterObject.objects.get(workspace=workspace, kind="Pod")
    before = objects_now(workspace)
    path = path.format(node=node.pk)
    data = {key: value.format(pod_uid=pod.uid) for key, value in data.items()}
    response = logged_in.post(f"/w/lab/{path}", data)
    assert response.status_code == 409
    page = html.unescape(response.content.decode())
    assert 'This workspace mirrors the cluster of connection "prod"' in page
    assert "cannot be changed here" in page
    assert objects_now(workspace) == before


def test_htmx_gets_the_message_alone(htmx, workspace, mirrored):
    response = htmx.post("/w/lab/objects/new/", {"text": POD_YAML})
    assert response.status_code == 409
    assert response.content.decode().lstrip().startswith('<p class="error" role="alert"')


def test_reading_and_the_scheduler_stay_open(logged_in, workspace, mirrored):
    node = ClusterObject.objects.get(workspace=workspace, kind="Node")
    for path in ("objects/", f"objects/{node.pk}/", "nodes/", "pods/", "queue/", "permit/"):
        assert logged_in.get(f"/w/lab/{path}").status_code == 200, path
    assert logged_in.post("/w/lab/pause/").status_code == 302
    assert SchedulerCommand.objects.get().kind == "pause"


def test_the_navigation_says_where_the_objects_come_from(logged_in, workspace, mirrored):
    page = logged_in.get("/w/lab/nodes/").content.decode()
    assert "mirror of prod</a> · read-only" in page
    assert f'href="/connections/{mirrored.pk}/"' in page


def test_an_ordinary_workspace_is_editable(logged_in, workspace, cluster):
    response = logged_in.post("/w/lab/objects/new/", {"text": POD_YAML})
    assert response.status_code in (200, 302)
    assert ("Pod", "extra") in objects_now(workspace)
