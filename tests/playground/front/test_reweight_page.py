"""The attempt page's Reweight panel without JavaScript (the weights in the query, the ranking
computed on the server) and its "Compare with these weights" endpoint: a redirect to the
Compare page with a profile that validates and has the new weights, or the page again with
every problem named."""

from __future__ import annotations

import datetime
import re
from urllib.parse import parse_qs, urlsplit

import pytest
import yaml

from playground.front.configuration import check_configuration
from playground.workspaces.models import AttemptTrace, SchedulerConfiguration, SchedulingAttempt
from tests.playground.front.reweight_scenario import CONFIG, scheduled_web
from tests.playground.front.rows import pod, store
from tests.playground.front.scenario import attempt_of_web

PAGE = "/w/lab/pods/web-uid/attempts/1/"
COMPARE = PAGE + "reweighted-profile/"


def stored_attempt(workspace, run, revision: int | None = None) -> SchedulingAttempt:
    """The run's attempt as the web pod's (uid web-uid) attempt 1, with its trace, run under
    ``revision`` (0: the default configuration; None: not recorded, an old attempt)."""
    engine = run["attempt"]
    attempt = SchedulingAttempt.objects.create(
        workspace=workspace,
        configuration_revision=revision,
        pod_key=engine.pod,
        pod_uid="web-uid",
        profile=engine.profile,
        result=engine.result,
        node=engine.node or "",
        evaluated_nodes=engine.evaluated_nodes,
        feasible_nodes=engine.feasible_nodes,
        final_scores=engine.final_scores,
    )
    AttemptTrace.pack(attempt, run["events"]).save()
    return attempt


def made_before_the_attempt(workspace, revision: int, text: str = CONFIG) -> None:
    row = SchedulerConfiguration.objects.create(workspace=workspace, revision=revision, text=text)
    earlier = row.created - datetime.timedelta(seconds=1)
    SchedulerConfiguration.objects.filter(pk=row.pk).update(created=earlier)


@pytest.fixture
def web_attempt(workspace):
    """The scenario's configuration as revision 1, the web pod and its real attempt under it:
    node-a wins at weights 1 and 1."""
    made_before_the_attempt(workspace, 1)
    run = scheduled_web()
    store(workspace, pod("web", nodeName=run["attempt"].node))
    return stored_attempt(workspace, run, revision=1)


def ranking(content: str) -> list[list[str]]:
    """The reweighted ranking's rows as text cells."""
    body = content.split('aria-label="Reweighted ranking"', 1)[1].split("</table>", 1)[0]
    rows = re.findall(r"<tr[^>]*>(.*?)</tr>", body.split("<tbody", 1)[1], re.S)
    return [
        [re.sub(r"<[^>]+>", "", cell).strip() for cell in re.findall(r"<td[^>]*>(.*?)</td>", row)]
        for row in rows
    ]


def test_the_panel_starts_at_the_weights_the_attempt_ran_with(logged_in, web_attempt):
    content = logged_in.get(PAGE).content.decode()
    assert '<h2 id="reweight-title">Reweight</h2>' in content
    assert 'name="weight.NodeAffinity" value="1"' in content
    assert 'name="weight.NodeResourcesFit" value="1"' in content
    assert "With these weights node-a still wins, with 152." in content
    assert ranking(content) == [["node-a ★", "152", "152", "1"], ["node-b", "93", "93", "2"]]
    assert "revision 1 (the one this attempt ran under)" in content
    assert 'Ran under <a href="/w/lab/profile/?revision=1">revision 1</a>' in content
    # InterPodAffinity and others skip at PreScore, where multiPoint still runs them; they are
    # not Score plugins of this profile, so they are not said to score nothing.
    assert "scored nothing for this pod" not in content
    assert "are not the ones this attempt ran with" not in content
    assert 'id="reweight-data"' in content and "js/reweight.js" in content


def test_without_javascript_the_query_weights_are_ranked_on_the_server(logged_in, web_attempt):
    content = logged_in.get(PAGE, {"weight.NodeResourcesFit": "3"}).content.decode()
    assert 'name="weight.NodeResourcesFit" value="3"' in content
    assert "With these weights node-b would win instead of node-a, with 279." in content
    assert ranking(content) == [["node-b", "93", "279", "1"], ["node-a ★", "152", "256", "2"]]


def test_a_bad_weight_on_the_page_is_named_and_the_recorded_one_used(logged_in, web_attempt):
    content = logged_in.get(PAGE, {"weight.NodeAffinity": "lots"}).content.decode()
    assert "weight.NodeAffinity: must be a whole number, not &quot;lots&quot;" in content
    assert "With these weights node-a still wins, with 152." in content


def test_compare_with_these_weights_opens_the_compare_page_with_the_profile(logged_in, web_attempt):
    response = logged_in.get(COMPARE, {"weight.NodeAffinity": "1", "weight.NodeResourcesFit": "3"})
    assert response.status_code == 302
    location = urlsplit(response["Location"])
    assert location.path == "/w/lab/compare/"
    query = parse_qs(location.query)
    assert query["name"] == ["default/web attempt 1: NodeResourcesFit 1→3"]
    text = query["profile"][0]
    checked = check_configuration(text)
    assert checked.valid, checked.problems
    assert checked.profiles[0].points["score"] == [("NodeAffinity", 1), ("NodeResourcesFit", 3)]
    score = yaml.safe_load(text)["profiles"][0]["plugins"]["score"]
    assert score["enabled"][1] == {"name": "NodeResourcesFit", "weight": 3}


