"""``python -m framework simulate`` with the gang gates: the ``podGroups`` section of its JSON
(against docs/simulate.schema.json) and the groups in its table.

The clusters are the recorded oracle scenarios (tests/fixtures/oracle-workloads), whose real
outcomes docs/workloads.md gives; a gang one member short of its minCount is gang-fits without
its last pod.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from tests.framework.test_simulate_command import SCHEMA, schema_errors, simulate

SCENARIOS = Path("tests/fixtures/oracle-workloads")
GANG_GATES = ("--feature-gates", "GenericWorkload=true,GangScheduling=true")
GANG_MESSAGE = (
    "pod group is unschedulable, waiting for minCount pods from a gang to be scheduled, one or"
    " more plugins asked to wait and no plugin rejected pod"
)
NODES_MESSAGE = (
    "0/2 nodes are available: 2 Insufficient cpu. no new claims to deallocate, preemption: 0/2"
    " nodes are available: 2 No preemption victims found for incoming pod."
)


def run(scenario: str, *args: str, objects: Path | None = None) -> dict[str, Any]:
    folder = SCENARIOS / scenario
    done = simulate(
        "--config",
        str(folder / "config.yaml"),
        "--objects",
        str(objects or folder / "objects.yaml"),
        "--output",
        "json",
        *args,
    )
    assert (done.returncode, done.stderr) == (0, ""), done.stderr
    document = json.loads(done.stdout)
    assert schema_errors(document, SCHEMA) == []
    return document


def without_documents(scenario: str, names: set[str], tmp_path: Path) -> Path:
    """The scenario's objects file without the documents of these names."""
    text = (SCENARIOS / scenario / "objects.yaml").read_text()
    kept = [d for d in text.split("\n---\n") if not any(f"name: {n}\n" in d for n in names)]
    path = tmp_path / "objects.yaml"
    path.write_text("\n---\n".join(kept))
    return path


def outcomes(group: dict[str, Any]) -> list[tuple[str, str, list[str], str]]:
    return [(m["result"], m["message"], m["rejectedBy"], m["node"]) for m in group["members"]]


def test_a_gang_that_fits_is_scheduled_with_every_member_placed():
    document = run("gang-fits", *GANG_GATES)

    [group] = document["podGroups"]
    bound = {a["pod"]: a["node"] for a in document["pods"] if a["result"] == "Scheduled"}
    assert {k: group[k] for k in ("podGroup", "policy", "minCount", "scheduled")} == {
        "podGroup": "default/trainer",
        "policy": "gang",
        "minCount": 4,
        "scheduled": True,
    }
    assert group["condition"] == {"status": "True", "reason": "Scheduled", "message": ""}
    assert [(m["pod"], m["result"], m["node"], m["rejectedBy"]) for m in group["members"]] == [
        (f"default/trainer-{i}", "Scheduled", bound[f"default/trainer-{i}"], []) for i in range(4)
    ]
    # Three members waited at Permit (an entry of its own), yet each had one attempt.
    assert [a["result"] for a in document["pods"]].count("Waiting") == 3
    assert [m["attempts"] for m in group["members"]] == [1, 1, 1, 1]


def test_a_gang_whose_member_fits_nowhere_says_which_plugin_stopped_each_member():
    document = run("gang-one-short", *GANG_GATES)

    [group] = document["podGroups"]
    assert (group["scheduled"], group["condition"]) == (
        False,
        {"status": "False", "reason": "Unschedulable", "message": "pod group is unschedulable"},
    )
    # Which member fits nowhere depends on the order they are tried in; one does, two wait.
    assert sorted(outcomes(group)) == [
        ("Unschedulable", NODES_MESSAGE, ["NodeResourcesFit"], None),
        ("Unschedulable", GANG_MESSAGE, ["GangScheduling"], None),
        ("Unschedulable", GANG_MESSAGE, ["GangScheduling"], None),
    ]
    last_attempts = {a["pod"]: a for a in document["pods"]}
    for member in group["members"]:
        assert member["message"] == last_attempts[member["pod"]]["message"]
        assert member["attempts"] == sum(a["pod"] == member["pod"] for a in document["pods"])


def test_a_gang_a_pod_short_of_min_count_is_held_before_any_attempt(tmp_path):
    objects = without_documents("gang-fits", {"trainer-3"}, tmp_path)

    document = run("gang-fits", *GANG_GATES, objects=objects)

    assert document["pods"] == []
    [group] = document["podGroups"]
    assert (group["minCount"], group["scheduled"], group["condition"]) == (4, False, None)
    held = "waiting for minCount pods from a gang to appear in scheduling queue"
    assert [(m["pod"], m["result"], m["attempts"]) for m in group["members"]] == [
        (f"default/trainer-{i}", "Pending", 0) for i in range(3)
    ]
    assert outcomes(group) == [("Pending", held, ["GangScheduling"], None)] * 3


