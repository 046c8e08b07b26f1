"""The What-if page: pick a pending pod or paste one, pick a profile, see the whole trace with
the attempt page's tables; nothing is written, bad manifests are named by field."""

from __future__ import annotations

import html
import json
import re

import pytest
from django.apps import apps

from playground.clusters.models import ClusterConnection
from playground.workspaces.models import ClusterObject
from playground.workspaces.services import add_configuration_revision
from tests.playground.front.problems import error_items
from tests.playground.front.rows import node, pod

URL = "/w/lab/what-if/"
TWO_PROFILES = """\
apiVersion: kubescheduler.config.k8s.io/v1
kind: KubeSchedulerConfiguration
profiles:
- schedulerName: default-scheduler
- schedulerName: batch
"""
PASTED = """\
apiVersion: v1
kind: Pod
metadata: {name: ghost, namespace: nowhere}
spec:
  containers:
  - name: c
    image: app
    resources: {requests: {cpu: 500m}}
"""


@pytest.fixture
def small_cluster(cluster):
    """Two nodes (``roomy`` with more free cpu, ``tight``), a running pod and two pending."""
    cluster.add_many(
        [
            node("roomy", cpu="8"),
            node("tight", cpu="2"),
            pod("running", cpu="1", nodeName="tight"),
            pod("web", cpu="1"),
            pod("batch-job", cpu="100", schedulerName="batch"),
        ]
    )
    return cluster


def uid_of(name: str) -> str:
    return ClusterObject.objects.get(kind="Pod", name=name).uid


def row_counts() -> dict[str, int]:
    return {model._meta.label: model.objects.count() for model in apps.get_models()}


def test_the_page_is_in_the_workspace_navigation_and_lists_only_pending_pods(
    logged_in, small_cluster
):
    content = logged_in.get(URL).content.decode()
    assert '<a href="/w/lab/what-if/" aria-current="page">What-if</a>' in content
    assert f'<option value="{uid_of("web")}">default/web (default-scheduler)</option>' in content
    assert "default/batch-job" in content
    assert "default/running" not in content
    assert '<option value="default-scheduler">default-scheduler</option>' in content
    assert 'id="what-if-outcome"' not in content


def test_a_pending_pod_shows_its_whole_trace_and_the_selected_node(logged_in, small_cluster):
    counts = row_counts()
    response = logged_in.post(URL, {"pod": uid_of("web"), "profile": ""})
    content = response.content.decode()

    assert response.status_code == 200
    assert "Pod default/web through profile default-scheduler" in content
    assert "selected node <strong>roomy</strong>" in content
    assert 'aria-label="Extension points"' in content
    assert '<table class="matrix" aria-label="Filter">' in content
    assert '<table class="matrix" aria-label="Score">' in content
    assert "roomy ★" in content
    assert "Nothing was written." in content
    assert "Not run, as a what-if stops once the host is selected" in content
    assert row_counts() == counts


def test_the_default_profile_is_the_one_the_pods_scheduler_name_names(
    logged_in, small_cluster, workspace
):
    revision, problems = add_configuration_revision(workspace, TWO_PROFILES)
    assert revision is not None, problems
    content = logged_in.post(URL, {"pod": uid_of("batch-job")}).content.decode()
    assert "Pod default/batch-job through profile batch" in content
    content = logged_in.post(URL, {"pod": uid_of("web")}).content.decode()
    assert "Pod default/web through profile default-scheduler" in content
    content = logged_in.post(URL, {"pod": uid_of("web"), "profile": "batch"}).content.decode()
    assert "Pod default/web through profile batch" in content


def test_a_pod_that_fits_nowhere_says_why_and_what_it_would_have_written(logged_in, small_cluster):
    counts = row_counts()
    content = logged_in.post(URL, {"pod": uid_of("batch-job")}).content.decode()
    assert '<span class="badge Unschedulable">Unschedulable</span>' in content
    assert "0/2 nodes are available: 2 Insufficient cpu." in content
    assert "<code>create events</code>" in content
    assert "reason: FailedScheduling" in content
    assert "<code>patch pods/status</code>" in content
    assert row_counts() == counts


def test_a_pasted_pod_of_a_namespace_and_name_that_do_not_exist_runs(logged_in, small_cluster):
    counts = row_counts()
    content = logged_in.post(URL, {"manifest": PASTED}).content.decode()
    assert "Pod nowhere/ghost through profile default-scheduler" in content
    assert "selected node <strong>roomy</strong>" in content
    assert row_counts() == counts


