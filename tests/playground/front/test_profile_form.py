"""The profile form's changes: reorder, disable, enable, weights and args, never breaking."""

import pytest
import yaml

from playground.front.configuration import check_configuration
from playground.front.profile_edits import EditError, moved
from playground.front.profile_form import edit_configuration

HEADER = "apiVersion: kubescheduler.config.k8s.io/v1\nkind: KubeSchedulerConfiguration\n"


def effective(text: str, point: str, index: int = 0) -> list:
    checked = check_configuration(text)
    assert checked.valid, checked.problems
    return checked.profiles[index].points.get(point, [])


def test_moving_a_plugin_up_changes_the_order_it_runs_in():
    before = [name for name, _ in effective(HEADER, "filter")]
    second = before[1]
    text = edit_configuration(HEADER, 0, f"up:filter:{second}", {})
    after = [name for name, _ in effective(text, "filter")]
    assert after == [second, before[0], *before[2:]]


def test_the_point_is_rewritten_as_its_whole_list_with_defaults_disabled():
    text = edit_configuration(HEADER, 0, "disable:filter:TaintToleration", {})
    section = yaml.safe_load(text)["profiles"][0]["plugins"]["filter"]
    assert section["disabled"] == [{"name": "*"}]
    assert {"name": "TaintToleration"} not in section["enabled"]


def test_disabling_a_plugin_at_one_point_keeps_it_at_the_others():
    text = edit_configuration(HEADER, 0, "disable:filter:TaintToleration", {})
    assert "TaintToleration" not in [name for name, _ in effective(text, "filter")]
    assert ("TaintToleration", 3) in effective(text, "score")


def test_enabling_a_plugin_appends_it():
    text = edit_configuration(HEADER, 0, "add:permit", {"add:permit": "WaitForApproval"})
    assert effective(text, "permit") == [("WaitForApproval", None)]


def test_a_score_plugin_is_enabled_with_weight_one():
    base = edit_configuration(HEADER, 0, "disable:score:ImageLocality", {})
    text = edit_configuration(base, 0, "add:score", {"add:score": "ImageLocality"})
    assert effective(text, "score")[-1] == ("ImageLocality", 1)


def test_weights_are_saved_for_every_score_plugin():
    names = [name for name, _ in effective(HEADER, "score")]
    data = {f"weight:{name}": "5" for name in names}
    text = edit_configuration(HEADER, 0, "weights:score", data)
    assert effective(text, "score") == [(name, 5) for name in names]


def test_args_replace_the_plugins_defaults():
    args = "scoringStrategy:\n  type: MostAllocated\n  resources: [{name: cpu, weight: 1}]\n"
    text = edit_configuration(HEADER, 0, "args:NodeResourcesFit", {"args:NodeResourcesFit": args})
    checked = check_configuration(text)
    assert checked.profiles[0].args["NodeResourcesFit"]["scoringStrategy"]["type"] == (
        "MostAllocated"
    )


def test_a_change_that_would_break_the_configuration_is_refused_with_the_reason():
    with pytest.raises(EditError) as err:
        edit_configuration(HEADER, 0, "add:filter", {"add:filter": "PrioritySort"})
    assert str(err.value) == (
        "not changed: profiles[0]: creating profile for scheduler name default-scheduler: "
        'plugin "PrioritySort" does not extend FilterPlugin plugin'
    )


def test_invalid_args_are_refused_with_upstreams_message():
    bad = "scoringStrategy: {type: Nope}"
    with pytest.raises(EditError) as err:
        edit_configuration(HEADER, 0, "args:NodeResourcesFit", {"args:NodeResourcesFit": bad})
    assert "scoringStrategy.type: Unsupported value" in str(err.value)


@pytest.mark.parametrize(
    ("text", "op", "data", "message"),
    [
        (HEADER + "parallelism: 0\n", "up:filter:NodeName", {}, "the form needs a valid"),
        (HEADER, "up:filter:NodeUnschedulable", {}, ""),
        (HEADER, "up:nowhere:NodeName", {}, "unknown extension point 'nowhere'"),
        (HEADER, "up:filter:Nope", {}, "Nope is not enabled at this extension point"),
        (HEADER, "add:filter", {"add:filter": "NodeName"}, "NodeName is already enabled"),
        (HEADER, "add:filter", {}, "choose a plugin to enable"),
        (HEADER, "weights:score", {}, "must be a whole number"),
        (HEADER, "args:NodeResourcesFit", {"args:NodeResourcesFit": "[1]"}, "must be a YAML map"),
        (HEADER, "args:NodeResourcesFit", {"args:NodeResourcesFit": "a: ["}, "cannot be read"),
        (HEADER, "explode:filter:NodeName", {}, "unknown change 'explode'"),
    ],
    ids=[
        "an invalid configuration",
        "the first plugin moved up stays first",
        "an unknown point",
        "a plugin that is not there",
        "a plugin enabled twice",
        "no plugin chosen",
        "a missing weight",
        "args that are no mapping",
        "args that are no YAML",
        "an unknown change",
    ],
)
def test_impossible_changes_say_why(text, op, data, message):
    if not message:
        first = effective(edit_configuration(text, 0, op, data), "filter")[0][0]
        assert first == "NodeUnschedulable"
        return
    with pytest.raises(EditError, match=message):
        edit_configuration(text, 0, op, data)


def test_moving_stays_in_bounds():
    plugins = [("a", None), ("b", None)]
    assert moved(plugins, "b", +1) == plugins
    assert moved(plugins, "a", -1) == plugins
    assert moved(plugins, "a", +1) == [("b", None), ("a", None)]


def test_a_second_profile_is_edited_on_its_own():
    text = HEADER + "profiles:\n- schedulerName: a\n- schedulerName: b\n"
    changed = edit_configuration(text, 1, "disable:filter:NodeName", {})
    assert "NodeName" in [name for name, _ in effective(changed, "filter", 0)]
    assert "NodeName" not in [name for name, _ in effective(changed, "filter", 1)]


def test_a_negative_weight_kube_scheduler_accepts_is_saved_from_the_form():
    names = [name for name, _ in effective(HEADER, "score")]
    data = {f"weight:{name}": "1" for name in names} | {f"weight:{names[-1]}": "-1"}
    text = edit_configuration(HEADER, 0, "weights:score", data)
    assert effective(text, "score")[-1] == (names[-1], -1)


def test_a_negative_weight_that_could_overflow_is_refused_with_upstreams_message():
    names = [name for name, _ in effective(HEADER, "score")]
    data = {f"weight:{name}": "1" for name in names} | {f"weight:{names[0]}": "-1"}
    with pytest.raises(EditError) as err:
        edit_configuration(HEADER, 0, "weights:score", data)
    assert str(err.value).endswith("score plugins: total score of Score plugins could overflow")
