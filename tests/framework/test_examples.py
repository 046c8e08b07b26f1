"""Every scenario in examples/ against the outcome derived by hand from upstream's formulas.

Each example directory holds config.yaml, objects.yaml and expected.json; its README shows how
each expected value follows from kube-scheduler v1.36's logic. The simulation creates every
pending pod at once and schedules until the queue is idle, as ``python -m framework simulate``
does. expected.json lists every attempt in order and where the pods left pending end up.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from framework.plugins.dynamicresources.pod_claims import RESOURCE_CLAIM_KIND, claim_name
from framework.simulator import Simulation

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"
SCENARIOS = sorted(
    p.name for p in EXAMPLES.iterdir() if p.is_dir() and (p / "expected.json").exists()
)
QUEUES = ("active", "backoff", "unschedulable", "gated")
DEFAULT_CONFIG = "apiVersion: kubescheduler.config.k8s.io/v1\nkind: KubeSchedulerConfiguration\n"

# NodeName only rejects pods that already name a node, which the scheduler never sees.
NEVER_REJECT = {"NodeName"}
# VolumeBinding only scores with StorageCapacityScoring (alpha, off in v1.36).
NEVER_RANK = {"VolumeBinding"}


def run(scenario: str) -> tuple[dict, Simulation]:
    directory = EXAMPLES / scenario
    expected = json.loads((directory / "expected.json").read_text())
    simulation = Simulation(
        str(directory / "config.yaml"), (directory / "objects.yaml").read_text()
    )
    simulation.run()
    return expected, simulation


def attempt_as_expected(report) -> dict:
    """An attempt in expected.json's shape: the CLI's fields, scores reduced to weighted."""
    got = report.to_dict()
    return {
        "pod": got["pod"],
        "result": got["result"],
        "node": got["node"],
        "message": got["message"],
        "evaluatedNodes": got["evaluatedNodes"],
        "feasibleNodes": got["feasibleNodes"],
        "nominatedNode": got["nominatedNode"],
        "victims": got["victims"],
        "weightedScores": {
            plugin: {node: cell["weighted"] for node, cell in by_node.items()}
            for plugin, by_node in got["scores"].items()
        },
        "finalScores": got["finalScores"],
    }


def test_every_directory_with_an_expectation_is_a_complete_example():
    for scenario in SCENARIOS:
        for name in ("config.yaml", "objects.yaml", "README.md", "expected.json"):
            assert (EXAMPLES / scenario / name).is_file(), f"{scenario}/{name}"


@pytest.mark.parametrize("scenario", SCENARIOS, ids=lambda s: f"the {s} example")
def test_every_attempt_matches_the_hand_derived_outcome(scenario):
    expected, simulation = run(scenario)
    got = [attempt_as_expected(report) for report in simulation.reports]
    assert [(a["pod"], a["result"]) for a in got] == [
        (a["pod"], a["result"]) for a in expected["pods"]
    ]
    for want, have in zip(expected["pods"], got, strict=True):
        assert have == want, want["pod"]


@pytest.mark.parametrize("scenario", SCENARIOS, ids=lambda s: f"the {s} example")
def test_pods_left_pending_wait_where_expected(scenario):
    expected, simulation = run(scenario)
    listing = simulation.scheduler.queue.listing()
    got = {name: sorted(info.pod.key for info in getattr(listing, name)) for name in QUEUES}
    assert got == {name: sorted(expected["queue"][name]) for name in QUEUES}


@pytest.mark.parametrize(
    "scenario",
    [s for s in SCENARIOS if "claims" in json.loads((EXAMPLES / s / "expected.json").read_text())],
    ids=lambda s: f"the {s} example",
)
def test_resource_claims_end_with_the_hand_derived_allocations(scenario):
    """``claims``: for a pod, each of its claims (by the pod's name for it) with the devices
    allocated (``status.allocation`` as the API shows it) and the pods it is reserved for."""
    expected, simulation = run(scenario)
    got = {}
    for pod_key, by_pod_claim in expected["claims"].items():
        namespace, name = pod_key.split("/")
        pod = simulation.cluster.get("Pod", name, namespace)
        got[pod_key] = {}
        for pod_claim in pod.spec.resource_claims:
            claim = simulation.cluster.get(
                RESOURCE_CLAIM_KIND, claim_name(pod, pod_claim)[0], namespace
            )
            got[pod_key][pod_claim.name] = {
                "allocation": (claim.to_dict().get("status") or {}).get("allocation"),
                "reservedFor": [ref.name for ref in claim.status.reserved_for],
            }
        assert got[pod_key] == by_pod_claim, pod_key


def test_the_examples_see_every_default_plugin_reject_a_node_and_rank_nodes():
    rejecting: set[str] = set()
    ranking: set[str] = set()
    for scenario in SCENARIOS:
        for report in run(scenario)[1].reports:
            for verdicts in report.filter_table().values():
                rejecting |= {name for name, v in verdicts.items() if v["code"] != "Success"}
            for name, by_node in report.score_table().items():
                if len({cell["weighted"] for cell in by_node.values()}) > 1:
                    ranking.add(name)
    default = Simulation(DEFAULT_CONFIG, "").scheduler.profiles["default-scheduler"]
    assert {p.name for p in default.filter_plugins} - NEVER_REJECT <= rejecting
    assert {p.name for p in default.score_plugins} - NEVER_RANK <= ranking


def test_the_examples_gate_preempt_fail_binding_and_use_two_profiles():
    expected = [json.loads((EXAMPLES / s / "expected.json").read_text()) for s in SCENARIOS]
    attempts = [attempt for e in expected for attempt in e["pods"]]
    assert any(e["queue"]["gated"] for e in expected)
    assert any(a["victims"] and a["nominatedNode"] for a in attempts)
    assert any(a["result"] == "Error" for a in attempts)
    # A PreFilter rejection names no per-node counts: "0/4 nodes are available: pod ...".
    assert any(re.match(r"0/\d+ nodes are available: [a-z]", a["message"]) for a in attempts)
    assert any("profiles:" in (EXAMPLES / s / "config.yaml").read_text() for s in SCENARIOS)
