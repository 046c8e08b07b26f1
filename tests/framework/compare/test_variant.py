"""run_variant and compare_results on the examples' cluster: bin-packing and spreading differ
in the expected direction, the first variant places pods as ``simulate`` does, the same seed
gives the same report, traced pods keep their attempts, and bad inputs are named."""

from __future__ import annotations

import copy
import json

import pytest

from framework.compare.errors import Cancelled, CompareError
from framework.compare.inputs import CompareInputs
from framework.compare.report import compare_results
from framework.compare.variant import VariantResult, VariantSpec, run_variant
from framework.features import FeatureGates
from framework.simulator import simulate
from tests.framework.compare.scenarios import BIN_PACKING, CLUSTER, SPREADING, node, pod


def run_both(seed: int = 0) -> dict:
    inputs = CompareInputs(CLUSTER, seed=seed)
    return compare_results([run_variant(SPREADING, inputs), run_variant(BIN_PACKING, inputs)])


def without_latency(report: dict) -> dict:
    report = copy.deepcopy(report)
    for variant in report["variants"]:
        variant.pop("latency")
    for path in [p for p in report["better"] if p.startswith("latency.")]:
        report["better"].pop(path)
    return report


def test_bin_packing_leaves_more_nodes_empty_and_spreading_a_lower_maximum():
    spreading, packing = run_both()["variants"]
    assert packing["utilization"]["emptyNodes"] > spreading["utilization"]["emptyNodes"]
    assert spreading["utilization"]["cpu"]["max"] < packing["utilization"]["cpu"]["max"]
    assert spreading["pods"]["scheduled"] == packing["pods"]["scheduled"] == 8


def test_the_better_values_are_marked_by_direction():
    better = run_both()["better"]
    assert better["utilization.emptyNodes"] == "bin-packing"
    assert better["utilization.cpu.max"] == "spreading"
    assert "pods.scheduled" not in better  # a tie marks nobody


def test_the_first_variant_places_every_pod_where_simulate_does():
    result = run_variant(SPREADING, CompareInputs(CLUSTER, seed=3))
    simulated = {}
    for attempt in simulate(SPREADING.config_text, CLUSTER, seed=3):
        simulated[attempt["pod"]] = attempt["node"] if attempt["result"] == "Scheduled" else None
    assert result.placements == simulated
    assert len(simulated) == 8


def test_the_same_seed_gives_the_same_report_but_for_latency():
    first, second = run_both(seed=11), run_both(seed=11)
    assert without_latency(first) == without_latency(second)


def test_differing_pods_list_each_variants_node():
    report = run_both()
    differences = report["differences"]
    assert differences["count"] == len(differences["pods"]) > 0
    for entry in differences["pods"]:
        assert len(entry["nodes"]) == 2 and entry["nodes"][0] != entry["nodes"][1]
    assert report["variants"][1]["placedDifferently"] == differences["count"]
    # bin-packing fills node-1 (the database's node, the most allocated) first
    assert {"pod": "default/web-0", "nodes": ["node-3", "node-1"]} in differences["pods"]


def test_traced_pods_keep_their_attempts_with_their_events_and_the_others_none():
    result = run_variant(SPREADING, CompareInputs(CLUSTER), trace_pods=frozenset({"default/web-0"}))
    assert list(result.attempts) == ["default/web-0"]
    (attempt,) = result.attempts["default/web-0"]
    assert attempt["pod"] == "default/web-0" and attempt["result"] == "Scheduled"
    assert attempt["node"] == result.placements["default/web-0"]
    assert attempt["scores"]["NodeResourcesFit"]  # simulate's score table
    points = {event["point"] for event in attempt["events"]}
    assert {"preFilter", "filter", "score", "bind"} <= points
    assert all(event["pod"] == "default/web-0" for event in attempt["events"])


def test_a_traced_run_places_pods_as_an_untraced_one():
    untraced = run_variant(BIN_PACKING, CompareInputs(CLUSTER))
    traced = run_variant(
        BIN_PACKING, CompareInputs(CLUSTER), trace_pods=frozenset(untraced.placements)
    )
    assert traced.placements == untraced.placements


def test_a_result_survives_its_dict():
    result = run_variant(SPREADING, CompareInputs(CLUSTER), trace_pods=frozenset({"default/db-0"}))
    assert VariantResult.from_dict(result.to_dict()) == result


def test_progress_ends_with_every_pod_settled():
    calls = []
    run_variant(
        SPREADING, CompareInputs(CLUSTER), progress=lambda done, total: calls.append((done, total))
    )
    assert calls[0] == (0, 8) and calls[-1] == (8, 8)


def test_a_stop_request_cancels_the_run(monkeypatch):
    monkeypatch.setattr("framework.compare.variant.CHECK_EVERY_SECONDS", 0.0)
    with pytest.raises(Cancelled):
        run_variant(SPREADING, CompareInputs(CLUSTER), should_stop=lambda: True)


def test_unschedulable_pods_are_grouped_by_message_and_attempts_counted():
    objects = "\n---\n".join(
        json.dumps(o)
        for o in [
            node("n1", cpu="1"),
            pod("a", cpu="800m"),
            pod("b", cpu="800m"),
            pod("c", cpu="800m"),
        ]
    )
    measures = run_variant(SPREADING, CompareInputs(objects)).measures
    assert measures["pods"] == {
        "total": 3,
        "scheduled": 1,
        "unschedulable": 2,
        "preempted": 0,
        "preemptions": 0,
    }
    (group,) = measures["unschedulableByMessage"]
    assert group["count"] == 2
    assert (
        group["message"]
        == "0/1 nodes are available: 1 Insufficient cpu. no new claims to deallocate, preemption:"
        " 0/1 nodes are available: 1 No preemption victims found for incoming pod."
    )
    assert measures["attemptsPerPod"] == {"mean": 1.0, "max": 1}


def test_a_bad_configuration_is_named_as_the_configuration():
    bad = VariantSpec("broken", SPREADING.config_text.replace("LeastAllocated", "Sideways"))
    with pytest.raises(CompareError) as raised:
        run_variant(bad, CompareInputs(CLUSTER))
    assert (raised.value.part, raised.value.variant) == ("config", "broken")
    assert "scoringStrategy.type" in str(raised.value)


def test_bad_objects_are_named_as_the_objects():
    with pytest.raises(CompareError) as raised:
        run_variant(SPREADING, CompareInputs(CLUSTER.replace("containers:", "containerz:", 1)))
    assert raised.value.part == "objects"
    assert 'unknown field "spec.containerz"' in str(raised.value)


def test_gates_the_engine_does_not_simulate_are_named_as_the_gates():
    gates = FeatureGates.from_string("GenericWorkload=true,DRAWorkloadResourceClaims=true")
    with pytest.raises(
        CompareError, match=r"not simulated yet.*DRAWorkloadResourceClaims"
    ) as raised:
        run_variant(SPREADING, CompareInputs(CLUSTER, features=gates))
    assert raised.value.part == "features"
