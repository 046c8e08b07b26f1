"""The Compare page: the form (inputs, 2-4 variants checked as the profile editor checks),
Run (a comparison and its tasks, nothing in the workspace changed), the result page with
its numbers, charts and differing pods, the kept attempts through the replay view, exports,
Cancel, and who may see it."""

from __future__ import annotations

import csv
import io
import json
from urllib.parse import urlencode

import pytest

from playground.clusters.models import ClusterConnection, Recording
from playground.compare import tasks as compare_tasks
from playground.compare.inputs import variant_inputs
from playground.compare.models import CANCELLED, DONE, QUEUED, Comparison
from playground.workspaces.cluster import DatabaseCluster
from playground.workspaces.models import Workspace
from playground.workspaces.services import add_configuration_revision
from tests.playground.compare.scenario import BIN_PACKING, SPREADING, Tasks, packing_cluster
from tests.playground.front.problems import error_items
from tests.playground.front.rows import node, pod

URL = "/w/lab/compare/"


@pytest.fixture
def sent(monkeypatch):
    """The phase tasks the page sends, kept instead of queued."""
    kept = Tasks()
    monkeypatch.setattr(compare_tasks, "dispatch", kept)
    return kept


@pytest.fixture
def revisions(workspace, user, cluster):
    packing_cluster(cluster)
    add_configuration_revision(workspace, SPREADING, user, note="spreading")
    add_configuration_revision(workspace, BIN_PACKING, user, note="packing")
    return workspace


def form(**fields):
    data = {"source": "workspace", "seed": "0"}
    data.update(fields)
    return data


def two_revisions(**fields):
    variants = {
        "variant-0-kind": "revision",
        "variant-0-revision": "2",
        "variant-0-name": "packing",
        "variant-1-kind": "revision",
        "variant-1-revision": "1",
        "variant-1-name": "spreading",
    }
    return form(**{**variants, **fields})


def run(logged_in, sent, data, on_commit):
    with on_commit(execute=True):
        response = logged_in.post(URL, data)
    assert response.status_code == 302, response.content.decode()[:2000]
    sent.run_all(on_commit)
    return logged_in.get(response["Location"])


def test_the_page_offers_the_current_revision_and_the_one_before(logged_in, revisions):
    page = logged_in.get(URL).content.decode()
    assert 'aria-current="page">Compare</a>' in page
    assert '<option value="2" selected>revision 2 · packing' in page
    assert '<option value="1" selected>revision 1 · spreading' in page


def test_a_profile_in_the_link_fills_a_pasted_variant_beside_the_current_revision(
    logged_in, revisions
):
    query = urlencode({"profile": SPREADING, "name": "new weights"})
    page = logged_in.get(f"{URL}?{query}").content.decode()
    assert 'name="variant-1-name" value="new weights"' in page
    assert "LeastAllocated" in page.split('name="variant-1-yaml"')[1].split("</textarea>")[0]
    assert '<option value="yaml" selected>' in page.split('id="variant-1"')[1]


def test_a_bad_pasted_profile_is_named_by_variant_and_field_and_nothing_is_lost(
    logged_in, revisions, sent
):
    broken = SPREADING.replace("LeastAllocated", "Sideways")
    data = two_revisions(
        **{"variant-1-kind": "yaml", "variant-1-yaml": broken, "variant-1-name": "mine"}
    )
    response = logged_in.post(URL, data)
    assert response.status_code == 422
    (problem,) = error_items(response.content.decode())
    assert problem.startswith("<code>variant-1-yaml</code>: variant 2 (mine): ")
    assert "scoringStrategy.type" in problem and "Sideways" in problem
    assert "Sideways" in response.content.decode().split('name="variant-1-yaml"')[1]
    assert not Comparison.objects.exists() and not sent.sent


