"""The recorded pod-group scenarios replayed on the engine, step by step
(tests/fixtures/oracle-workloads; docs/workloads.md).

The engine runs with GenericWorkload and GangScheduling on. The recordings had
TopologyAwareWorkloadScheduling and WorkloadAwarePreemption on as well, which the engine does not
simulate yet; they change two messages only, in ways upstream's code spells out, and the
replay reads the recorded messages as upstream would have written them with those gates off:

- a member that fits nowhere: with workload-aware preemption the pod's own preemption says
  ``not eligible due to workload aware preemption enabled``; without it DefaultPreemption runs
  for the pod and finds no victim (``0/N nodes are available: N No preemption victims found for
  incoming pod.``);
- the PodGroup's condition: the placement algorithm wraps the group's status in ``0/1
  placements are available, first placement status: …`` and workload-aware preemption appends
  its own verdict; without both it is the group's status alone (``pod group is
  unschedulable``).

Ties between equal nodes were broken at random by the real scheduler, so placements compare as
how many members share a node, and which member of a gang one short gets the nodes message
compares as the multiset of messages.
"""

from __future__ import annotations

import json
import re
from collections import Counter
from pathlib import Path

import pytest

from framework.admission.admit import create_objects
from framework.api.loader import decode_objects
from framework.features import FeatureGates
from framework.simulator import Simulation

FIXTURES = Path(__file__).parents[1] / "fixtures" / "oracle-workloads"
GANG_GATES = FeatureGates({"GenericWorkload": True, "GangScheduling": True})
REPLAYED = [
    "gang-fits",
    "gang-one-short",
    "two-gangs-compete",
    "basic-group-partial",
    "gang-completed-later",
    "gang-pods-before-group",
]
WORKLOAD_AWARE_PREEMPTION = "preemption: not eligible due to workload aware preemption enabled"
PLACEMENTS = re.compile(r"^0/\d+ placements are available, first placement status: ")
GROUP_PREEMPTION_VERDICT = ", No preemption victims found for incoming preemptor"


def pod_message_with_later_gates_off(recorded: str) -> str:
    if WORKLOAD_AWARE_PREEMPTION not in recorded:
        return recorded
    nodes = re.match(r"^0/(\d+) nodes are available", recorded).group(1)
    per_pod = f"preemption: 0/{nodes} nodes are available: {nodes} No preemption victims found"
    return recorded.replace(WORKLOAD_AWARE_PREEMPTION, per_pod + " for incoming pod.")


def group_message_with_later_gates_off(recorded: str) -> str:
    message = PLACEMENTS.sub("", recorded)
    return message.removesuffix(GROUP_PREEMPTION_VERDICT)


class Replay:
    """A Simulation fed with the scenario's objects, step by step, as they were recorded."""

    def __init__(self, scenario: str) -> None:
        folder = FIXTURES / scenario
        self.expected = json.loads((folder / "expected.json").read_text())
        objects, refused = create_objects(decode_objects((folder / "objects.yaml").read_text())[0])
        assert refused == []
        self.objects = {f"{o.kind}/{o.name}": o for o in objects}
        self.simulation = Simulation((folder / "config.yaml").read_text(), "", features=GANG_GATES)
        self.cluster = self.simulation.cluster

    def steps(self):
        for step in self.expected["steps"]:
            events_before = len(self.cluster.events)
            self.simulation.create(self.objects[name] for name in step["created"])
            yield step, self.cluster.events[events_before:]


def shape(nodes) -> list[int]:
    """How many pods share each node, ties between equal nodes set aside."""
    return sorted(Counter(n for n in nodes if n).values())


def pod_outcomes(cluster, recorded_pods) -> dict:
    pods = {p.name: p for p in cluster.list("Pod") if p.name in recorded_pods}
    conditions = {name: pod.status.condition("PodScheduled") for name, pod in pods.items()}
    return {
        "bound": sorted(name for name, pod in pods.items() if pod.spec.node_name),
        "shape": shape(pod.spec.node_name for pod in pods.values()),
        "conditions": sorted(
            (c.status, c.reason, c.message)
            for c in conditions.values()
            if c is not None and c.status != "True"
        ),
    }


def recorded_outcomes(recorded_pods) -> dict:
    # PodScheduled=True comes from kube-apiserver's binding, not from the scheduler.
    conditions = [
        p["podScheduled"]
        for p in recorded_pods.values()
        if p["podScheduled"] and p["podScheduled"]["status"] != "True"
    ]
    return {
        "bound": sorted(name for name, pod in recorded_pods.items() if pod["node"]),
        "shape": shape(pod["node"] for pod in recorded_pods.values()),
        "conditions": sorted(
            (c["status"], c["reason"], pod_message_with_later_gates_off(c["message"]))
            for c in conditions
        ),
    }


def group_conditions(cluster) -> dict:
    return {
        g.name: [(c.type, c.status, c.reason, c.message) for c in g.conditions]
        for g in cluster.list("PodGroup")
    }


def recorded_group_conditions(step) -> dict:
    return {
        name: [
            (c["type"], c["status"], c["reason"], group_message_with_later_gates_off(c["message"]))
            for c in group["conditions"]
        ]
        for name, group in step["podGroups"].items()
    }


def event_kinds(events) -> set[tuple[str, str, str]]:
    return {(e["regarding"]["kind"], e["regarding"]["name"], e["reason"]) for e in events}


def recorded_event_kinds(events) -> set[tuple[str, str, str]]:
    return {(e["kind"], e["name"], e["reason"]) for e in events}


@pytest.mark.parametrize("scenario", REPLAYED)
def test_the_engine_replays_the_recorded_scenario(scenario):
    replay = Replay(scenario)
    for step, events in replay.steps():
        where = f"{scenario}, after: {step['step']}"
        assert pod_outcomes(replay.cluster, step["pods"]) == recorded_outcomes(step["pods"]), where
        assert group_conditions(replay.cluster) == recorded_group_conditions(step), where
        assert event_kinds(events) == recorded_event_kinds(step["events"]), where


def test_scheduled_events_name_each_members_node():
    replay = Replay("gang-fits")
    *_, (_, events) = replay.steps()
    bound = {p.name: p.spec.node_name for p in replay.cluster.list("Pod")}
    notes = sorted(e["note"] for e in events if e["reason"] == "Scheduled")
    assert notes == sorted(
        f"Successfully assigned default/{name} to {node}" for name, node in bound.items()
    )
