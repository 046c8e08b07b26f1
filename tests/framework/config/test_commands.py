"""``python -m framework config defaults | validate``, run as a user runs them."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from tests.framework.config.startup_cases import ACCEPTED, HEADER, REFUSALS

REPO = Path(__file__).parents[3]
REFERENCE = REPO / "tests" / "fixtures" / "config" / "kube-scheduler-v1.36.2-defaults.yaml"


def run(*args: str, stdin: str | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "framework", "config", *args],
        cwd=REPO,
        input=stdin,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )


@pytest.fixture
def config_file(tmp_path: Path):
    def write(body: str) -> str:
        path = tmp_path / "scheduler.yaml"
        path.write_text(HEADER + body)
        return str(path)

    return write


def test_defaults_without_a_file_prints_the_reference_configuration() -> None:
    result = run("defaults")

    assert result.returncode == 0, result.stderr
    assert result.stdout == REFERENCE.read_text()


def test_defaults_of_a_file_keeps_its_values_and_fills_the_rest(config_file) -> None:
    result = run("defaults", config_file("parallelism: 4\n"))

    printed = yaml.safe_load(result.stdout)
    assert result.returncode == 0, result.stderr
    assert printed["parallelism"] == 4
    assert printed["leaderElection"]["leaderElect"] is True
    assert printed["profiles"][0]["schedulerName"] == "default-scheduler"


def test_defaults_follow_feature_gates() -> None:
    result = run("defaults", "--feature-gates", "StorageCapacityScoring=true")

    configs = yaml.safe_load(result.stdout)["profiles"][0]["pluginConfig"]
    volume_binding = next(c["args"] for c in configs if c["name"] == "VolumeBinding")
    assert volume_binding["shape"] == [
        {"utilization": 0, "score": 10},
        {"utilization": 100, "score": 0},
    ]


def test_validate_accepts_a_valid_file(config_file) -> None:
    result = run("validate", config_file("profiles:\n- schedulerName: a\n- schedulerName: b\n"))

    assert (result.returncode, result.stdout, result.stderr) == (0, "configuration is valid\n", "")


def test_validate_prints_every_error_on_its_own_line(config_file) -> None:
    result = run(
        "validate",
        config_file("parallelism: 0\nprofiles:\n- schedulerName: a\n- schedulerName: a\n"),
    )

    assert result.returncode == 1
    assert result.stdout == ""
    assert result.stderr.splitlines() == [
        "parallelism: Invalid value: 0: should be an integer value greater than zero",
        "profiles[1].schedulerName: Duplicate value: {}",
    ]


def test_validate_reports_a_file_that_does_not_load(config_file) -> None:
    result = run("validate", config_file("foo: bar\n"))

    assert result.returncode == 1
    assert result.stderr == 'strict decoding error: unknown field "foo"\n'


def test_validate_reports_a_missing_file() -> None:
    result = run("validate", "/no/such/scheduler.yaml")

    assert result.returncode == 1
    assert result.stderr == "open /no/such/scheduler.yaml: no such file or directory\n"


def test_validate_reads_standard_input() -> None:
    result = run("validate", "-", stdin=HEADER + "podInitialBackoffSeconds: 20\n")

    assert result.returncode == 1
    assert result.stderr == (
        "podMaxBackoffSeconds: Invalid value: 10: must be greater than or equal to "
        "PodInitialBackoffSeconds\n"
    )


def test_validate_uses_the_given_feature_gates(config_file) -> None:
    path = config_file(
        "profiles:\n- pluginConfig:\n  - name: VolumeBinding\n    args:\n      shape:\n"
        "      - utilization: 0\n        score: 10\n"
    )

    assert run("validate", path).returncode == 1
    assert run("validate", path, "--feature-gates", "StorageCapacityScoring=true").returncode == 0


def test_validate_accepts_gang_scheduling_with_its_gate_off_as_upstream(config_file) -> None:
    # kube-scheduler v1.36.2 builds every registered plugin whatever the gates.
    path = config_file(
        "leaderElection:\n  leaderElect: false\n"
        "profiles:\n- schedulerName: default-scheduler\n  plugins:\n    multiPoint:\n"
        "      enabled:\n      - name: GangScheduling\n"
    )

    done = run("validate", path)

    assert (done.returncode, done.stdout, done.stderr) == (0, "configuration is valid\n", "")


def test_defaults_with_the_gang_gates_add_gang_scheduling() -> None:
    result = run("defaults", "--feature-gates", "GenericWorkload=true,GangScheduling=true")

    multi_point = yaml.safe_load(result.stdout)["profiles"][0]["plugins"]["multiPoint"]
    assert multi_point["enabled"][-1] == {"name": "GangScheduling", "weight": 0}


def test_an_unknown_feature_gate_is_an_error() -> None:
    result = run("defaults", "--feature-gates", "Nope=true")

    assert (result.returncode, result.stderr) == (1, "unrecognized feature gate: Nope\n")


@pytest.mark.parametrize(
    ("body", "lines"), [case[1:] for case in REFUSALS], ids=[case[0] for case in REFUSALS]
)
def test_validate_refuses_what_kube_scheduler_refuses_at_start(config_file, body, lines) -> None:
    result = run("validate", config_file(body))

    assert (result.returncode, result.stdout) == (1, "")
    assert result.stderr.splitlines() == lines


@pytest.mark.parametrize("body", [case[1] for case in ACCEPTED], ids=[case[0] for case in ACCEPTED])
def test_validate_accepts_what_kube_scheduler_starts_with(config_file, body) -> None:
    result = run("validate", config_file(body))

    assert (result.returncode, result.stdout, result.stderr) == (0, "configuration is valid\n", "")