def test_a_basic_group_is_scheduled_though_a_member_fits_nowhere():
    document = run("basic-group-partial", *GANG_GATES)

    [group] = document["podGroups"]
    assert (group["policy"], group["minCount"], group["scheduled"]) == ("basic", None, True)
    assert group["condition"]["reason"] == "Scheduled"
    assert sorted(m["result"] for m in group["members"]) == [
        "Scheduled",
        "Scheduled",
        "Unschedulable",
    ]
    [stopped] = [m for m in group["members"] if m["result"] == "Unschedulable"]
    assert (stopped["rejectedBy"], stopped["message"], stopped["node"]) == (
        ["NodeResourcesFit"],
        NODES_MESSAGE,
        None,
    )


def test_members_of_a_pod_group_that_does_not_exist_are_listed_without_a_policy(tmp_path):
    objects = without_documents("gang-fits", {"trainer"}, tmp_path)

    [group] = run("gang-fits", *GANG_GATES, objects=objects)["podGroups"]

    assert (group["podGroup"], group["policy"], group["condition"]) == (
        "default/trainer",
        None,
        None,
    )
    assert {(m["result"], m["message"]) for m in group["members"]} == {
        ("Pending", 'waiting for pods\'s pod group "trainer" to appear in scheduling queue')
    }


def test_a_member_the_file_bound_already_is_running_and_counts_for_the_gang(tmp_path):
    text = (SCENARIOS / "gang-fits" / "objects.yaml").read_text()
    first = text.index("name: trainer-0\n")
    spec = text.index("spec:\n", first) + len("spec:\n")
    objects = tmp_path / "objects.yaml"
    objects.write_text(text[:spec] + "  nodeName: w0\n" + text[spec:])

    [group] = run("gang-fits", *GANG_GATES, objects=objects)["podGroups"]

    assert group["scheduled"] is True
    assert [(m["pod"], m["result"], m["attempts"]) for m in group["members"]] == [
        ("default/trainer-1", "Scheduled", 1),
        ("default/trainer-2", "Scheduled", 1),
        ("default/trainer-3", "Scheduled", 1),
        ("default/trainer-0", "Running", 0),
    ]
    assert group["members"][-1]["node"] == "w0"


def test_without_generic_workload_there_is_no_pod_groups_section():
    assert "podGroups" not in run("gang-fits", objects=Path("examples/resources/objects.yaml"))


def test_its_table_shows_each_group_after_the_attempts():
    folder = SCENARIOS / "gang-one-short"
    done = simulate(
        "--config",
        str(folder / "config.yaml"),
        "--objects",
        str(folder / "objects.yaml"),
        *GANG_GATES,
    )

    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    start = lines.index("")
    assert lines[start + 1] == (
        "pod group default/trainer  gang minCount 3  PodGroupScheduled=False Unschedulable: pod"
        " group is unschedulable"
    )
    members = lines[start + 2 :]
    assert [line.split()[:3] for line in members[::2]] == [
        [f"default/trainer-{i}", "Unschedulable", "-"] for i in range(3)
    ]
    assert sorted(line.strip() for line in members[1::2]) == [
        f"GangScheduling: {GANG_MESSAGE}",
        f"GangScheduling: {GANG_MESSAGE}",
        f"NodeResourcesFit: {NODES_MESSAGE}",
    ]


VALID_GROUP = {
    "podGroup": "default/trainer",
    "policy": "gang",
    "minCount": 2,
    "topologyKeys": [],
    "scheduled": True,
    "condition": {"status": "True", "reason": "Scheduled", "message": ""},
    "members": [
        {
            "pod": "default/trainer-0",
            "result": "Scheduled",
            "node": "w0",
            "attempts": 1,
            "message": "",
            "rejectedBy": [],
        }
    ],
}


@pytest.mark.parametrize(
    ("change", "error"),
    [
        ({"policy": "strict"}, "$.podGroups[0].policy: 'strict' is not one of"),
        ({"scheduled": "yes"}, "$.podGroups[0].scheduled: expected boolean"),
        ({"minCount": 0}, "$.podGroups[0].minCount: 0 is below 1"),
        ({"condition": {"status": "True"}}, "$.podGroups[0].condition: missing 'reason'"),
        (
            {"members": [{**VALID_GROUP["members"][0], "result": "Bound"}]},
            "$.podGroups[0].members[0].result: 'Bound' is not one of",
        ),
        ({"members": [{"pod": "default/a"}]}, "$.podGroups[0].members[0]: missing 'result'"),
    ],
    ids=[
        "a policy is basic or gang",
        "scheduled is a boolean",
        "minCount is at least 1",
        "a condition has its reason and message",
        "a member's result is an attempt's or Pending or Running",
        "a member has every field",
    ],
)
def test_the_schema_refuses_pod_groups_that_break_the_contract(change, error):
    assert schema_errors({"pods": [], "podGroups": [VALID_GROUP]}, SCHEMA) == []
    errors = schema_errors({"pods": [], "podGroups": [{**VALID_GROUP, **change}]}, SCHEMA)
    assert any(e.startswith(error) for e in errors), errors