def test_a_profile_with_a_playground_plugin_is_refused_naming_the_plugin(
    logged_in, revisions, sent
):
    """The profile editor accepts WaitForApproval (the playground's scheduler has it); a
    comparison runs the in-tree plugins only, so the form says so before any worker fails."""
    waiting = SPREADING.replace(
        "  plugins:\n", "  plugins:\n    permit:\n      enabled: [{name: WaitForApproval}]\n", 1
    )
    assert "WaitForApproval" in waiting
    data = two_revisions(
        **{"variant-1-kind": "yaml", "variant-1-yaml": waiting, "variant-1-name": "held"}
    )
    response = logged_in.post(URL, data)
    assert response.status_code == 422
    (problem,) = error_items(response.content.decode())
    assert problem.startswith("<code>variant-1-yaml</code>: variant 2 (held): comparisons run ")
    assert "WaitForApproval" in problem
    assert "WaitForApproval" in response.content.decode().split('name="variant-1-yaml"')[1]
    assert not Comparison.objects.exists() and not sent.sent


def test_one_variant_is_not_a_comparison(logged_in, revisions):
    response = logged_in.post(
        URL, form(**{"variant-0-kind": "revision", "variant-0-revision": "1"})
    )
    assert response.status_code == 422
    assert "<code>variants</code>: choose 2 to 4 variants" in error_items(response.content.decode())


def test_two_variants_may_not_share_a_name(logged_in, revisions):
    response = logged_in.post(URL, two_revisions(**{"variant-1-name": "packing"}))
    assert response.status_code == 422
    assert any(
        "two variants are named 'packing'" in p for p in error_items(response.content.decode())
    )


def test_a_revision_that_does_not_exist_is_named(logged_in, revisions):
    response = logged_in.post(URL, two_revisions(**{"variant-1-revision": "9"}))
    assert "<code>variant-1-revision</code>: variant 2 (spreading): no revision '9'" in error_items(
        response.content.decode()
    )


def test_run_stores_the_comparison_and_sends_a_task_per_variant(
    logged_in, revisions, sent, django_capture_on_commit_callbacks
):
    with django_capture_on_commit_callbacks(execute=True):
        response = logged_in.post(URL, two_revisions())
    comparison = Comparison.objects.get()
    assert response["Location"] == f"/w/lab/compare/{comparison.pk}/"
    variants = list(comparison.variants.all())
    assert [(v.name, v.revision, v.state) for v in variants] == [
        ("packing", 2, QUEUED),
        ("spreading", 1, QUEUED),
    ]
    assert sent.sent == [(1, variants[0].pk), (1, variants[1].pk)]
    assert {"default/web-0", "default/db"} <= {
        f"{m['metadata'].get('namespace')}/{m['metadata']['name']}"
        for m in json.loads(comparison.inputs_text)
    }
    page = logged_in.get(response["Location"]).content.decode()
    assert 'hx-trigger="every 1s"' in page and "Cancel the comparison" in page


def test_the_result_page_shows_the_numbers_charts_and_differing_pods(
    logged_in, revisions, sent, django_capture_on_commit_callbacks
):
    page = run(logged_in, sent, two_revisions(), django_capture_on_commit_callbacks)
    text = page.content.decode()
    assert Comparison.objects.get().state == DONE
    assert 'hx-trigger="every 1s"' not in text
    empty = text.split('data-metric="utilization.emptyNodes"')[1].split("</tr>")[0]
    assert '<td class="better">3 ★</td><td>0</td>' in empty
    peak = text.split('data-metric="utilization.cpu.max"')[1].split("</tr>")[0]
    assert '<td class="better">' in peak.split("</td>", 1)[1]  # spreading's max is lower
    assert text.count('aria-label="Utilization histogram of') == 2
    assert 'aria-label="Node by profile heatmap"' in text
    assert text.count('<tr data-pod="default/web-') == 6
    assert text.count('class="attempt-link"') == 12


