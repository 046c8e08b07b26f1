"""The YAML editor: create, edit and delete any object, with field-level errors on submit."""

import pytest
from django.test import Client

from playground.front.manifest_text import to_text
from playground.workspaces.models import ClusterObject, ObjectChange
from tests.playground.front.problems import error_items
from tests.playground.front.rows import node, pod

BAD_CPU = """\
apiVersion: v1
kind: Pod
metadata:
  name: web
  namespace: default
spec:
  containers:
  - name: web
    image: nginx
    resources:
      requests:
        cpu: lots
"""


def test_the_new_object_page_starts_from_a_template_of_the_kind(logged_in, workspace):
    content = logged_in.get("/w/lab/objects/new/?kind=Node").content.decode()
    assert "kind: Node" in content
    assert 'action="/w/lab/objects/new/"' in content


def test_creating_a_pod_stores_it_with_its_change_and_wakes_the_scheduler(
    logged_in, workspace, woken
):
    response = logged_in.post("/w/lab/objects/new/", {"text": to_text(pod("web"))})
    assert response.status_code == 302
    assert response["Location"] == "/w/lab/pods/"
    stored = ClusterObject.objects.get(kind="Pod", name="web")
    assert ObjectChange.objects.get().event_type == "ADDED"
    assert stored.resource_version == ObjectChange.objects.get().id
    assert woken == [workspace]


def test_a_bad_field_is_reported_with_its_path_and_line_and_nothing_is_stored(
    logged_in, workspace, woken
):
    response = logged_in.post("/w/lab/objects/new/", {"text": BAD_CPU})
    assert response.status_code == 422
    content = response.content.decode()
    assert "<strong>line 12</strong>" in content
    assert "<code>spec.containers[0].resources.requests.cpu</code>" in content
    assert "Pod &quot;default/web&quot;" in content
    assert "cpu: lots" in content  # the text comes back for fixing
    assert not ClusterObject.objects.exists()
    assert woken == []


INVALID_POD = """\
apiVersion: v1
kind: Pod
metadata:
  name: web
spec:
  containers:
  - name: web
    image: nginx
    resources:
      requests:
        cpu: "-1"
  tolerations:
  - operator: Equal
    value: x
"""


def test_every_problem_the_api_server_finds_is_listed_on_its_line_and_nothing_is_stored(
    logged_in, workspace, woken
):
    response = logged_in.post("/w/lab/objects/new/", {"text": INVALID_POD})
    assert response.status_code == 422
    content = response.content.decode()
    assert "<code>spec.containers[0].resources.requests[cpu]</code>" in content
    assert "<strong>line 11</strong>" in content
    assert "must be greater than or equal to 0" in content
    assert "<code>spec.tolerations[0].operator</code>" in content
    assert "<strong>line 13</strong>" in content
    assert "operator must be Exists when `key` is empty" in content
    assert not ClusterObject.objects.exists()
    assert woken == []


def test_an_unknown_field_is_refused_as_strict_field_validation_does(logged_in, workspace):
    text = INVALID_POD.replace("  tolerations:", "  containerz: []\n  tolerations:")
    response = logged_in.post("/w/lab/objects/new/", {"text": text})
    assert response.status_code == 422
    assert "strict decoding error: unknown field &quot;spec.containerz&quot;" in (
        response.content.decode()
    )
    assert not ClusterObject.objects.exists()


def test_each_unknown_field_is_refused_on_its_line(logged_in, workspace):
    text = (
        BAD_CPU.replace("cpu: lots", "cpu: 100m")
        .replace("  containers:", "  containerz: []\n  containers:")
        .replace("    image: nginx", "    imag: nginx")
    )
    response = logged_in.post("/w/lab/objects/new/", {"text": text})
    assert response.status_code == 422
    assert error_items(response.content.decode()) == [
        '<strong>line 7</strong> · Pod "default/web": strict decoding error: '
        'unknown field "spec.containerz"',
        '<strong>line 10</strong> · Pod "default/web": strict decoding error: '
        'unknown field "spec.containers[0].imag"',
    ]
    assert not ClusterObject.objects.exists()


def test_unreadable_yaml_is_reported_with_its_line(logged_in, workspace):
    response = logged_in.post("/w/lab/objects/new/", {"text": "kind: Pod\n  name: ["})
    assert response.status_code == 422
    assert "<strong>line 2</strong>" in response.content.decode()


