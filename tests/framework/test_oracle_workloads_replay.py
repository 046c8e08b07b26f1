"""The recorded pod-group scenarios replayed on the engine, step by step
(tests/fixtures/oracle-workloads; docs/workloads.md).

The engine runs with GenericWorkload, GangScheduling and TopologyAwareWorkloadScheduling on.
The recordings had WorkloadAwarePreemption on as well, which the engine does not simulate yet;
it changes two messages only, in ways upstream's code spells out, and the replay reads the
recorded messages as upstream would have written them with that gate off:

- a member that fits nowhere, of a group without a topology constraint: with workload-aware
  preemption the pod's own preemption says ``not eligible due to workload aware preemption
  enabled``; without it DefaultPreemption runs for the pod and finds no victim (``0/N nodes are
  available: N No preemption victims found for incoming pod.``). A member of a group with a
  topology constraint reads ``not eligible due to placement-based pod group scheduling
  limitation`` either way;
- the PodGroup's condition: workload-aware preemption appends its verdict to the placement
  algorithm's ``0/N placements are available, first placement status: …`` (``No preemption
  victims found for incoming preemptor``, or for a group with a topology constraint
  ``workload aware preemption is not supported for pod groups with scheduling constraints``);
  without it the placements message stands alone.

Ties between equal nodes were broken at random by the real scheduler, so placements compare as
how many members share a node (and, for a topology constraint, which zone), and which member
of a gang one short gets the nodes message compares as the multiset of messages.
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
GATES = FeatureGates(
    {"GenericWorkload": True, "GangScheduling": True, "TopologyAwareWorkloadScheduling": True}
)
REPLAYED = [
    "gang-fits",
    "gang-one-short",
    "two-gangs-compete",
    "basic-group-partial",
    "gang-completed-later",
    "gang-pods-before-group",
    "zone-topology",
    "zone-topology-no-domain",
]
WORKLOAD_AWARE_PREEMPTION = "preemption: not eligible due to workload aware preemption enabled"
ZONE = "topology.kubernetes.io/zone"
GROUP_PREEMPTION_VERDICTS = (
    ", No preemption victims found for incoming preemptor",
    ", workload aware preemption is not supported for pod groups with scheduling constraints",
)


def pod_message_with_later_gates_off(recorded: str) -> str:
    if WORKLOAD_AWARE_PREEMPTION not in recorded:
        return recorded
    nodes = re.match(r"^0/(\d+) nodes are available", recorded).group(1)
    per_pod = f"preemption: 0/{nodes} nodes are available: {nodes} No preemption victims found"
    return recorded.replace(WORKLOAD_AWARE_PREEMPTION, per_pod + " for incoming pod.")


def group_message_with_later_gates_off(recorded: str) -> str:
    for verdict in GROUP_PREEMPTION_VERDICTS:
        recorded = recorded.removesuffix(verdict)
    return recorded


class Replay:
    """A Simulation fed with the scenario's objects, step by step, as they were recorded."""

    def __init__(self, scenario: str) -> None:
        folder = FIXTURES / scenario
        self.expected = json.loads((folder / "expected.json").read_text())
        objects, refused = create_objects(decode_objects((folder / "objects.yaml").read_text())[0])
        assert refused == []
        self.objects = {f"{o.kind}/{o.name}": o for o in objects}
        self.zone_of = zone_labels(o for o in objects if o.kind == "Node")
        self.constrained = any(o.kind == "PodGroup" and o.spec.topology_keys for o in objects)
        self.simulation = Simulation((folder / "config.yaml").read_text(), "", features=GATES)
        self.cluster = self.simulation.cluster

    def steps(self):
        for step in self.expected["steps"]:
            events_before = len(self.cluster.events)
            self.simulation.create(self.objects[name] for name in step["created"])
            yield step, self.cluster.events[events_before:]


def shape(nodes) -> list[int]:
    """How many pods share each node, ties between equal nodes set aside."""
    return sorted(Counter(n for n in nodes if n).values())


def zones(nodes, zone_of) -> list[str]:
    """The zone of each bound pod's node: a topology constraint must land in the same one."""
    return sorted(zone_of[n] for n in nodes if n)


def zone_labels(nodes) -> dict[str, str]:
    return {node.name: node.labels.get(ZONE, "") for node in nodes}


def pod_outcomes(cluster, recorded_pods) -> dict:
    pods = {p.name: p for p in cluster.list("Pod") if p.name in recorded_pods}
    conditions = {name: pod.status.condition("PodScheduled") for name, pod in pods.items()}
    zone_of = zone_labels(cluster.list("Node"))
    return {
        "bound": sorted(name for name, pod in pods.items() if pod.spec.node_name),
        "shape": shape(pod.spec.node_name for pod in pods.values()),
        "zones": zones((pod.spec.node_name for pod in pods.values()), zone_of),
        "conditions": sorted(
            (c.status, c.reason, c.message)
            for c in conditions.values()
            if c is not None and c.status != "True"
        ),
    }


def recorded_outcomes(recorded_pods, zone_of) -> dict:
    # PodScheduled=True comes from kube-apiserver's binding, not from the scheduler.
    conditions = [
        p["podScheduled"]
        for p in recorded_pods.values()
        if p["podScheduled"] and p["podScheduled"]["status"] != "True"
    ]
    return {
        "bound": sorted(name for name, pod in recorded_pods.items() if pod["node"]),
        "shape": shape(pod["node"] for pod in recorded_pods.values()),
        "zones": zones((pod["node"] for pod in recorded_pods.values()), zone_of),
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
        recorded = recorded_outcomes(step["pods"], replay.zone_of)
        replayed = pod_outcomes(replay.cluster, step["pods"])
        if not replay.constrained:  # without a constraint, equal zones are a tie too
            del recorded["zones"], replayed["zones"]
        assert replayed == recorded, where
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
