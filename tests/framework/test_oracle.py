"""The engine against a real kube-scheduler v1.36.2: same placements, scores and messages.

Each scenario in tests/fixtures/oracle was recorded by creating the pending pods one at a time
(each after the previous outcome) and deleting a pod right after a failed first attempt; the
simulation replays that protocol. Where the real scheduler picked among nodes with equal final
scores (its pick depends on goroutine timing), the replay takes the same node so the rest of
the run stays comparable; the test still checks the tie was real. ImageLocality's image sizes
depend on which node the real scheduler's cache saw first with each image, which the recording
does not say; image-first-node.json gives the nodes that reproduce its scores.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from framework.features import DEFAULT_FEATURE_GATES, FeatureGates
from framework.simulator import Simulation

ORACLE = Path(__file__).resolve().parents[1] / "fixtures" / "oracle"
SCENARIOS = sorted(p.name for p in ORACLE.iterdir() if p.is_dir())


def replay(scenario: str) -> tuple[list, list]:
    expected, simulation = replay_simulation(scenario)
    reports = simulation.run_one_at_a_time()
    first_attempts: dict[str, object] = {}
    outcomes: dict[str, object] = {}
    for report in reports:
        first_attempts.setdefault(report.attempt.pod, report)
        if report.attempt.result != "Waiting":
            outcomes[report.attempt.pod] = report
    return expected, [(first_attempts.get(e["pod"]), outcomes.get(e["pod"])) for e in expected]


def replay_simulation(
    scenario: str, features: FeatureGates = DEFAULT_FEATURE_GATES
) -> tuple[list, Simulation]:
    """The scenario's expectations, and a simulation of it that takes the recorded picks."""
    directory = ORACLE / scenario
    expected = json.loads((directory / "expected.json").read_text())["pods"]
    simulation = Simulation(
        str(directory / "config.yaml"),
        (directory / "objects.yaml").read_text(),
        seed=0,
        first_nodes=image_first_nodes(directory),
        features=features,
    )
    choices = {entry["pod"]: entry["node"] for entry in expected}

    def recorded_choice(pod, tied, pick):
        return choices[pod.key] if choices.get(pod.key) in tied else pick

    simulation.scheduler.tie_breaker = recorded_choice
    for framework in simulation.scheduler.profiles.values():
        # Among preemption candidates tied on every criterion upstream picks in Go's random
        # map order; the replay takes the recorded pick.
        framework.plugins_map["DefaultPreemption"].evaluator.tie_breaker = recorded_choice
    return expected, simulation


def image_first_nodes(directory: Path) -> list[str]:
    """Nodes the real scheduler's cache saw first (see image-first-node.json), deduplicated."""
    path = directory / "image-first-node.json"
    if not path.exists():
        return []
    nodes = json.loads(path.read_text())["firstNodeWithImage"].values()
    return list(dict.fromkeys(nodes))


def weighted_scores(report) -> dict[str, dict[str, int]]:
    return {
        plugin: {node: cell["weighted"] for node, cell in by_node.items()}
        for plugin, by_node in report.score_table().items()
    }


@pytest.mark.parametrize("scenario", SCENARIOS)
def test_every_pod_lands_where_the_real_scheduler_put_it(scenario):
    expected, got = replay(scenario)
    mismatches = []
    for want, (first, outcome) in zip(expected, got, strict=True):
        if outcome is None:
            mismatches.append((want["pod"], "no attempt"))
            continue
        attempt = outcome.attempt
        if (attempt.result, attempt.node) != (want["result"], want["node"]):
            mismatches.append(
                (want["pod"], (attempt.result, attempt.node), (want["result"], want["node"]))
            )
        if want["result"] != "Scheduled" and attempt.message != want.get("message"):
            mismatches.append((want["pod"], attempt.message, want.get("message")))
        if sorted(outcome.victims + first.victims) != sorted(set(want["victims"])):
            mismatches.append((want["pod"], "victims", outcome.victims, want["victims"]))
    assert mismatches == []


@pytest.mark.parametrize("scenario", SCENARIOS)
def test_every_plugin_scores_every_node_as_the_real_scheduler(scenario):
    expected, got = replay(scenario)
    mismatches = []
    for want, (first, _) in zip(expected, got, strict=True):
        if first is None:
            continue
        if weighted_scores(first) != want["weightedScores"]:
            mismatches.append((want["pod"], weighted_scores(first), want["weightedScores"]))
        if first.attempt.final_scores != want["finalScores"]:
            mismatches.append((want["pod"], first.attempt.final_scores, want["finalScores"]))
    assert mismatches == []
