"""The preemption explainer on clusters built so that each of upstream's criteria, in turn,
is the one that picks the node; and its nomination equals the engine's.

Every case: two full nodes of 4 CPU, a preemptor of priority 1000 asking for 4 CPU, and
victims arranged so the criteria before the one under test tie.
"""

from __future__ import annotations

import pytest

from framework.explain.command import explain_command
from framework.simulator import Simulation
from tests.framework.explain.manifests import CONFIG, explain, node, objects_text, pod

LOW_START, LATE_START = "2025-12-01T00:00:00Z", "2025-12-05T00:00:00Z"
NEGATIVE = -(2**30)


def victim(name, where, cpu="4", priority=100, start=LOW_START, labels=None):
    return pod(name, cpu=cpu, node_name=where, priority=priority, start=start, labels=labels)


def pdb(name, app, allowed):
    return {
        "apiVersion": "policy/v1",
        "kind": "PodDisruptionBudget",
        "metadata": {"name": name, "namespace": "default"},
        "spec": {"minAvailable": 1, "selector": {"matchLabels": {"app": app}}},
        "status": {"disruptionsAllowed": allowed, "currentHealthy": 1, "desiredHealthy": 1},
    }


CASES = {
    "fewest PDB violations": (
        [
            victim("guarded", "n1", priority=100, labels={"app": "guarded"}),
            victim("free", "n2", priority=500),
            pdb("guard", "guarded", 0),
        ],
        "n2",
    ),
    "highest-priority victim lowest": (
        [victim("high", "n1", priority=500), victim("low", "n2", priority=100)],
        "n2",
    ),
    "smallest sum of priorities": (
        [
            victim("a1", "n1", cpu="2", priority=100),
            victim("a2", "n1", cpu="2", priority=100),
            victim("b1", "n2", cpu="2", priority=100),
            victim("b2", "n2", cpu="2", priority=50),
        ],
        "n2",
    ),
    # Sums shift each priority by 2^31, so equal sums with fewer victims need priorities
    # 2^30 below zero: n1 evicts 0 + 0, n2 evicts 0 + -2^30 + -2^30.
    "fewest victims": (
        [
            victim("a1", "n1", cpu="2", priority=0),
            victim("a2", "n1", cpu="2", priority=0),
            victim("b1", "n2", cpu="2", priority=0),
            victim("b2", "n2", cpu="1", priority=NEGATIVE),
            victim("b3", "n2", cpu="1", priority=NEGATIVE),
        ],
        "n1",
    ),
    "latest start time of the highest-priority victims": (
        [victim("early", "n1", start=LOW_START), victim("late", "n2", start=LATE_START)],
        "n2",
    ),
}


def scenario(objects):
    return [node("n1"), node("n2"), *objects, pod("preemptor", cpu="4", priority=1000)]


def engine_nomination(manifests):
    reports = Simulation(CONFIG, objects_text(*manifests)).run()
    return next(r.attempt.nominated_node for r in reports if r.attempt.nominated_node)


@pytest.mark.parametrize("criterion", list(CASES))
def test_the_deciding_criterion_is_named_and_its_node_is_the_engines(criterion):
    objects, want = CASES[criterion]
    manifests = scenario(objects)
    preemption = explain(*manifests, pod_name="preemptor")["preemption"]
    assert preemption["outcome"] == "nominated"
    assert preemption["decidedBy"] == criterion
    assert [c["name"] for c in preemption["criteria"] if c["decided"]] == [criterion]
    assert preemption["nominatedNode"] == want == engine_nomination(manifests)
    assert {c["node"] for c in preemption["candidates"]} == {"n1", "n2"}


def test_criteria_come_in_upstreams_order():
    objects, _ = CASES["highest-priority victim lowest"]
    preemption = explain(*scenario(objects), pod_name="preemptor")["preemption"]
    assert [c["name"] for c in preemption["criteria"]] == list(CASES)


def test_candidates_list_victims_with_priority_pdb_and_start_time():
    objects, _ = CASES["fewest PDB violations"]
    preemption = explain(*scenario(objects), pod_name="preemptor")["preemption"]
    by_node = {c["node"]: c for c in preemption["candidates"]}
    assert by_node["n1"]["victims"] == [
        {
            "pod": "default/guarded",
            "priority": 100,
            "pdbViolation": True,
            "startTime": "2025-12-01T00:00:00+00:00",
        }
    ]
    assert by_node["n1"]["pdbViolations"] == 1
    assert by_node["n2"]["highestVictimPriority"] == 500
    assert by_node["n2"]["victimCount"] == 1


def test_nodes_that_are_not_candidates_say_why():
    manifests = [
        node("n1"),
        node("n2"),
        node("tainted", taints=[{"key": "k", "effect": "NoSchedule"}]),
        victim("peer", "n1", priority=1000),
        victim("low", "n2", priority=100),
        pod("preemptor", cpu="4", priority=1000),
    ]
    preemption = explain(*manifests, pod_name="preemptor")["preemption"]
    why = {entry["node"]: entry["why"] for entry in preemption["notCandidates"]}
    assert why["n1"].startswith("no pod of lower priority than 1000 to evict")
    assert why["tainted"].startswith("preemption cannot resolve TaintToleration")
    assert preemption["decidedBy"] == "only candidate"
    assert preemption["nominatedNode"] == "n2" == engine_nomination(manifests)


def test_when_preemption_cannot_help_it_gives_the_message():
    manifests = [node("n1"), victim("peer", "n1", priority=1000), pod("p", cpu="4", priority=1000)]
    output = explain(*manifests, pod_name="p")
    preemption = output["preemption"]
    assert preemption["outcome"] == "not helpful"
    assert preemption["candidates"] == []
    assert preemption["message"] in output["message"]


def test_a_pod_that_may_not_preempt_says_so():
    manifests = [
        node("n1"),
        victim("low", "n1", priority=100),
        pod("polite", cpu="4", priority=1000, preemptionPolicy="Never"),
    ]
    preemption = explain(*manifests, pod_name="polite")["preemption"]
    assert preemption["message"] == "preemption: not eligible due to preemptionPolicy=Never."


@pytest.mark.parametrize("seed", [0, 3])
def test_beyond_a_hundred_nodes_it_searches_the_nodes_the_engine_searched(seed):
    """The real dry run stops after 100 candidates from a random offset; the command records
    where it started, so the explainer picks among the same candidates."""
    manifests = [node(f"n{i}") for i in range(200)]
    manifests += [victim(f"r{i}", f"n{i}", cpu="3", priority=(i * 7919) % 1000) for i in range(200)]
    manifests.append(pod("big", cpu="2", priority=5000))
    text = objects_text(*manifests)
    preemption = explain_command(CONFIG, text, "default/big", seed=seed)["preemption"]
    reports = Simulation(CONFIG, text, seed=seed).run()
    assert len(preemption["candidates"]) == 100
    searched = [n for n in preemption["notCandidates"] if n["why"].startswith("not searched")]
    assert len(searched) == 100
    assert preemption["nominatedNode"] == reports[0].attempt.nominated_node
