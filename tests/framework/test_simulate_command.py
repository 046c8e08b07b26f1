"""``python -m framework simulate`` as a subprocess: its JSON against docs/simulate.schema.json,
its table, and its errors.

The schema is checked by a small structural validator (the keywords the schema uses: type,
enum, pattern, minimum, required, properties, additionalProperties, items, $ref), so the tests
need no JSON Schema library.
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from framework.simulator import Simulation
from tests.framework.config.startup_cases import ACCEPTED, HEADER, REFUSALS

REPO = Path(__file__).resolve().parents[2]
SCHEMA = json.loads((REPO / "docs" / "simulate.schema.json").read_text())
EXAMPLES = REPO / "examples"
SCENARIOS = sorted(p.name for p in EXAMPLES.iterdir() if (p / "expected.json").exists())

_TYPES = {
    "object": dict,
    "array": list,
    "string": str,
    "integer": int,
    "number": (int, float),
    "boolean": bool,
    "null": type(None),
}


def schema_errors(value: Any, schema: dict, path: str = "$") -> list[str]:
    """Every place where ``value`` breaks ``schema`` (a subset of JSON Schema 2020-12)."""
    if "$ref" in schema:
        return schema_errors(value, _resolve(schema["$ref"]), path)
    types = schema.get("type")
    if types is not None:
        allowed = [types] if isinstance(types, str) else types
        wrong_bool = isinstance(value, bool) and "boolean" not in allowed
        if wrong_bool or not isinstance(value, tuple(_TYPES[t] for t in allowed)):
            return [f"{path}: expected {' or '.join(allowed)}, got {type(value).__name__}"]
    if "enum" in schema and value not in schema["enum"]:
        return [f"{path}: {value!r} is not one of {schema['enum']}"]
    errors = []
    if "pattern" in schema and not re.search(schema["pattern"], value):
        errors.append(f"{path}: {value!r} does not match {schema['pattern']}")
    if "minimum" in schema and isinstance(value, int) and value < schema["minimum"]:
        errors.append(f"{path}: {value} is below {schema['minimum']}")
    if isinstance(value, dict):
        errors += _object_errors(value, schema, path)
    if isinstance(value, list) and "items" in schema:
        for index, item in enumerate(value):
            errors += schema_errors(item, schema["items"], f"{path}[{index}]")
    return errors


def _object_errors(value: dict, schema: dict, path: str) -> list[str]:
    errors = [f"{path}: missing {key!r}" for key in schema.get("required", ()) if key not in value]
    properties = schema.get("properties", {})
    extra = schema.get("additionalProperties", True)
    for key, item in value.items():
        if key in properties:
            errors += schema_errors(item, properties[key], f"{path}.{key}")
        elif extra is False:
            errors.append(f"{path}: unexpected {key!r}")
        elif isinstance(extra, dict):
            errors += schema_errors(item, extra, f"{path}.{key}")
    return errors


def _resolve(ref: str) -> dict:
    node: Any = SCHEMA
    for part in ref.removeprefix("#/").split("/"):
        node = node[part]
    return node


def simulate(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "framework", "simulate", *args],
        cwd=REPO,
        capture_output=True,
        text=True,
        timeout=120,
    )


def example(scenario: str, *args: str) -> subprocess.CompletedProcess:
    directory = f"examples/{scenario}"
    return simulate(
        "--config", f"{directory}/config.yaml", "--objects", f"{directory}/objects.yaml", *args
    )


# -- JSON ----------------------------------------------------------------------------------------


@pytest.mark.parametrize("scenario", SCENARIOS, ids=lambda s: f"the {s} example")
def test_its_json_output_follows_the_schema(scenario):
    done = example(scenario, "--output", "json")
    assert (done.returncode, done.stderr) == (0, "")
    assert schema_errors(json.loads(done.stdout), SCHEMA) == []


def test_its_json_lists_the_attempts_of_a_library_simulation():
    directory = EXAMPLES / "preemption"
    simulation = Simulation(
        str(directory / "config.yaml"), (directory / "objects.yaml").read_text()
    )
    want = [report.to_dict() for report in simulation.run()]
    done = example("preemption", "--output", "json")
    document = json.loads(done.stdout)
    assert list(document) == ["pods", "metrics"]
    assert document["pods"] == want
    counted = {
        series["labels"]["result"]: series["value"]
        for series in document["metrics"]["scheduler_schedule_attempts_total"]["series"]
    }
    assert counted == {
        result: float(sum(1 for pod in want if pod["result"].lower() == result))
        for result in counted
    }


def test_one_at_a_time_output_follows_the_schema_too():
    done = example("node-filters", "--output", "json", "--one-at-a-time")
    document = json.loads(done.stdout)
    assert schema_errors(document, SCHEMA) == []
    assert [attempt["pod"] for attempt in document["pods"]] == [
        "default/ingress",
        "default/ingress-2",
        "default/quic",
        "default/userns-hostnet",
        "default/node-agent",
    ]


VALID_ATTEMPT = {
    "pod": "default/web",
    "result": "Scheduled",
    "node": "n1",
    "message": "",
    "evaluatedNodes": 2,
    "feasibleNodes": 2,
    "filter": {"n1": {"NodePorts": {"code": "Success", "reasons": []}}},
    "scores": {"ImageLocality": {"n1": {"raw": 0, "normalized": 0, "weighted": 0}}},
    "finalScores": {"n1": 0},
    "nominatedNode": None,
    "victims": [],
}


def broken(**changes: Any) -> dict:
    attempt = {**VALID_ATTEMPT, **changes}
    return {"pods": [{k: v for k, v in attempt.items() if v is not ...}]}


@pytest.mark.parametrize(
    ("document", "error"),
    [
        ({}, "$: missing 'pods'"),
        (broken(pod=...), "$.pods[0]: missing 'pod'"),
        (broken(pod="web"), "$.pods[0].pod: 'web' does not match ^[^/]+/[^/]+$"),
        (broken(result="Bound"), "$.pods[0].result: 'Bound' is not one of"),
        (broken(node=3), "$.pods[0].node: expected string or null, got int"),
        (broken(evaluatedNodes=-1), "$.pods[0].evaluatedNodes: -1 is below 0"),
        (broken(feasibleNodes=True), "$.pods[0].feasibleNodes: expected integer, got bool"),
        (
            broken(filter={"n1": {"NodePorts": {"code": "Fine", "reasons": []}}}),
            "$.pods[0].filter.n1.NodePorts.code: 'Fine' is not one of",
        ),
        (
            broken(scores={"ImageLocality": {"n1": {"raw": 0, "weighted": 0}}}),
            "$.pods[0].scores.ImageLocality.n1: missing 'normalized'",
        ),
        (broken(finalScores={"n1": 1.5}), "$.pods[0].finalScores.n1: expected integer"),
        (broken(victims=["web"]), "$.pods[0].victims[0]: 'web' does not match"),
        (broken(extra=1), "$.pods[0]: unexpected 'extra'"),
    ],
    ids=[
        "a document without pods is refused",
        "an attempt without its pod is refused",
        "a pod must be namespace/name",
        "a result must be one of the four outcomes",
        "a node is a name or null",
        "node counts are not negative",
        "a boolean is no integer",
        "a filter code must be a status code",
        "a score cell has raw, normalized and weighted",
        "final scores are integers",
        "victims are namespace/name",
        "no field beyond the documented ones",
    ],
)
def test_the_schema_refuses_documents_that_break_the_contract(document, error):
    assert schema_errors({"pods": [VALID_ATTEMPT]}, SCHEMA) == []
    assert any(e.startswith(error) for e in schema_errors(document, SCHEMA)), schema_errors(
        document, SCHEMA
    )


# -- table ---------------------------------------------------------------------------------------


def test_its_table_shows_outcomes_messages_and_victims():
    done = example("preemption")
    assert done.returncode == 0
    assert done.stdout.splitlines() == [
        "default/critical  Unschedulable  -                     evaluated 2, feasible 0",
        "                  0/2 nodes are available: 2 Insufficient cpu.",
        "                  preempted: default/web-0",
        "default/polite    Unschedulable  -                     evaluated 2, feasible 0",
        "                  0/2 nodes are available: 2 Insufficient cpu. no new claims to"
        " deallocate, preemption: not eligible due to preemptionPolicy=Never.",
        "default/filler    Unschedulable  -                     evaluated 2, feasible 0",
        "                  0/2 nodes are available: 2 Insufficient cpu. no new claims to"
        " deallocate, preemption: 0/2 nodes are available: 2 No preemption victims found for"
        " incoming pod.",
        "default/critical  Scheduled      n2                    evaluated 1, feasible 1",
    ]


def test_its_table_shows_the_three_best_final_scores():
    done = example("image-locality", "--output", "table")
    assert done.stdout.splitlines()[:4] == [
        "default/trainer       Scheduled      n1                    evaluated 4, feasible 4",
        "                           475  n1",
        "                           457  n2",
        "                           452  n3",
    ]


def test_an_empty_cluster_prints_nothing():
    done = simulate("--config", "examples/resources/config.yaml", "--objects", "/dev/null")
    assert (done.returncode, done.stdout, done.stderr) == (0, "", "")


# -- errors --------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("config", "objects", "message"),
    [
        (
            "examples/missing.yaml",
            "examples/resources/objects.yaml",
            "simulate: open examples/missing.yaml: no such file or directory",
        ),
        (
            "examples/resources/config.yaml",
            "examples/missing.yaml",
            "simulate: open examples/missing.yaml: no such file or directory",
        ),
        (
            "examples/resources/config.yaml",
            "examples",
            "simulate: open examples: is a directory",
        ),
        (
            "apiVersion: kubescheduler.config.k8s.io/v1\nkind: KubeSchedulerConfiguration\n"
            "parallelism: 0\nprofiles:\n- schedulerName: ''\n",
            "examples/resources/objects.yaml",
            "simulate: parallelism: Invalid value: 0: should be an integer value greater than"
            " zero\nprofiles[0].schedulerName: Required value",
        ),
        (
            "examples/resources/config.yaml",
            "kind: Widget\nmetadata: {name: w}\n",
            "simulate: Widget \"w\": kind: unsupported kind 'Widget' (supported: CSIDriver,"
            " CSINode, CSIStorageCapacity, DeviceClass, Namespace, Node, PersistentVolume,"
            " PersistentVolumeClaim, Pod,"
            " PodDisruptionBudget, PodGroup, PriorityClass, ReplicaSet, ReplicationController,"
            " ResourceClaim, ResourceClaimTemplate, ResourceSlice, RuntimeClass, Service,"
            " StatefulSet, StorageClass, VolumeAttachment, Workload)",
        ),
        (
            "examples/resources/config.yaml",
            "apiVersion: v1\nkind: Pod\nmetadata: {name: web, namespace: team-a}\n"
            "spec: {priorityClassName: high, containers: [{name: c, image: nginx}]}\n",
            'simulate: Pod "team-a/web": metadata.namespace: namespaces "team-a" not found',
        ),
        (
            "examples/resources/config.yaml",
            "apiVersion: v1\nkind: Pod\nmetadata: {name: a, lables: {app: a}}\n"
            "spec: {containers: [{name: c, image: i, resources: {requets: {cpu: '1'}}}]}\n"
            "---\napiVersion: v1\nkind: Pod\nmetadata: {name: b}\nspec: {containers: []}\n"
            "---\napiVersion: v1\nkind: Pod\nmetadata: {name: c, namespace: team-a}\n"
            "spec: {containers: [{name: c, image: i}]}\n",
            'simulate: Pod "default/a": strict decoding error: unknown field "metadata.lables",'
            ' unknown field "spec.containers[0].resources.requets"\n'
            'Pod "default/b" is invalid: spec.containers: Required value\n'
            'Pod "team-a/c": metadata.namespace: namespaces "team-a" not found',
        ),
        (
            "examples/resources/config.yaml",
            "apiVersion: v1\nkind: Pod\nmetadata: {name: a, namespace: team-a}\nspec: {}\n"
            "---\napiVersion: v1\nkind: Pod\nmetadata: {name: b}\n"
            "spec: {priorityClassName: high, containers: []}\n",
            'simulate: Pod "team-a/a": metadata.namespace: namespaces "team-a" not found\n'
            'Pod "default/b": spec.priorityClassName: no PriorityClass with name high was found',
        ),
    ],
    ids=[
        "a missing configuration file is named",
        "a missing objects file is named the same way",
        "a directory is not an objects file",
        "an invalid configuration prints upstream's errors, one per line",
        "an unsupported kind names the object and the kinds it may be",
        "a pod in a namespace the file does not have is refused as kube-apiserver refuses it",
        "every object's refusal is listed, as kubectl apply goes on past a refused object",
        "admission refuses before validation, as kube-apiserver's mutating admission comes first",
    ],
)
def test_it_exits_1_with_the_problem_when_a_run_cannot_start(tmp_path, config, objects, message):
    paths = []
    for name, source in (("config.yaml", config), ("objects.yaml", objects)):
        if "\n" in source:
            (tmp_path / name).write_text(source)
            source = str(tmp_path / name)
        paths.append(source)
    done = simulate("--config", paths[0], "--objects", paths[1])
    assert (done.returncode, done.stdout, done.stderr) == (1, "", message + "\n")


@pytest.mark.parametrize(
    ("body", "lines"), [case[1:] for case in REFUSALS], ids=[case[0] for case in REFUSALS]
)
def test_it_refuses_what_kube_scheduler_refuses_before_it_starts(tmp_path, body, lines):
    (tmp_path / "config.yaml").write_text(HEADER + body)
    done = simulate(
        "--config", str(tmp_path / "config.yaml"), "--objects", "examples/resources/objects.yaml"
    )
    assert (done.returncode, done.stdout) == (1, "")
    assert done.stderr == "simulate: " + "\n".join(lines) + "\n"


def test_a_negative_weight_kube_scheduler_starts_with_is_applied_as_it_is(tmp_path):
    name, body = next(
        case for case in ACCEPTED if case[0] == "a negative weight on the only score plugin"
    )
    (tmp_path / "config.yaml").write_text(HEADER + body)
    done = simulate(
        "--config",
        str(tmp_path / "config.yaml"),
        "--objects",
        "examples/resources/objects.yaml",
        "--output",
        "json",
    )
    assert done.returncode == 0, done.stderr
    first = json.loads(done.stdout)["pods"][0]
    fit = first["scores"]["NodeResourcesFit"]
    assert any(score["normalized"] for score in fit.values()), name
    assert {node: score["weighted"] for node, score in fit.items()} == {
        node: -score["normalized"] for node, score in fit.items()
    }
    assert first["finalScores"] == {node: -score["normalized"] for node, score in fit.items()}


def test_it_exits_2_with_usage_when_an_argument_is_missing():
    done = simulate("--config", "examples/resources/config.yaml")
    assert done.returncode == 2
    assert "the following arguments are required: --objects" in done.stderr


POD_LEVEL_REQUEST = """\
apiVersion: v1
kind: Node
metadata: {name: n1}
status:
  allocatable: {cpu: "2", memory: 8Gi, pods: "110"}
