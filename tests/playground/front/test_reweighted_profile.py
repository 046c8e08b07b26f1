"""The profile "Compare with these weights" builds: the configuration the attempt ran with, its
profile's Score weights replaced the way the profile editor writes them and everything else
kept; one the engine schedules with as the sliders predicted; refused, with the reason, when
kube-scheduler would refuse it."""

from __future__ import annotations

import datetime
from urllib.parse import parse_qs, urlsplit

import pytest
import yaml

from framework.simulator import Simulation
from playground.front.configuration import MINIMAL_CONFIGURATION, check_configuration
from playground.front.reweighted_profile import (
    BaseConfiguration,
    ReweightError,
    attempt_configuration,
    compare_url,
    configured_weights,
    reweighted_configuration,
    score_weights,
    variant_name,
    weights_that_differ,
)
from playground.workspaces.models import SchedulerConfiguration, SchedulingAttempt
from playground.workspaces.services import default_configuration_text
from tests.playground.front.reweight_scenario import CONFIG, OBJECTS

SCENARIO = BaseConfiguration(CONFIG, "", 1)


def score_section(text: str, index: int = 0) -> dict:
    return yaml.safe_load(text)["profiles"][index]["plugins"]["score"]


def without_score(text: str) -> dict:
    document = yaml.safe_load(text)
    for profile in document.get("profiles") or ():
        (profile.get("plugins") or {}).pop("score", None)
    return document


def test_the_weights_are_set_in_the_profiles_score_plugins_as_the_editor_writes_them():
    text = reweighted_configuration(SCENARIO, "default-scheduler", {"NodeResourcesFit": 3})
    assert score_section(text) == {
        "enabled": [
            {"name": "NodeAffinity", "weight": 1},
            {"name": "NodeResourcesFit", "weight": 3},
        ],
        "disabled": [{"name": "*"}],
    }
    assert check_configuration(text).valid
    assert without_score(text) == without_score(CONFIG)


def test_the_engine_schedules_with_the_new_profile_where_the_sliders_said():
    text = reweighted_configuration(SCENARIO, "default-scheduler", {"NodeResourcesFit": 3})
    attempt = Simulation(text, OBJECTS).run()[0].attempt
    assert attempt.node == "node-b"
    assert attempt.final_scores == {"node-a": 256, "node-b": 279}


def test_everything_but_the_weights_of_a_full_default_configuration_is_kept():
    base = BaseConfiguration(default_configuration_text(), "", 1)
    weights = {**score_weights(base, "default-scheduler"), "ImageLocality": 7, "TaintToleration": 0}
    text = reweighted_configuration(base, "default-scheduler", weights)
    assert without_score(text) == without_score(base.text)
    enabled = {entry["name"]: entry["weight"] for entry in score_section(text)["enabled"]}
    assert enabled["ImageLocality"] == 7
    assert enabled["TaintToleration"] == 0, "kept as given: the framework reads 0 as 1"
    profile = check_configuration(text).profiles[0]
    assert dict(profile.points["score"])["TaintToleration"] == 1


def test_only_the_attempts_profile_changes():
    two = CONFIG + "- schedulerName: other\n"
    text = reweighted_configuration(BaseConfiguration(two), "other", {"ImageLocality": 5})
    assert yaml.safe_load(text)["profiles"][0] == yaml.safe_load(two)["profiles"][0]
    assert {"name": "ImageLocality", "weight": 5} in score_section(text, 1)["enabled"]


def test_a_negative_weight_kube_scheduler_refuses_is_named():
    with pytest.raises(ReweightError) as refused:
        reweighted_configuration(SCENARIO, "default-scheduler", {"NodeAffinity": -2})
    message = str(refused.value)
    assert "score plugins: total score of Score plugins could overflow" in message
    assert message.endswith("negative here: NodeAffinity)")


def test_a_profile_or_plugin_the_configuration_lacks_is_refused():
    with pytest.raises(ReweightError, match="revision 1 has no profile named other"):
        reweighted_configuration(SCENARIO, "other", {})
    with pytest.raises(ReweightError, match="ImageLocality: not a Score plugin of profile"):
        reweighted_configuration(SCENARIO, "default-scheduler", {"ImageLocality": 2})


