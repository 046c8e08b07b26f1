"""Checking a configuration as the scheduler service would take it."""

import subprocess
import sys
from pathlib import Path

import pytest

from playground.front.configuration import POINTS, Problem, check_configuration
from tests.framework.config.startup_cases import ACCEPTED, REFUSALS

EXAMPLES = Path(__file__).parents[3] / "examples"

HEADER = "apiVersion: kubescheduler.config.k8s.io/v1\nkind: KubeSchedulerConfiguration\n"


def profile_with(point: str, plugin: str) -> str:
    return (
        HEADER
        + "profiles:\n- schedulerName: custom\n  plugins:\n"
        + f"    {point}:\n      enabled: [{{name: {plugin}}}]\n"
    )


def test_the_default_configuration_expands_to_upstreams_default_plugins():
    checked = check_configuration(HEADER)
    assert checked.valid
    (profile,) = checked.profiles
    assert profile.name == "default-scheduler"
    assert profile.points["score"][:3] == [
        ("TaintToleration", 3),
        ("NodeAffinity", 2),
        ("NodeResourcesFit", 1),
    ]
    assert profile.points["queueSort"] == [("PrioritySort", None)]
    assert profile.args["NodeResourcesFit"]["scoringStrategy"]["type"] == "LeastAllocated"


def test_every_point_has_a_row_even_when_empty():
    (profile,) = check_configuration(HEADER).profiles
    rows = profile.point_rows()
    assert [point for point, _ in rows] == list(POINTS)
    assert dict(rows)["permit"] == []


@pytest.mark.parametrize(
    ("text", "problems"),
    [
        (
            HEADER + "parallelism: 0\n",
            [
                Problem(
                    "parallelism", "Invalid value: 0: should be an integer value greater than zero"
                )
            ],
        ),
        (
            HEADER + "bogus: 1\n",
            [Problem("", 'strict decoding error: unknown field "bogus"')],
        ),
        (
            profile_with("filter", "Nope"),
            [
                Problem(
                    "profiles[0]",
                    "creating profile for scheduler name custom: "
                    'FilterPlugin "Nope" does not exist',
                )
            ],
        ),
        (
            profile_with("filter", "PrioritySort"),
            [
                Problem(
                    "profiles[0]",
                    "creating profile for scheduler name custom: "
                    'plugin "PrioritySort" does not extend FilterPlugin plugin',
                )
            ],
        ),
        ("", [Problem("", "the configuration is empty")]),
    ],
    ids=[
        "a field out of range, with its path",
        "an unknown field",
        "an unknown plugin",
        "a plugin at a point it does not implement",
        "nothing at all",
    ],
)
def test_problems_carry_upstreams_field_paths_and_words(text, problems):
    checked = check_configuration(text)
    assert checked.problems == problems
    assert not checked.valid and checked.profiles == []


def test_broken_yaml_is_reported_with_its_line():
    (problem,) = check_configuration("a: [").problems
    assert problem.message.startswith("yaml: line 1:")


def test_a_line_of_text_is_never_read_as_a_file_name():
    (problem,) = check_configuration("/etc/passwd").problems
    assert "root:" not in problem.message
    assert problem.message.startswith("couldn't get version/kind")


def test_the_playgrounds_own_permit_plugin_is_known():
    checked = check_configuration(profile_with("permit", "WaitForApproval"))
    assert checked.valid
    assert checked.profiles[0].points["permit"] == [("WaitForApproval", None)]


@pytest.mark.parametrize(
    ("body", "lines"), [case[1:] for case in REFUSALS], ids=[case[0] for case in REFUSALS]
)
def test_the_editor_refuses_what_config_validate_refuses_in_the_same_words(body, lines):
    problems = check_configuration(HEADER + body).problems
    assert [f"initializing profiles: {p.message}" for p in problems] == lines
    assert {p.field for p in problems} == {"profiles[0]"}


@pytest.mark.parametrize("body", [case[1] for case in ACCEPTED], ids=[case[0] for case in ACCEPTED])
def test_the_editor_accepts_what_kube_scheduler_starts_with(body):
    checked = check_configuration(HEADER + body)
    assert checked.problems == [] and checked.valid


@pytest.mark.parametrize(
    "path", sorted(EXAMPLES.glob("*/config.yaml")), ids=lambda p: p.parent.name
)
def test_the_editor_and_config_validate_agree_on_every_example(path):
    done = subprocess.run(
        [sys.executable, "-m", "framework", "config", "validate", str(path)],
        cwd=EXAMPLES.parent,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    checked = check_configuration(path.read_text())
    assert (done.returncode, done.stdout, done.stderr) == (0, "configuration is valid\n", "")
    assert checked.problems == [] and checked.valid