def test_creating_an_object_that_exists_is_refused_on_its_name(logged_in, cluster):
    cluster.add(node("n1"))
    response = logged_in.post("/w/lab/objects/new/", {"text": to_text(node("n1"))})
    assert response.status_code == 422
    assert "<code>metadata.name</code>" in response.content.decode()


def test_htmx_gets_the_editor_back_with_errors_or_a_redirect(htmx, workspace):
    failed = htmx.post("/w/lab/objects/new/", {"text": BAD_CPU})
    assert failed.content.decode().lstrip().startswith('<form id="object-editor"')
    saved = htmx.post("/w/lab/objects/new/", {"text": to_text(node("n1"))})
    assert saved["HX-Redirect"] == "/w/lab/nodes/"


def test_editing_shows_the_stored_manifest_and_saves_a_new_version(logged_in, cluster, woken):
    stored = cluster.add(node("n1", cpu="4"))
    row = ClusterObject.objects.get(name="n1")
    page = logged_in.get(f"/w/lab/objects/{row.pk}/").content.decode()
    assert "name: n1" in page and f"resourceVersion: &#x27;{row.resource_version}&#x27;" in page
    text = to_text(row.manifest).replace("cpu: '4'", "cpu: '8'")
    response = logged_in.post(f"/w/lab/objects/{row.pk}/", {"text": text})
    assert response.status_code == 302
    assert cluster.get("Node", "n1").status.allocatable["cpu"].milli_value() == 8000
    assert stored.uid == cluster.get("Node", "n1").uid
    assert woken == [row.workspace]


def test_saving_an_outdated_version_is_refused(logged_in, cluster):
    cluster.add(node("n1"))
    row = ClusterObject.objects.get(name="n1")
    outdated = to_text(row.manifest)
    cluster.update(node("n1", cpu="2"))
    response = logged_in.post(f"/w/lab/objects/{row.pk}/", {"text": outdated})
    assert response.status_code == 422
    content = response.content.decode()
    assert "<code>metadata.resourceVersion</code>" in content
    assert "the object has been modified" in content


@pytest.mark.parametrize(
    ("change", "field"),
    [
        (("name: n1", "name: n2"), "metadata.name"),
        (("kind: Node", "kind: Namespace"), "kind"),
    ],
    ids=["a new name", "a new kind"],
)
def test_an_edit_cannot_turn_into_another_object(logged_in, cluster, change, field):
    cluster.add(node("n1"))
    row = ClusterObject.objects.get(name="n1")
    text = to_text(row.manifest).replace(*change)
    response = logged_in.post(f"/w/lab/objects/{row.pk}/", {"text": text})
    assert response.status_code == 422
    assert (
        f"<code>{field}</code>: Node &quot;n1&quot;: cannot be changed" in response.content.decode()
    )
    assert ClusterObject.objects.get().name == "n1"


def test_deleting_removes_the_object_and_logs_the_change(logged_in, cluster, woken):
    cluster.add(pod("web"))
    row = ClusterObject.objects.get(name="web")
    response = logged_in.post(f"/w/lab/objects/{row.pk}/delete/")
    assert response.status_code == 302
    assert not ClusterObject.objects.exists()
    assert ObjectChange.objects.last().event_type == "DELETED"
    assert woken == [row.workspace]


def test_deleting_needs_a_post_and_the_csrf_token(logged_in, user, cluster):
    cluster.add(pod("web"))
    row = ClusterObject.objects.get(name="web")
    assert logged_in.get(f"/w/lab/objects/{row.pk}/delete/").status_code == 405
    strict = Client(enforce_csrf_checks=True)
    strict.force_login(user)
    assert strict.post(f"/w/lab/objects/{row.pk}/delete/").status_code == 403
    assert ClusterObject.objects.exists()


def test_creating_needs_the_csrf_token(user, workspace):
    strict = Client(enforce_csrf_checks=True)
    strict.force_login(user)
    response = strict.post("/w/lab/objects/new/", {"text": to_text(pod("web"))})
    assert response.status_code == 403
    assert not ClusterObject.objects.exists()