def test_a_differing_pod_links_to_its_attempt_in_each_variant_and_its_replay(
    logged_in, revisions, sent, django_capture_on_commit_callbacks
):
    run(logged_in, sent, two_revisions(), django_capture_on_commit_callbacks)
    comparison = Comparison.objects.get()
    base = f"/w/lab/compare/{comparison.pk}/variants"
    packing = logged_in.get(f"{base}/0/pods/default/web-0/attempts/1/").content.decode()
    spreading = logged_in.get(f"{base}/1/pods/default/web-0/attempts/1/").content.decode()
    assert "on <strong>node-1</strong>" in packing
    node = comparison.variants.get(index=1).result["placements"]["default/web-0"]
    assert f"on <strong>{node}</strong>" in spreading and node != "node-1"
    assert "NodeResourcesFit" in spreading  # the score table, from the kept events
    assert (
        f'under <a href="{base}/0/pods/default/web-0/attempts/1/">packing</a>: node-1' in spreading
    )
    replay = logged_in.get(f"{base}/1/pods/default/web-0/attempts/1/replay/?at=3")
    assert replay.status_code == 200
    assert "<strong>3</strong> of" in replay.content.decode()
    assert logged_in.get(f"{base}/1/pods/default/web-0/attempts/2/").status_code == 404


def test_exports_give_the_report_as_json_and_csv(
    logged_in, revisions, sent, django_capture_on_commit_callbacks
):
    run(logged_in, sent, two_revisions(), django_capture_on_commit_callbacks)
    comparison = Comparison.objects.get()
    exported = logged_in.get(f"/w/lab/compare/{comparison.pk}/export.json")
    assert json.loads(exported.content) == comparison.report
    rows = list(
        csv.reader(
            io.StringIO(
                logged_in.get(f"/w/lab/compare/{comparison.pk}/export.csv").content.decode()
            )
        )
    )
    assert rows[0] == ["metric", "packing", "spreading", "better"]
    assert ["utilization.emptyNodes", "3", "0", "packing"] in rows
    assert sum(1 for row in rows if row and row[0].startswith("default/web-")) == 6
    assert logged_in.get(f"/w/lab/compare/{comparison.pk}/export.xml").status_code == 404


def test_a_snapshot_pasted_is_compared_instead_of_the_workspace(
    logged_in, revisions, sent, django_capture_on_commit_callbacks
):
    snapshot = Workspace.objects.create(name="Other", slug="other", owner=revisions.owner)
    packing_cluster(DatabaseCluster(snapshot), pending=2)
    data = two_revisions(source="snapshot", snapshot_workspace="other")
    run(logged_in, sent, data, django_capture_on_commit_callbacks)
    comparison = Comparison.objects.get()
    assert comparison.source_label == "an export of workspace Other"
    assert comparison.report["variants"][0]["pods"]["total"] == 2


def test_a_workspace_the_user_cannot_see_is_not_a_snapshot(logged_in, revisions, stranger):
    Workspace.objects.create(name="Secret", slug="secret", owner=stranger)
    response = logged_in.post(URL, two_revisions(source="snapshot", snapshot_workspace="secret"))
    assert "<code>snapshot_workspace</code>: no workspace 'secret'" in error_items(
        response.content.decode()
    )


def test_cancel_one_variant_and_the_others_are_still_compared(
    logged_in, revisions, sent, django_capture_on_commit_callbacks
):
    data = two_revisions(
        **{"variant-2-kind": "yaml", "variant-2-yaml": SPREADING, "variant-2-name": "third"}
    )
    with django_capture_on_commit_callbacks(execute=True):
        response = logged_in.post(URL, data)
    comparison = Comparison.objects.get()
    cancel = logged_in.post(f"/w/lab/compare/{comparison.pk}/cancel/", {"variant": "2"})
    assert cancel.status_code == 302
    sent.run_all(django_capture_on_commit_callbacks)
    comparison.refresh_from_db()
    assert comparison.variants.get(index=2).state == CANCELLED
    assert [v["name"] for v in comparison.report["variants"]] == ["packing", "spreading"]
    assert response.status_code == 302


