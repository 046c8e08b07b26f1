"""Import, export and bulk creation pages."""

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.test import Client

from playground.front.manifest_text import to_text
from playground.workspaces.cluster import DatabaseCluster
from playground.workspaces.importing import import_manifests
from playground.workspaces.models import ClusterObject
from tests.playground.front.problems import error_items
from tests.playground.front.rows import node, pod

TWO = to_text(node("n1")) + "---\n" + to_text(pod("web"))
BROKEN = (
    to_text(node("n1"))
    + "---\n"
    + to_text(pod("bad", cpu="lots"))
    + "---\n"
    + to_text(pod("worse", memory="plenty"))
)


def test_the_page_offers_export_import_and_bulk(logged_in, workspace):
    content = logged_in.get("/w/lab/transfer/").content.decode()
    assert 'href="/w/lab/export.yaml"' in content
    assert 'id="import-form"' in content and 'id="bulk"' in content


def test_an_import_stores_every_object_and_wakes_the_scheduler(logged_in, workspace, woken):
    response = logged_in.post("/w/lab/import/", {"text": TWO})
    assert response.status_code == 302
    assert sorted(ClusterObject.objects.values_list("name", flat=True)) == ["n1", "web"]
    assert woken == [workspace]
    assert "Imported 2 objects: 2 created, 0 replaced." in logged_in.get("/w/lab/").content.decode()


def test_an_import_from_a_file(logged_in, workspace):
    upload = SimpleUploadedFile("cluster.yaml", TWO.encode(), content_type="application/yaml")
    assert logged_in.post("/w/lab/import/", {"file": upload}).status_code == 302
    assert ClusterObject.objects.count() == 2


def test_a_broken_import_lists_every_problem_and_stores_nothing(logged_in, workspace, woken):
    response = logged_in.post("/w/lab/import/", {"text": BROKEN})
    assert response.status_code == 422
    content = response.content.decode()
    assert "<strong>Pod &quot;default/bad&quot;</strong>" in content
    assert "<code>spec.containers[0].resources.requests.cpu</code>" in content
    assert "<strong>Pod &quot;default/worse&quot;</strong>" in content
    assert not ClusterObject.objects.exists()
    assert woken == []


def test_each_unknown_field_of_an_import_is_named_on_its_line(logged_in, workspace):
    listed = to_text({"apiVersion": "v1", "kind": "List", "items": [pod("a"), pod("b")]})
    text = TWO + "---\n" + listed.replace("    name: b\n", "    name: b\n    colour: red\n", 1)
    text = text.replace("  containers:", "  containerz: []\n  containers:", 1)
    lines = text.splitlines()
    assert refused_import(logged_in, text) == [
        f"<strong>line {lines.index('  containerz: []') + 1}</strong> · "
        '<strong>Pod "default/web"</strong>: strict decoding error: '
        'unknown field "spec.containerz"',
        f"<strong>line {lines.index('    colour: red') + 1}</strong> · "
        '<strong>Pod "default/b"</strong>: strict decoding error: '
        'unknown field "metadata.colour"',
    ]
    assert not ClusterObject.objects.exists()


def test_what_admission_refuses_in_an_import_is_named_on_its_line(logged_in, workspace):
    text = TWO + "---\n" + to_text(pod("urgent", priorityClassName="high"))
    lines = text.splitlines()
    assert refused_import(logged_in, text) == [
        f"<strong>line {lines.index('  priorityClassName: high') + 1}</strong> · "
        '<strong>Pod "default/urgent"</strong> · <code>spec.priorityClassName</code>: '
        "no PriorityClass with name high was found"
    ]


def refused_import(client: Client, text: str) -> list[str]:
    """The problems listed when importing ``text`` is refused (nothing is stored)."""
    response = client.post("/w/lab/import/", {"text": text})
    assert response.status_code == 422
    assert not ClusterObject.objects.exists()
    return error_items(response.content.decode())


def test_htmx_gets_the_import_form_back_with_the_problems(htmx, workspace):
    response = htmx.post("/w/lab/import/", {"text": BROKEN})
    assert response.content.decode().lstrip().startswith('<form id="import-form"')


def test_htmx_is_sent_to_the_overview_after_an_import(htmx, workspace):
    assert htmx.post("/w/lab/import/", {"text": TWO})["HX-Redirect"] == "/w/lab/"


def test_the_export_downloads_what_an_import_reads_back(logged_in, workspace, stranger):
    DatabaseCluster(workspace).add_many([node("n1"), pod("web", nodeName="n1")])
    response = logged_in.get("/w/lab/export.yaml")
    assert response["Content-Type"] == "application/yaml"
    assert response["Content-Disposition"] == 'attachment; filename="lab.yaml"'
    from playground.workspaces.models import Workspace

    copy = Workspace.objects.create(name="Copy", slug="copy", owner=stranger)
    result = import_manifests(copy, response.content.decode())
    assert sorted(result.created) == ["Node n1", "Pod default/web"]