def test_weights_that_differ_from_the_trace_are_named():
    recorded = {"NodeAffinity": 1, "NodeResourcesFit": 2}
    configured = configured_weights(SCENARIO, "default-scheduler")
    assert configured == {"NodeAffinity": 1, "NodeResourcesFit": 1}
    assert weights_that_differ(configured, recorded) == ["NodeResourcesFit"]
    assert configured_weights(SCENARIO, "other") == {}
    assert weights_that_differ({}, recorded) == ["NodeAffinity", "NodeResourcesFit"]


def revisions(workspace, made_at: dict[int, datetime.datetime]) -> None:
    """Revisions of CONFIG made at the times given, their text starting with # <revision>."""
    for revision, created in made_at.items():
        row = SchedulerConfiguration.objects.create(
            workspace=workspace, revision=revision, text=f"# {revision}\n{CONFIG}"
        )
        SchedulerConfiguration.objects.filter(pk=row.pk).update(created=created)


def test_an_attempt_ran_with_the_revision_it_recorded(workspace):
    attempt = SchedulingAttempt.objects.create(
        workspace=workspace, pod_key="default/web", configuration_revision=1
    )
    revisions(workspace, {1: attempt.created, 2: attempt.created})  # 2: not picked up yet
    base = attempt_configuration(attempt)
    assert (base.revision, base.recorded, base.label) == (1, True, "revision 1")
    assert base.text.startswith("# 1\n")


def test_an_attempt_under_the_default_configuration_ran_with_it_whatever_was_saved(workspace):
    attempt = SchedulingAttempt.objects.create(
        workspace=workspace, pod_key="default/web", configuration_revision=0
    )
    revisions(workspace, {1: attempt.created - datetime.timedelta(minutes=1)})
    assert attempt_configuration(attempt) == BaseConfiguration(MINIMAL_CONFIGURATION)


def test_an_old_attempt_is_taken_to_run_with_the_latest_revision_made_before_it(workspace):
    attempt = SchedulingAttempt.objects.create(workspace=workspace, pod_key="default/web")
    assert attempt.configuration_revision is None, "stored before attempts recorded it"
    guessed = BaseConfiguration(MINIMAL_CONFIGURATION, recorded=False)
    assert attempt_configuration(attempt) == guessed
    before = attempt.created - datetime.timedelta(minutes=1)
    revisions(workspace, {1: before, 2: before, 3: attempt.created + datetime.timedelta(1)})
    base = attempt_configuration(attempt)
    assert (base.revision, base.recorded) == (2, False)
    assert base.text.startswith("# 2\n")


def test_a_recorded_revision_deleted_since_is_guessed_as_an_old_attempts(workspace):
    attempt = SchedulingAttempt.objects.create(
        workspace=workspace, pod_key="default/web", configuration_revision=5
    )
    revisions(workspace, {1: attempt.created - datetime.timedelta(minutes=1)})
    base = attempt_configuration(attempt)
    assert (base.revision, base.recorded) == (1, False)


def test_the_compare_url_carries_the_yaml_and_a_label(workspace):
    text = reweighted_configuration(SCENARIO, "default-scheduler", {"NodeResourcesFit": 3})
    url = urlsplit(compare_url(workspace, text, "x" * 300))
    assert url.path == "/w/lab/compare/"
    query = parse_qs(url.query)
    assert query["profile"] == [text]
    assert query["name"] == ["x" * 200]


def test_the_label_names_the_attempt_and_the_weights_changed(workspace):
    attempt = SchedulingAttempt(workspace=workspace, pod_key="default/web", number=2)
    recorded = {"NodeAffinity": 1, "NodeResourcesFit": 1}
    changed = {"NodeAffinity": 1, "NodeResourcesFit": 3}
    assert variant_name(attempt, recorded, changed) == "default/web attempt 2: NodeResourcesFit 1→3"
    assert variant_name(attempt, recorded, recorded) == (
        "default/web attempt 2: the weights it ran with"
    )