def test_the_comparison_is_the_workspace_s_like_its_other_pages(
    client, revisions, stranger, sent, django_capture_on_commit_callbacks
):
    client.force_login(revisions.owner)
    with django_capture_on_commit_callbacks(execute=True):
        client.post(URL, two_revisions())
    comparison = Comparison.objects.get()
    client.force_login(stranger)
    assert client.get(f"/w/lab/compare/{comparison.pk}/").status_code == 404
    assert client.get(URL).status_code == 404
    assert client.post(f"/w/lab/compare/{comparison.pk}/cancel/").status_code == 404


@pytest.fixture
def recording(revisions, user, settings, tmp_path):
    """A stopped recording: two nodes at the start, then a pod created at 5 s and another at
    8 s."""
    settings.VAR_DIR = tmp_path
    connection = ClusterConnection.objects.create(name="prod", owner=user)
    recorded = Recording.objects.create(connection=connection, file="recordings/1.jsonl")
    recorded.stopped_at = recorded.started_at
    recorded.save()
    lines = [
        {"recording": 1, "connection": "prod", "kinds": ["Node", "Pod"]},
        {"t": 0, "type": "ADDED", "object": node("node-a")},
        {"t": 0, "type": "ADDED", "object": node("node-b")},
        {"t": 5, "type": "ADDED", "object": pod("first", cpu="1")},
        {"t": 8, "type": "ADDED", "object": pod("second", cpu="1")},
    ]
    recorded.path.parent.mkdir(parents=True)
    recorded.path.write_text("".join(json.dumps(line) + "\n" for line in lines))
    return recorded


def test_a_recording_is_replayed_under_each_variant(
    logged_in, recording, sent, django_capture_on_commit_callbacks
):
    page = logged_in.get(URL).content.decode()
    assert f'<option value="{recording.pk}">{recording} (0 changes)</option>' in page
    data = two_revisions(source="recording", recording=str(recording.pk))
    run(logged_in, sent, data, django_capture_on_commit_callbacks)
    comparison = Comparison.objects.get()
    assert comparison.source_label == str(recording)
    for variant in comparison.variants.all():
        assert set(variant.result["placements"]) == {"default/first", "default/second"}
    packing, spreading = (v.result["placements"] for v in comparison.variants.all())
    assert packing["default/first"] == packing["default/second"]  # packed on one node
    assert spreading["default/first"] != spreading["default/second"]


def test_a_recording_of_someone_else_s_connection_is_refused(logged_in, recording, stranger):
    recording.connection.owner = stranger
    recording.connection.save()
    response = logged_in.post(URL, two_revisions(source="recording", recording=str(recording.pk)))
    assert response.status_code == 422
    assert "<code>recording</code>: pick one of the stopped recordings listed" in error_items(
        response.content.decode()
    )


def test_only_the_traced_pods_link_to_their_attempts(
    logged_in, revisions, sent, monkeypatch, django_capture_on_commit_callbacks
):
    monkeypatch.setattr("playground.compare.runs.MAX_TRACED_PODS", 2)
    text = run(logged_in, sent, two_revisions(), django_capture_on_commit_callbacks)
    assert text.content.decode().count('class="attempt-link"') == 4


def test_each_variant_runs_with_its_revision_s_gates_and_pasted_yaml_with_the_current_ones(
    logged_in, revisions, user, sent, django_capture_on_commit_callbacks
):
    gates = "GangScheduling=true,GenericWorkload=true"
    add_configuration_revision(revisions, BIN_PACKING, user, feature_gates=gates)
    data = two_revisions(
        **{"variant-0-revision": "3", "variant-1-kind": "yaml", "variant-1-yaml": SPREADING}
    )
    with django_capture_on_commit_callbacks(execute=True):
        logged_in.post(URL, data)
    comparison = Comparison.objects.get()
    for variant in comparison.variants.all():
        assert variant.feature_gates == gates
        assert variant_inputs(comparison, variant).features.enabled("GangScheduling")