---
apiVersion: v1
kind: Pod
metadata: {name: big, namespace: default}
spec:
  resources: {requests: {cpu: "3"}}
  containers: [{name: c, image: app, resources: {requests: {cpu: 100m}}}]
"""


@pytest.mark.parametrize(
    ("gates", "result"),
    [
        ([], "Unschedulable"),
        (
            [
                "--feature-gates",
                "InPlacePodLevelResourcesVerticalScaling=false,PodLevelResources=false",
            ],
            "Scheduled",
        ),
    ],
    ids=["pod-level requests count by default", "without PodLevelResources the containers' do"],
)
def test_it_schedules_with_the_feature_gates_given(tmp_path, gates, result):
    (tmp_path / "config.yaml").write_text(HEADER)
    (tmp_path / "objects.yaml").write_text(POD_LEVEL_REQUEST)

    done = simulate(
        "--config",
        str(tmp_path / "config.yaml"),
        "--objects",
        str(tmp_path / "objects.yaml"),
        "--output",
        "json",
        *gates,
    )

    assert done.returncode == 0, done.stderr
    assert [attempt["result"] for attempt in json.loads(done.stdout)["pods"]] == [result]


def test_bad_feature_gates_are_refused_before_it_starts(tmp_path):
    (tmp_path / "config.yaml").write_text(HEADER)

    done = simulate(
        "--config",
        str(tmp_path / "config.yaml"),
        "--objects",
        "examples/resources/objects.yaml",
        "--feature-gates",
        "GangScheduling=true",
    )

    assert (done.returncode, done.stdout) == (1, "")
    assert done.stderr == (
        "simulate: GangScheduling is enabled, but depends on features that are disabled: "
        "[GenericWorkload]\n"
    )


def test_it_schedules_a_gang_whole_with_the_gang_gates_and_refuses_it_without():
    folder = "tests/fixtures/oracle-workloads/gang-fits"
    files = ("--config", f"{folder}/config.yaml", "--objects", f"{folder}/objects.yaml")
    gates = ("--feature-gates", "GenericWorkload=true,GangScheduling=true")

    gated = simulate(*files, "--output", "json", *gates)
    refused = simulate(*files)

    assert gated.returncode == 0, gated.stderr
    attempts = json.loads(gated.stdout)["pods"]
    assert schema_errors(json.loads(gated.stdout), SCHEMA) == []
    scheduled = {a["pod"]: a["node"] for a in attempts if a["result"] == "Scheduled"}
    assert sorted(scheduled) == [f"default/trainer-{i}" for i in range(4)]
    assert refused.returncode == 1
    assert "needs the GenericWorkload feature gate" in refused.stderr


def test_it_refuses_the_workload_gates_it_does_not_simulate_yet():
    gates = "GenericWorkload=true,DRAWorkloadResourceClaims=true"
    refused = example("custom-profile", "--feature-gates", gates)

    assert (refused.returncode, refused.stderr) == (
        1,
        "simulate: feature gates not simulated yet (docs/workloads.md): "
        "DRAWorkloadResourceClaims\n",
    )


GANG_PREEMPTS = """
apiVersion: scheduling.k8s.io/v1alpha2
kind: PodGroup
metadata: {name: trainer, namespace: default}
spec: {priorityClassName: high, schedulingPolicy: {gang: {minCount: 2}}}
---
apiVersion: scheduling.k8s.io/v1
kind: PriorityClass
metadata: {name: high}
value: 1000
"""


def node_yaml(name: str) -> str:
    return (
        f"---\napiVersion: v1\nkind: Node\nmetadata: {{name: {name}}}\n"
        "status: {allocatable: {cpu: '2', pods: '110'}, capacity: {cpu: '2', pods: '110'}}\n"
    )


def pod_yaml(name: str, cpu: str, extra: str) -> str:
    return (
        f"---\napiVersion: v1\nkind: Pod\nmetadata: {{name: {name}, namespace: default}}\n"
        f"spec: {{{extra}containers: [{{name: c, image: pause, "
        f"resources: {{requests: {{cpu: '{cpu}'}}}}}}]}}\n"
    )


def test_a_gang_preempts_as_a_whole_with_workload_aware_preemption(tmp_path):
    objects = GANG_PREEMPTS + node_yaml("w0") + node_yaml("w1")
    objects += "".join(pod_yaml(f"low-{i}", "1", f"nodeName: w{i % 2}, ") for i in range(4))
    group = "priorityClassName: high, schedulingGroup: {podGroupName: trainer}, "
    objects += "".join(pod_yaml(f"trainer-{i}", "2", group) for i in range(2))
    (tmp_path / "objects.yaml").write_text(objects)
    (tmp_path / "config.yaml").write_text(
        "apiVersion: kubescheduler.config.k8s.io/v1\nkind: KubeSchedulerConfiguration\n"
    )
    gates = "GenericWorkload=true,GangScheduling=true,WorkloadAwarePreemption=true"

    run = simulate(
        "--config", str(tmp_path / "config.yaml"), "--objects", str(tmp_path / "objects.yaml"),
        "--output", "json", "--feature-gates", gates,
    )  # fmt: skip

    assert run.returncode == 0, run.stderr
    document = json.loads(run.stdout)
    assert schema_errors(document, SCHEMA) == []
    first, *others = document["pods"]
    assert (first["pod"], first["result"]) == ("default/trainer-0", "Unschedulable")
    assert first["message"].endswith(
        "preemption: not eligible due to workload aware preemption enabled"
    )
    assert sorted(first["victims"]) == [f"default/low-{i}" for i in range(4)]
    # Its report is its own trial's, not the preemption's trials without the victims.
    assert {n: f["NodeResourcesFit"]["code"] for n, f in first["filter"].items()} == {
        "w0": "Unschedulable",
        "w1": "Unschedulable",
    }
    assert (first["feasibleNodes"], first["scores"]) == (0, {})
    scheduled = sorted(a["pod"] for a in others if a["result"] == "Scheduled")
    assert scheduled == ["default/trainer-0", "default/trainer-1"]