def test_an_out_of_range_weight_is_refused_naming_the_plugin_and_the_bound(logged_in, web_attempt):
    response = logged_in.get(COMPARE, {"weight.NodeResourcesFit": "2147483648"})
    assert response.status_code == 422
    content = response.content.decode()
    assert (
        "weight.NodeResourcesFit: 2147483648 is out of range: a Score plugin&#x27;s weight is an "
        "int32, from -2147483648 to 2147483647"
    ) in content
    assert 'name="weight.NodeResourcesFit" value="1"' in content


def test_a_profile_kube_scheduler_would_refuse_comes_back_with_why(logged_in, web_attempt):
    response = logged_in.get(COMPARE, {"weight.NodeAffinity": "-5"})
    assert response.status_code == 422
    content = response.content.decode()
    assert "total score of Score plugins could overflow" in content
    assert "negative here: NodeAffinity" in content
    assert 'name="weight.NodeAffinity" value="-5"' in content


def test_a_revision_with_other_weights_is_pointed_out(logged_in, web_attempt):
    SchedulerConfiguration.objects.filter(revision=1).update(
        text=CONFIG.replace("NodeResourcesFit, weight: 1", "NodeResourcesFit, weight: 4")
    )
    content = logged_in.get(PAGE).content.decode()
    assert "its weights of NodeResourcesFit are not the ones this attempt ran with." in content
    assert 'name="weight.NodeResourcesFit" value="1"' in content, "the trace's weights lead"


def test_the_recorded_revision_is_the_base_not_one_saved_before_the_attempt(
    logged_in, workspace, web_attempt
):
    # Revision 2 was saved before the attempt, but the scheduler had not picked it up.
    four = CONFIG.replace("NodeResourcesFit, weight: 1", "NodeResourcesFit, weight: 4")
    made_before_the_attempt(workspace, 2, four)
    content = logged_in.get(PAGE).content.decode()
    assert "revision 1 (the one this attempt ran under)" in content
    assert "are not the ones this attempt ran with" not in content

    response = logged_in.get(COMPARE, {"weight.NodeAffinity": "2"})
    text = parse_qs(urlsplit(response["Location"]).query)["profile"][0]
    assert dict(check_configuration(text).profiles[0].points["score"]) == {
        "NodeAffinity": 2,
        "NodeResourcesFit": 1,
    }


def test_an_old_attempt_says_its_revision_is_a_guess(logged_in, workspace):
    """An attempt stored before attempts recorded their revision (null): the workspace's
    latest revision made before it, and the page says so."""
    made_before_the_attempt(workspace, 1)
    run = scheduled_web()
    store(workspace, pod("web", nodeName=run["attempt"].node))
    stored_attempt(workspace, run, revision=None)
    SchedulerConfiguration.objects.filter(revision=1).update(
        text=CONFIG.replace("NodeResourcesFit, weight: 1", "NodeResourcesFit, weight: 4")
    )
    content = logged_in.get(PAGE).content.decode()
    assert (
        "revision 1 (the workspace's latest made before this attempt, which recorded no "
        "revision)" in content
    )
    assert "as far as can be told: this attempt was stored before attempts recorded" in content
    assert (
        "its weights of NodeResourcesFit are not the ones this attempt ran with, so the "
        "attempt may have run with another revision" in content
    )


def test_an_attempt_without_scores_has_no_panel_and_no_profile(logged_in, workspace):
    run = scheduled_web()
    run["events"] = [e for e in run["events"] if e.get("point") not in ("score", "normalizeScore")]
    stored_attempt(workspace, run)
    assert "Reweight" not in logged_in.get(PAGE).content.decode()
    assert logged_in.get(COMPARE).status_code == 404


def test_htmx_swaps_of_the_trace_leave_the_panel_out(htmx, web_attempt):
    content = htmx.get(PAGE, {"rows": "all"}).content.decode()
    assert 'class="attempt-trace"' in content and "Reweight" not in content


def test_a_stranger_cannot_build_a_profile_from_the_attempt(client, stranger, web_attempt):
    client.force_login(stranger)
    assert client.get(COMPARE).status_code == 404


def test_under_the_default_profile_plugins_skipped_at_pre_score_keep_their_weights(
    logged_in, workspace
):
    run = attempt_of_web()  # the default configuration, no revision: kube-scheduler's defaults
    stored_attempt(workspace, run, revision=SchedulingAttempt.DEFAULT_CONFIGURATION)
    content = logged_in.get(PAGE).content.decode()
    assert "InterPodAffinity" in content.split("scored nothing for this pod")[0].rsplit("<p", 1)[1]
    assert 'name="weight.TaintToleration" value="3"' in content
    assert 'name="weight.InterPodAffinity"' not in content
    assert "the default configuration (the one this attempt ran under)" in content
    assert "Ran under the default configuration (no revision)." in content

    response = logged_in.get(COMPARE, {"weight.TaintToleration": "0", "weight.ImageLocality": "9"})
    text = parse_qs(urlsplit(response["Location"]).query)["profile"][0]
    score = dict(check_configuration(text).profiles[0].points["score"])
    assert score["InterPodAffinity"] == 2 and score["PodTopologySpread"] == 2, "kept"
    assert score["ImageLocality"] == 9
    assert score["TaintToleration"] == 1, "0 is written, and read as 1"
    enabled = yaml.safe_load(text)["profiles"][0]["plugins"]["score"]["enabled"]
    assert {"name": "TaintToleration", "weight": 0} in enabled