def test_objects_of_another_workspace_cannot_be_opened_or_deleted(client, stranger, cluster):
    cluster.add(pod("web"))
    row = ClusterObject.objects.get(name="web")
    client.force_login(stranger)
    assert client.get(f"/w/lab/objects/{row.pk}/").status_code == 404
    assert client.post(f"/w/lab/objects/{row.pk}/delete/").status_code == 404
    assert ClusterObject.objects.exists()


# -- edits are updates -------------------------------------------------------------------


def test_an_edit_is_checked_as_an_update_and_a_pods_spec_change_is_refused(logged_in, cluster):
    cluster.add(pod("web", cpu="100m"))
    row = ClusterObject.objects.get(name="web")
    text = to_text(row.manifest).replace("cpu: 100m", "cpu: 200m")
    response = logged_in.post(f"/w/lab/objects/{row.pk}/", {"text": text})
    assert response.status_code == 422
    content = response.content.decode()
    assert (
        "<code>spec</code>: Pod &quot;default/web&quot;: Forbidden: pod updates may not change "
        "fields other than `spec.containers[*].image`,"
    ) in content
    # The two specs' difference, as JSON lines the way upstream prints it.
    diff = "-     &quot;cpu&quot;: &quot;100m&quot;,\n+     &quot;cpu&quot;: &quot;200m&quot;"
    assert diff in content
    assert "cpu: 200m" in content  # the edited text comes back
    assert "Delete and recreate" in content
    assert f'formaction="/w/lab/objects/{row.pk}/recreate/"' in content
    assert ClusterObject.objects.get().manifest == row.manifest


def test_an_allowed_pod_edit_saves_without_offering_to_recreate(logged_in, cluster):
    cluster.add(pod("web"))
    row = ClusterObject.objects.get(name="web")
    text = to_text(row.manifest).replace("image: app", "image: app:v2")
    response = logged_in.post(f"/w/lab/objects/{row.pk}/", {"text": text})
    assert response.status_code == 302
    assert cluster.get("Pod", "web", "default").spec.containers[0].image == "app:v2"


def test_other_refused_edits_do_not_offer_to_recreate(logged_in, cluster):
    cluster.add(pod("web"))
    row = ClusterObject.objects.get(name="web")
    text = to_text(row.manifest).replace("cpu: 100m", "cpu: lots")
    content = logged_in.post(f"/w/lab/objects/{row.pk}/", {"text": text}).content.decode()
    assert "<code>spec.containers[0].resources.requests.cpu</code>" in content
    assert "Delete and recreate" not in content


def test_delete_and_recreate_replaces_the_pod_with_a_new_one_from_the_text(
    logged_in, cluster, woken
):
    old = cluster.add(pod("web", cpu="100m"))
    row = ClusterObject.objects.get(name="web")
    text = to_text(row.manifest).replace("cpu: 100m", "cpu: 200m")
    response = logged_in.post(f"/w/lab/objects/{row.pk}/recreate/", {"text": text})
    assert response.status_code == 302
    assert response["Location"] == "/w/lab/pods/"
    recreated = cluster.get("Pod", "web", "default")
    assert recreated.spec.containers[0].resources.requests["cpu"].milli_value() == 200
    assert recreated.uid != old.uid
    events = list(ObjectChange.objects.values_list("event_type", flat=True))
    assert events == ["ADDED", "DELETED", "ADDED"]
    assert woken == [row.workspace]


def test_delete_and_recreate_keeps_the_pod_when_the_text_is_refused(logged_in, cluster):
    cluster.add(pod("web"))
    row = ClusterObject.objects.get(name="web")
    text = to_text(row.manifest).replace("cpu: 100m", "cpu: lots")
    response = logged_in.post(f"/w/lab/objects/{row.pk}/recreate/", {"text": text})
    assert response.status_code == 422
    assert "<code>spec.containers[0].resources.requests.cpu</code>" in response.content.decode()
    assert ClusterObject.objects.get().uid == row.uid
    assert list(ObjectChange.objects.values_list("event_type", flat=True)) == ["ADDED"]


def test_delete_and_recreate_needs_a_post(logged_in, cluster):
    cluster.add(pod("web"))
    row = ClusterObject.objects.get(name="web")
    assert logged_in.get(f"/w/lab/objects/{row.pk}/recreate/").status_code == 405