def test_bulk_creates_the_first_chunk_and_asks_for_the_next(htmx, workspace, monkeypatch, woken):
    monkeypatch.setattr("playground.front.views.transfer.CHUNK_SIZE", 2)
    response = htmx.post(
        "/w/lab/bulk/", {"template": to_text(pod("web")), "count": "5", "done": "0"}
    )
    content = response.content.decode()
    assert content.lstrip().startswith('<form id="bulk"')
    assert 'hx-trigger="load"' in content
    assert '<progress value="2" max="5">' in content
    assert "the latest <code>web-1</code>" in content
    assert sorted(ClusterObject.objects.values_list("name", flat=True)) == ["web-0", "web-1"]
    assert woken == [workspace]


def test_bulk_steps_until_every_copy_exists(htmx, workspace, monkeypatch):
    monkeypatch.setattr("playground.front.views.transfer.CHUNK_SIZE", 2)
    fields = {"template": to_text(node("n")), "count": "5", "done": "0"}
    for done in ("2", "4", "5"):
        content = htmx.post("/w/lab/bulk/", fields).content.decode()
        assert f'<progress value="{done}" max="5">' in content
        fields["done"] = done
    assert 'hx-trigger="load"' not in content
    assert "Done." in content
    assert ClusterObject.objects.filter(kind="Node").count() == 5


def test_bulk_without_javascript_offers_a_continue_button(logged_in, workspace, monkeypatch):
    monkeypatch.setattr("playground.front.views.transfer.CHUNK_SIZE", 2)
    response = logged_in.post(
        "/w/lab/bulk/", {"template": to_text(pod("web")), "count": "3", "done": "0"}
    )
    content = response.content.decode()
    assert content.startswith("<!doctype html>")
    assert "<noscript><button>Continue</button></noscript>" in content


@pytest.mark.parametrize(
    ("fields", "message"),
    [
        ({"template": to_text(pod("web", cpu="lots")), "count": "3"}, "requests.cpu"),
        ({"template": to_text(pod("web")), "count": "0"}, "How many: Ensure this value"),
        ({"template": "a: [", "count": "3"}, "invalid YAML"),
    ],
    ids=["a broken template", "no copies", "unreadable YAML"],
)
def test_bulk_refuses_what_it_cannot_create(logged_in, workspace, fields, message):
    response = logged_in.post("/w/lab/bulk/", {**fields, "done": "0"})
    assert response.status_code == 422
    assert message in response.content.decode()
    assert not ClusterObject.objects.exists()


@pytest.mark.parametrize("url", ["/w/lab/import/", "/w/lab/bulk/"], ids=["import", "bulk creation"])
def test_changes_need_the_csrf_token(user, workspace, url):
    strict = Client(enforce_csrf_checks=True)
    strict.force_login(user)
    assert strict.post(url, {"text": TWO, "template": TWO, "count": "1"}).status_code == 403
    assert not ClusterObject.objects.exists()


def test_strangers_cannot_export(client, stranger, workspace):
    client.force_login(stranger)
    assert client.get("/w/lab/export.yaml").status_code == 404


def listed_node(name: str) -> dict:
    """A node as ``kubectl get node -o yaml`` prints one: about 5 kB, most of it images."""
    manifest = node(name)
    manifest["metadata"]["annotations"] = {"node.alpha.kubernetes.io/ttl": "0"}
    manifest["status"]["images"] = [
        {
            "names": [f"registry.example.com/team-{i}/service@sha256:{i:064x}"],
            "sizeBytes": 100_000_000 + i,
        }
        for i in range(30)
    ]
    manifest["status"]["conditions"] = [
        {"type": "Ready", "status": "True", "reason": "KubeletReady", "message": "kubelet ready"}
    ]
    return manifest


def many_nodes(size: int) -> tuple[str, int]:
    """Manifests of at least ``size`` bytes: as many nodes as it takes, and their number."""
    one = to_text(listed_node("node-00000"))
    count = size // len(one) + 1
    return "---\n".join(to_text(listed_node(f"node-{i:05}")) for i in range(count)), count


def test_a_five_megabyte_paste_is_imported(htmx, workspace):
    text, count = many_nodes(5 * 1024 * 1024)
    response = htmx.post("/w/lab/import/", {"text": text})
    assert response["HX-Redirect"] == "/w/lab/"
    assert ClusterObject.objects.filter(kind="Node").count() == count


@pytest.mark.parametrize("as_htmx", [True, False], ids=["htmx", "page"])
def test_a_paste_over_the_limit_is_answered_in_words_and_nothing_is_stored(
    logged_in, workspace, settings, as_htmx
):
    settings.MAX_MANIFEST_BYTES = 64 * 1024
    settings.DATA_UPLOAD_MAX_MEMORY_SIZE = 64 * 1024
    text, _ = many_nodes(100 * 1024)
    headers = {"HTTP_HX_REQUEST": "true"} if as_htmx else {}
    response = logged_in.post("/w/lab/import/", {"text": text}, **headers)
    content = response.content.decode()
    assert "more than the 0.1 MiB a form takes: nothing was saved." in content
    if as_htmx:
        # Into the page's alert line; the form, and the text in it, are left alone.
        assert response.status_code == 422
        assert (response["HX-Retarget"], response["HX-Reswap"]) == (
            "#request-problem",
            "textContent",
        )
        assert content.startswith("The form sent 0.1 MiB")
    else:
        assert response.status_code == 413
        assert "the text is still in the form" in content
    assert not ClusterObject.objects.exists()
