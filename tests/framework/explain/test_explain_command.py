"""``python -m framework explain`` as a subprocess, on examples/explain: its JSON, its table
and its errors."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[3]
EXAMPLE = REPO / "examples" / "explain"


def run_explain(*args):
    return subprocess.run(
        [sys.executable, "-m", "framework", "explain", *args],
        capture_output=True,
        text=True,
        cwd=REPO,
        check=False,
    )


def example_args(pod, *more):
    return (
        "--config",
        str(EXAMPLE / "config.yaml"),
        "--objects",
        str(EXAMPLE / "objects.yaml"),
        "--pod",
        pod,
        *more,
    )


def test_its_json_explains_the_pending_pod_and_its_preemption():
    done = run_explain(*example_args("default/analytics", "--output", "json"))
    assert done.returncode == 0, done.stderr
    output = json.loads(done.stdout)
    assert output["pod"] == "default/analytics"
    assert output["nodes"] == 5
    assert sum(r["nodes"] for r in output["reasons"]) == 5
    assert {c["node"]: c["plugin"] for c in output["closest"]} == {
        "node-a": "NodeResourcesFit",
        "gpu-node": "TaintToleration",
        "node-b": "NodeAffinity",
        "node-c": "NodeUnschedulable",
        "node-d": "NodeResourcesFit",
    }
    assert output["preemption"]["outcome"] == "not helpful"
    assert output["nextTry"]["state"] == "unschedulable"


def test_its_json_explains_a_preemption_that_nominated_a_node():
    done = run_explain(*example_args("default/urgent", "--output", "json"))
    preemption = json.loads(done.stdout)["preemption"]
    assert preemption["nominatedNode"] == "node-d"
    assert preemption["decidedBy"] == "highest-priority victim lowest"


def test_its_table_draws_the_histogram_as_bars_and_lists_the_closest_nodes():
    done = run_explain(*example_args("default/analytics"))
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert lines[0] == "pod default/analytics: Unschedulable"
    bar = next(line for line in lines if line.lstrip().startswith("NodeResourcesFit "))
    assert bar.count("#") == 12  # 2 of 5 nodes on a 30-character bar
    assert "  node-a    NodeResourcesFit: needs 1.5 CPU more: 2.5 free of 4" in lines
    assert "  gpu-node  TaintToleration: taint `gpu=true:NoSchedule` not tolerated" in lines
    assert "preemption: not helpful" in lines


def test_an_unknown_pod_is_an_error_naming_the_field():
    done = run_explain(*example_args("default/ghost"))
    assert done.returncode == 1
    assert done.stderr == "explain: --pod: pod default/ghost is not in the objects\n"
    assert done.stdout == ""


def test_a_pod_without_namespace_is_refused():
    done = run_explain(*example_args("ghost"))
    assert done.returncode == 1
    assert "--pod: want NAMESPACE/NAME" in done.stderr


def test_a_missing_objects_file_is_an_error():
    done = run_explain(
        "--config", str(EXAMPLE / "config.yaml"), "--objects", "/nonexistent", "--pod", "a/b"
    )
    assert done.returncode == 1
    assert done.stderr.startswith("explain: open /nonexistent")