def test_a_pasted_json_manifest_runs_too(logged_in, small_cluster):
    manifest = json.dumps(pod("from-json", cpu="1"))
    content = logged_in.post(URL, {"manifest": manifest}).content.decode()
    assert "Pod default/from-json through profile default-scheduler" in content


@pytest.mark.parametrize(
    "text",
    [
        PASTED.replace("image: app", "imag: app").replace(
            "  containers:", "  containerz: 1\n  containers:"
        ),
        json.dumps({**pod("j"), "spec": {**pod("j")["spec"], "containerz": 1}}, indent=1).replace(
            '"image"', '"imag"'
        ),
    ],
    ids=["YAML", "JSON"],
)
def test_each_unknown_field_of_a_pasted_pod_is_named_on_its_line(logged_in, small_cluster, text):
    lines = text.splitlines()
    where = {
        field: next(number for number, line in enumerate(lines, start=1) if field in line)
        for field in ("containerz", "imag")
    }
    content = logged_in.post(URL, {"manifest": text}).content.decode()
    items = error_items(content)
    placed = dict(
        re.fullmatch(r"<strong>line (\d+)</strong> · (.*)", item).groups()[::-1] for item in items
    )
    owner = 'Pod "nowhere/ghost"' if "ghost" in text else 'Pod "default/j"'
    assert placed == {
        f'{owner}: strict decoding error: unknown field "spec.containerz"': str(
            where["containerz"]
        ),
        f'{owner}: strict decoding error: unknown field "spec.containers[0].imag"': str(
            where["imag"]
        ),
    }


@pytest.mark.parametrize(
    ("text", "field", "problem"),
    [
        (
            PASTED.replace("cpu: 500m", "cpu: lots"),
            "spec.containers[0].resources.requests.cpu",
            "line 8",
        ),
        (PASTED.replace("kind: Pod", "kind: Node"), "kind", "must be Pod, not 'Node'"),
        (PASTED.replace("name: ghost", "name: Ghost_1"), "metadata.name", "Invalid value"),
        (PASTED + "  nodeName: roomy\n", "spec.nodeName", "already bound to node"),
        ("metadata: [unclosed", "", "the YAML cannot be read"),
        (
            PASTED.replace("cpu: 500m", 'cpu: "-1"'),
            "spec.containers[0].resources.requests[cpu]",
            'Invalid value: "-1": must be greater than or equal to 0',
        ),
        (
            PASTED.replace("image: app", "imag: app"),
            "",
            'strict decoding error: unknown field "spec.containers[0].imag"',
        ),
    ],
)
def test_a_bad_manifest_is_named_by_field_and_the_text_is_kept(
    logged_in, small_cluster, text, field, problem
):
    response = logged_in.post(URL, {"manifest": text})
    content = html.unescape(response.content.decode())
    assert response.status_code == 422
    assert '<ul class="errors" role="alert">' in content
    if field:
        assert f"<code>{field}</code>" in content
    assert problem in content
    assert 'id="what-if-outcome"' not in content
    assert text in content, "the pasted text stays in the form"


def test_neither_a_pod_nor_a_manifest_or_a_gone_pod_is_a_clear_error(logged_in, small_cluster):
    response = logged_in.post(URL, {"pod": "", "manifest": "  "})
    assert response.status_code == 422
    assert "pick a pending pod or paste a pod manifest" in response.content.decode()
    response = logged_in.post(URL, {"pod": "no-such-uid"})
    assert "the pod no-such-uid does not exist" in response.content.decode()
    response = logged_in.post(URL, {"pod": uid_of("web"), "profile": "nope"})
    assert "no profile &#x27;nope&#x27;" in response.content.decode()


def test_a_link_may_ask_for_a_pods_what_if(logged_in, small_cluster):
    content = logged_in.get(URL, {"pod": uid_of("web")}).content.decode()
    assert "selected node <strong>roomy</strong>" in content


def test_an_htmx_request_gets_the_form_and_outcome_only(htmx, small_cluster):
    content = htmx.post(URL, {"pod": uid_of("web")}).content.decode()
    assert '<div id="what-if">' in content and "selected node <strong>roomy</strong>" in content
    assert "<html" not in content


def test_a_mirrored_workspace_runs_what_ifs_too(logged_in, small_cluster, user, workspace):
    ClusterConnection.objects.create(name="prod", owner=user, workspace=workspace)
    counts = row_counts()
    content = logged_in.post(URL, {"pod": uid_of("web")}).content.decode()
    assert "selected node <strong>roomy</strong>" in content
    assert row_counts() == counts


def test_strangers_do_not_see_the_page(client, stranger, workspace):
    client.force_login(stranger)
    assert client.get(URL).status_code == 404
