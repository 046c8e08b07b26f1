"""Every scenario in examples/ against the outcome derived by hand from upstream's formulas.

Each example directory holds config.yaml, objects.yaml and expected.json; its README shows how
each expected value follows from kube-scheduler v1.36's logic. The simulation creates every
pending pod at once and schedules until the queue is idle, as ``python -m framework simulate``
does. expected.json lists every attempt in order and where the pods left pending end up.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from framework.simulator import Simulation

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"
SCENARIOS = sorted(
    p.name for p in EXAMPLES.iterdir() if p.is_dir() and (p / "expected.json").exists()
)
QUEUES = ("active", "backoff", "unschedulable", "gated")


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


@pytest.mark.parametrize("scenario", SCENARIOS)
def test_every_attempt_matches_the_hand_derived_outcome(scenario):
    expected, simulation = run(scenario)
    got = [attempt_as_expected(report) for report in simulation.reports]
    assert [(a["pod"], a["result"]) for a in got] == [
        (a["pod"], a["result"]) for a in expected["pods"]
    ]
    for want, have in zip(expected["pods"], got, strict=True):
        assert have == want, want["pod"]


@pytest.mark.parametrize("scenario", SCENARIOS)
def test_pods_left_pending_wait_where_expected(scenario):
    expected, simulation = run(scenario)
    listing = simulation.scheduler.queue.listing()
    got = {name: sorted(info.pod.key for info in getattr(listing, name)) for name in QUEUES}
    assert got == {name: sorted(expected["queue"][name]) for name in QUEUES}
