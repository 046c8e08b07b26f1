"""The workload-aware scenarios recorded on the real kube-scheduler v1.36.2
(tests/fixtures/oracle-workloads, scripts/record-workload-oracle).

These check the recordings themselves: the engine takes in every object the real
kube-apiserver took in (``objects validate``), the recordings hold what docs/workloads.md says
the real scheduler did, and ``simulate`` with the GenericWorkload gate off refuses the objects
rather than schedule gang members one by one as if they were plain pods.
test_oracle_workloads_replay.py replays them on the engine.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from framework.api.pod_group import NEEDS_GENERIC_WORKLOAD
from framework.cli import main
from framework.simulator import Simulation, SimulationError

FIXTURES = Path(__file__).parents[1] / "fixtures" / "oracle-workloads"
SCENARIOS = sorted(p.name for p in FIXTURES.iterdir() if (p / "expected.json").is_file())
GANG_WAITING = (
    "pod group is unschedulable, waiting for minCount pods from a gang to be scheduled, one or"
    " more plugins asked to wait and no plugin rejected pod"
)


def last_step(scenario: str) -> dict:
    return json.loads((FIXTURES / scenario / "expected.json").read_text())["steps"][-1]


def placed(step: dict) -> dict[str, str | None]:
    return {name: pod["node"] for name, pod in step["pods"].items()}


def test_every_scenario_the_issue_asks_for_is_recorded():
    asked = {
        "gang-fits",
        "gang-one-short",
        "two-gangs-compete",
        "zone-topology",
        "gang-completed-later",
        "gang-preempts",
        "gang-preemption-never",
    }
    assert asked <= set(SCENARIOS)
    for scenario in SCENARIOS:
        assert {"config.yaml", "objects.yaml", "README.md"} <= {
            p.name for p in (FIXTURES / scenario).iterdir()
        }


@pytest.mark.parametrize("scenario", SCENARIOS)
def test_the_engine_takes_in_what_kube_apiserver_took_in(capsys, scenario):
    status = main(["objects", "validate", str(FIXTURES / scenario / "objects.yaml")])
    out, err = capsys.readouterr()
    assert (status, err) == (0, "")
    assert out.endswith(" objects would be created\n")


@pytest.mark.parametrize("scenario", SCENARIOS)
def test_simulate_refuses_workload_aware_objects_with_the_gate_off(scenario):
    folder = FIXTURES / scenario
    with pytest.raises(SimulationError) as excinfo:
        Simulation((folder / "config.yaml").read_text(), (folder / "objects.yaml").read_text())
    assert f": {NEEDS_GENERIC_WORKLOAD}" in str(excinfo.value)
    assert 'PodGroup "default/' in str(excinfo.value)


def test_a_gang_one_pod_short_binds_nothing_and_says_why():
    step = last_step("gang-one-short")
    assert set(placed(step).values()) == {None}
    messages = sorted(pod["podScheduled"]["message"] for pod in step["pods"].values())
    assert messages.count(GANG_WAITING) == 2
    condition = step["podGroups"]["trainer"]["conditions"][0]
    assert (condition["type"], condition["status"], condition["reason"]) == (
        "PodGroupScheduled",
        "False",
        "Unschedulable",
    )
    assert condition["message"].startswith(
        "0/1 placements are available, first placement status: pod group is unschedulable"
    )


def test_of_two_competing_gangs_one_is_placed_whole_and_the_other_not_at_all():
    nodes = placed(last_step("two-gangs-compete"))
    by_gang = {gang: {nodes[f"{gang}-{i}"] for i in range(2)} for gang in ("a", "b")}
    assert sorted(None in nodes for nodes in by_gang.values()) == [False, True]
    assert {None} in by_gang.values()


def test_a_zone_constrained_gang_lands_in_one_zone():
    nodes = placed(last_step("zone-topology"))
    zone_b = {"w2", "w3"}
    assert {nodes[f"trainer-{i}"] for i in range(3)} <= zone_b


def test_members_before_quorum_wait_without_a_condition_or_event():
    first = json.loads((FIXTURES / "gang-completed-later" / "expected.json").read_text())
    waiting = first["steps"][1]
    assert all(pod["podScheduled"] is None for pod in waiting["pods"].values())
    assert [e for e in waiting["events"] if e["kind"] == "Pod"] == []
    assert None not in placed(last_step("gang-completed-later")).values()


def test_a_gang_preempts_the_fewest_lower_priority_pods_and_is_then_bound():
    before = json.loads((FIXTURES / "gang-preempts" / "expected.json").read_text())["steps"][0]
    after = last_step("gang-preempts")
    assert len(after["deletedPods"]) == 3
    victims_nodes = sorted(before["pods"][name]["node"] for name in after["deletedPods"])
    assert len(set(victims_nodes)) == 2  # both pods of one worker, one of another
    assert None not in {placed(after)[f"trainer-{i}"] for i in range(3)}
    preempted = [e for e in after["events"] if e["reason"] == "Preempted"]
    assert sorted(e["name"] for e in preempted) == after["deletedPods"]
    assert all(e["note"].startswith("Preempted by podgroup ") for e in preempted)
    assert all(e["note"].endswith(" on node cluster") for e in preempted)


@pytest.mark.parametrize(
    "scenario, why",
    [
        ("gang-preemption-never", "not eligible due to preemptionPolicy=Never."),
        ("gang-pod-priority-only", "No preemption victims found for incoming preemptor"),
    ],
)
def test_a_gang_that_may_not_preempt_evicts_nobody(scenario, why):
    step = last_step(scenario)
    assert step["deletedPods"] == []
    assert {placed(step)[f"trainer-{i}"] for i in range(3)} == {None}
    condition = step["podGroups"]["trainer"]["conditions"][0]
    assert condition["message"] == (
        f"0/1 placements are available, first placement status: pod group is unschedulable, {why}"
    )
