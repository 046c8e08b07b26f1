"""``python -m framework compare`` as a subprocess: its JSON against docs/compare.schema.json,
its table, a recording, and errors that name the file and the field."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from tests.framework.compare.scenarios import REPO, node, pod, recording
from tests.framework.test_simulate_command import schema_errors

SCHEMA = json.loads((REPO / "docs" / "compare.schema.json").read_text())
SPREADING = "examples/compare/spreading.yaml"
BIN_PACKING = "examples/compare/bin-packing.yaml"
CLUSTER = "examples/compare/cluster.yaml"


def compare(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "framework", "compare", *args],
        cwd=REPO,
        capture_output=True,
        text=True,
        timeout=300,
    )


def test_the_json_report_follows_its_schema_and_traces_the_differing_pods():
    done = compare("--config", SPREADING, "--config", BIN_PACKING, "--objects", CLUSTER,
                   "--output", "json", "--trace-limit", "2")  # fmt: skip
    assert done.returncode == 0, done.stderr
    report = json.loads(done.stdout)
    assert schema_errors(report, SCHEMA) == []
    assert [v["name"] for v in report["variants"]] == ["spreading", "bin-packing"]
    pods = report["differences"]["pods"]
    assert report["differences"]["count"] == len(pods) > 2
    traced = [entry for entry in pods if "attempts" in entry]
    assert len(traced) == 2  # the first two differing pods, in both variants
    for entry in traced:
        for nodes_attempts, node_name in zip(entry["attempts"], entry["nodes"], strict=True):
            assert nodes_attempts[-1]["node"] == node_name
            assert nodes_attempts[-1]["events"]


def test_the_table_puts_the_variants_side_by_side_and_marks_the_better_value():
    done = compare("--config", SPREADING, "--config", BIN_PACKING, "--objects", CLUSTER)
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert lines[0].split() == ["spreading", "bin-packing"]
    assert lines[lines.index(next(x for x in lines if x.startswith("empty nodes")))].split() == [
        "empty", "nodes", "0", "2*"
    ]  # fmt: skip
    assert next(x for x in lines if x.startswith("cpu max")).split() == [
        "cpu",
        "max",
        "75%*",
        "100%",
    ]
    assert "placed differently from spreading: 7" in lines
    assert any(x.split() == ["default/web-0", "node-3", "node-1"] for x in lines)


def test_a_recording_follows_the_objects(tmp_path: Path):
    objects = tmp_path / "cluster.json"
    objects.write_text(json.dumps([node("n1"), node("n2")]))
    changes = tmp_path / "changes.jsonl"
    changes.write_text(recording((1, "ADDED", pod("a")), (2, "ADDED", pod("b"))))
    done = compare("--config", SPREADING, "--config", BIN_PACKING, "--objects", str(objects),
                   "--recording", str(changes), "--output", "json")  # fmt: skip
    assert done.returncode == 0, done.stderr
    spreading, packing = json.loads(done.stdout)["variants"]
    assert spreading["pods"]["scheduled"] == packing["pods"]["scheduled"] == 2
    assert (spreading["utilization"]["emptyNodes"], packing["utilization"]["emptyNodes"]) == (0, 1)


BAD_CONFIG = "apiVersion: kubescheduler.config.k8s.io/v1\nkind: KubeSchedulerConfiguration\n"
BAD_CONFIG += "parallelism: 0\n"
BAD_OBJECTS = "apiVersion: v1\nkind: Pod\nmetadata: {name: x}\nspec: {containerz: []}\n"
BAD_RECORDING = '{"recording": 1}\n{"t": 1, "type": "ADDED"}\n'


@pytest.mark.parametrize(
    ("bad", "message"),
    [
        ({"b": BAD_CONFIG},
         "{b}: parallelism: Invalid value: 0: should be an integer value greater than zero"),
        ({"cluster": BAD_OBJECTS},
         '{cluster}: Pod "default/x": strict decoding error: unknown field "spec.containerz"'),
        ({"changes": BAD_RECORDING}, "{changes}: line 2: object must be a manifest with metadata"),
    ],
    ids=["a bad configuration", "bad objects", "a bad recording"],
)  # fmt: skip
def test_errors_name_the_file_and_the_field(tmp_path: Path, bad: dict, message: str):
    texts = {
        "a": (REPO / SPREADING).read_text(),
        "b": (REPO / BIN_PACKING).read_text(),
        "cluster": (REPO / CLUSTER).read_text(),
        "changes": recording(),
        **bad,
    }
    where = {}
    for name, text in texts.items():
        where[name] = str(tmp_path / f"{name}.txt")
        Path(where[name]).write_text(text)
    done = compare("--config", where["a"], "--config", where["b"], "--objects", where["cluster"],
                   "--recording", where["changes"])  # fmt: skip
    assert done.returncode == 1
    assert done.stdout == ""
    assert done.stderr.strip() == "compare: " + message.format(**where)


def test_a_missing_file_and_a_single_configuration_are_refused(tmp_path: Path):
    missing = compare(
        "--config", SPREADING, "--config", str(tmp_path / "nope.yaml"), "--objects", CLUSTER
    )
    assert missing.returncode == 1
    assert (
        missing.stderr.strip()
        == f"compare: open {tmp_path / 'nope.yaml'}: no such file or directory"
    )
    single = compare("--config", SPREADING, "--objects", CLUSTER)
    assert single.returncode == 1 and "two --config files or more" in single.stderr
