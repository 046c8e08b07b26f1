"""A pod's page: its latest attempt's tables at once, every attempt, and each attempt's own
page under its pod and number."""

import re

import pytest

from playground.workspaces.models import AttemptTrace, SchedulingAttempt
from tests.playground.front.rows import pod, store
from tests.playground.front.scenario import attempt_of_web


@pytest.fixture
def web_attempt(workspace):
    """The web pod, its real attempt and the attempt's stored trace."""
    recorded = attempt_of_web()
    engine = recorded["attempt"]
    store(workspace, pod("web", nodeName=engine.node))
    attempt = SchedulingAttempt.objects.create(
        workspace=workspace,
        pod_key=engine.pod,
        pod_uid="uid-web",
        profile=engine.profile,
        cycle=1,
        result=engine.result,
        node=engine.node,
        evaluated_nodes=engine.evaluated_nodes,
        feasible_nodes=engine.feasible_nodes,
        final_scores=engine.final_scores,
    )
    AttemptTrace.pack(attempt, recorded["events"]).save()
    return attempt


def test_the_pod_page_lists_attempts_with_result_and_trace_links(logged_in, web_attempt):
    content = logged_in.get("/w/lab/pods/uid-web/").content.decode()
    assert "Pod default/web" in content
    assert '<span class="badge Scheduled">Scheduled</span>' in content
    url = "/w/lab/pods/uid-web/attempts/1/"
    assert f'<a href="{url}" hx-get="{url}" hx-target="#trace-{web_attempt.pk}">' in content
    assert f'<a href="{url}" title="attempt 1 of pod default/web">1</a>' in content


def test_the_pod_page_shows_the_latest_attempts_tables_without_a_click(logged_in, web_attempt):
    SchedulingAttempt.objects.create(
        workspace=web_attempt.workspace,
        pod_key="default/web",
        pod_uid="uid-web",
        result="Unschedulable",
        message="an earlier failure",
        created=web_attempt.created,
    )
    latest = SchedulingAttempt.objects.create(
        workspace=web_attempt.workspace,
        pod_key="default/web",
        pod_uid="uid-web",
        result=web_attempt.result,
        node=web_attempt.node,
        final_scores=web_attempt.final_scores,
    )
    AttemptTrace.pack(latest, web_attempt.trace.events()).save()
    content = logged_in.get("/w/lab/pods/uid-web/").content.decode()
    section = content[content.index('<section id="latest-attempt"') :]
    section = section[: section.index("</section>")]
    assert '<a href="/w/lab/pods/uid-web/attempts/3/"><strong>Attempt 3</strong></a>' in section
    assert 'aria-label="Filter"' in section and "4 nodes, 2 rejected" in section
    assert 'aria-label="Score"' in section and 'class="ranking"' in section
    assert f"{web_attempt.node} ★" in section
    # Older attempts stay one click away, in the attempts table.
    for number in (1, 2):
        url = f"/w/lab/pods/uid-web/attempts/{number}/"
        assert f'hx-get="{url}"' in content


def test_a_pod_without_attempts_says_where_its_tables_will_appear(logged_in, workspace):
    store(workspace, pod("new"))
    content = logged_in.get("/w/lab/pods/uid-new/").content.decode()
    assert "No attempt yet: the filter matrix and score table" in content


def test_the_pod_page_subscribes_to_the_pods_live_stream(logged_in, web_attempt):
    content = logged_in.get("/w/lab/pods/uid-web/").content.decode()
    assert 'hx-ext="ws" ws-connect="/ws/w/lab/pods/uid-web/"' in content


def test_an_unschedulable_attempt_shows_its_message(logged_in, workspace):
    store(workspace, pod("stuck"))
    SchedulingAttempt.objects.create(
        workspace=workspace,
        pod_key="default/stuck",
        pod_uid="uid-stuck",
        result="Unschedulable",
        message="0/4 nodes are available: 4 Insufficient cpu.",
    )
    content = logged_in.get("/w/lab/pods/uid-stuck/").content.decode()
    assert "0/4 nodes are available: 4 Insufficient cpu." in content


def test_htmx_gets_only_the_attempts_table(htmx, web_attempt):
    content = htmx.get("/w/lab/pods/uid-web/").content.decode()
    assert content.startswith('<table id="pod-attempts">')


def test_a_pod_nobody_knows_is_not_found(logged_in, workspace):
    assert logged_in.get("/w/lab/pods/nope/").status_code == 404


def test_a_deleted_pods_attempts_remain_visible(logged_in, workspace):
    SchedulingAttempt.objects.create(
        workspace=workspace, pod_key="default/gone", pod_uid="uid-gone", result="Scheduled"
    )
    content = logged_in.get("/w/lab/pods/uid-gone/").content.decode()
    assert "This pod has been deleted" in content


def test_the_trace_fragment_has_the_matrix_the_scores_and_the_ranking(htmx, web_attempt):
    content = htmx.get("/w/lab/pods/uid-web/attempts/1/").content.decode()
    assert content.startswith('<div class="attempt-trace">')
    assert "4 nodes, 2 rejected" in content
    assert '<td class="fail" title="UnschedulableAndUnresolvable">Insufficient cpu</td>' in content
    assert "TaintToleration <span" in content and "\N{MULTIPLICATION SIGN}3" in content
    assert 'class="ranking"' in content
    assert f"{web_attempt.node} ★" in content


def test_the_trace_page_works_without_javascript(logged_in, web_attempt):
    content = logged_in.get("/w/lab/pods/uid-web/attempts/1/").content.decode()
    assert content.startswith("<!doctype html>")
    assert "<title>Attempt 1 of pod default/web · Lab · Scheduler Playground</title>" in content
    assert 'Attempt 1 of pod <a href="/w/lab/pods/uid-web/">default/web</a>' in content
    assert 'class="matrix"' in content


def test_an_attempts_url_by_id_leads_to_its_pod_and_number(logged_in, web_attempt):
    second = SchedulingAttempt.objects.create(
        workspace=web_attempt.workspace, pod_key="default/web", pod_uid="uid-web", result="Error"
    )
    response = logged_in.get(f"/w/lab/attempts/{second.pk}/?rows=all")
    assert response.status_code == 301
    assert response["Location"] == "/w/lab/pods/uid-web/attempts/2/?rows=all"


def test_an_attempt_number_the_pod_never_reached_is_not_found(logged_in, web_attempt):
    assert logged_in.get("/w/lab/pods/uid-web/attempts/2/").status_code == 404
    assert logged_in.get("/w/lab/pods/uid-other/attempts/1/").status_code == 404


def test_large_matrices_show_the_first_rows_and_offer_the_rest(logged_in, workspace, monkeypatch):
    monkeypatch.setattr("playground.front.views.pods.MATRIX_ROWS", 2)
    attempt = SchedulingAttempt.objects.create(
        workspace=workspace, pod_key="default/p", pod_uid="u", result="Scheduled"
    )
    batch = {
        "kind": "pluginBatch",
        "point": "filter",
        "plugin": "Fit",
        "code": "Success",
        "data": {"nodes": ["a", "b", "c"], "failed": {}},
    }
    AttemptTrace.pack(attempt, [batch]).save()
    first = logged_in.get("/w/lab/pods/u/attempts/1/").content.decode()
    assert "<td>b</td>" in first and "<td>c</td>" not in first
    assert "Show all 3 nodes" in first
    assert 'hx-get="/w/lab/pods/u/attempts/1/?rows=all" hx-target="closest .attempt-trace"' in first
    everything = logged_in.get("/w/lab/pods/u/attempts/1/?rows=all").content.decode()
    assert "<td>c</td>" in everything


def test_an_attempt_without_a_stored_trace_says_so(logged_in, workspace):
    SchedulingAttempt.objects.create(
        workspace=workspace, pod_key="default/p", pod_uid="u", result="Scheduled"
    )
    assert "No trace was stored" in logged_in.get("/w/lab/pods/u/attempts/1/").content.decode()


@pytest.mark.parametrize(
    ("nominated", "victims", "shown", "hidden"),
    [
        (
            "n2",
            ["batch/a", "batch/b"],
            "Preemption: nominated node <strong>n2</strong>; victims "
            "<code>batch/a</code>, <code>batch/b</code>",
            None,
        ),
        ("n2", [], "Preemption: nominated node <strong>n2</strong></p>", "victim"),
        ("", [], None, "Preemption"),
    ],
    ids=["nominated with victims", "nominated, victims already gone", "no preemption"],
)
def test_an_attempt_says_what_preemption_did(
    logged_in, workspace, nominated, victims, shown, hidden
):
    SchedulingAttempt.objects.create(
        workspace=workspace,
        pod_key="default/p",
        pod_uid="u",
        result="Unschedulable",
        nominated_node=nominated,
        victims=victims,
    )
    content = logged_in.get("/w/lab/pods/u/attempts/1/").content.decode()
    if shown:
        assert shown in content
    if hidden:
        assert hidden not in content


def test_attempts_of_another_workspace_are_not_found(logged_in, workspace, stranger):
    from playground.workspaces.models import Workspace

    other = Workspace.objects.create(name="Other", slug="other", owner=stranger)
    attempt = SchedulingAttempt.objects.create(
        workspace=other, pod_key="default/p", pod_uid="u", result="Scheduled"
    )
    assert logged_in.get("/w/lab/pods/u/attempts/1/").status_code == 404
    assert logged_in.get(f"/w/lab/attempts/{attempt.pk}/").status_code == 404


def test_the_pod_page_shows_each_plugins_result_and_the_skipped_plugins(logged_in, web_attempt):
    """Plugins skipped at PreFilter or PreScore were missing from the tables, and a point that
    succeeded named no plugin."""
    page = logged_in.get("/w/lab/pods/uid-web/").content.decode()
    assert '<tr class="plugin-row">' in page and "↳ DefaultBinder" in page
    assert 'title="its PreFilter returned Skip">NodePorts</th>' in page
    assert 'title="its PreScore returned Skip">InterPodAffinity</th>' in page
    assert "NodeResourcesFit: its PreFilter returned Skip" not in page


def test_a_points_time_stopped_at_the_debugger_is_shown_apart_from_its_own(logged_in, workspace):
    attempt = SchedulingAttempt.objects.create(
        workspace=workspace, pod_key="default/p", pod_uid="u", result="Scheduled"
    )
    point = {"kind": "extensionPoint", "point": "filter", "code": "Success"}
    AttemptTrace.pack(
        attempt,
        [
            {**point, "durationSeconds": 0.00123, "stoppedSeconds": 56.2335},
            {**point, "point": "score", "durationSeconds": 0.0005},
        ],
    ).save()
    content = logged_in.get("/w/lab/pods/u/attempts/1/").content.decode()
    filter_row, score_row = re.findall(r'<tr class="point-row">(.*?)</tr>', content, re.S)
    assert re.search(r'<td class="num">1\.23<div [^>]*data-testid="stopped-time"', filter_row)
    assert "stopped 56.2 s</div>" in filter_row
    assert "stopped" not in score_row
