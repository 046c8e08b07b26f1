"""The recorded pod-group scenarios replayed on the engine, step by step
(tests/fixtures/oracle-workloads; docs/workloads.md).

The engine runs with the four gates the recordings had on (GenericWorkload, GangScheduling,
TopologyAwareWorkloadScheduling, WorkloadAwarePreemption): messages compare word for word.

Ties between equal nodes were broken at random by the real scheduler, so placements compare as
how many members share a node (and, for a topology constraint, which zone), and which member of
a gang one short gets the nodes message compares as the multiset of messages. A preemption's
victims compare the same way: equal pods (same priority, no start time) are told apart by the
order the scheduler happened to meet them, so pods outside groups compare by count, and victims
by how many and how they shared nodes.
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
    {
        "GenericWorkload": True,
        "GangScheduling": True,
        "TopologyAwareWorkloadScheduling": True,
        "WorkloadAwarePreemption": True,
    }
)
REPLAYED = [
    "gang-fits",
    "gang-one-short",
    "two-gangs-compete",
    "basic-group-partial",
    "gang-completed-later",
    "gang-pods-before-group",
    "gang-preempts",
    "gang-preemption-never",
    "gang-pod-priority-only",
    "zone-topology",
    "zone-topology-no-domain",
]
PREEMPTOR_UID = re.compile(r"^Preempted by podgroup \S+ on node cluster$")
ZONE = "topology.kubernetes.io/zone"


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


OUTSIDE_GROUPS = "(a pod outside groups)"


def bound(nodes: dict, members: set[str]) -> list[str]:
    """The bound pods: group members by name, the others by count."""
    return sorted(name if name in members else OUTSIDE_GROUPS for name, n in nodes.items() if n)


def pod_outcomes(cluster, members: set[str]) -> dict:
    pods = {p.name: p for p in cluster.list("Pod")}
    zone_of = zone_labels(cluster.list("Node"))
    # Binding sets PodScheduled=True in kube-apiserver; the in-memory cluster leaves a bound
    # pod's earlier failure in place, so only pending pods' conditions compare.
    conditions = {
        name: pod.status.condition("PodScheduled")
        for name, pod in pods.items()
        if not pod.spec.node_name
    }
    return {
        "bound": bound({name: pod.spec.node_name for name, pod in pods.items()}, members),
        "shape": shape(pod.spec.node_name for pod in pods.values()),
        "zones": zones((pod.spec.node_name for pod in pods.values()), zone_of),
        "conditions": sorted(
            (c.status, c.reason, c.message)
            for c in conditions.values()
            if c is not None and c.status != "True"
        ),
    }


def recorded_outcomes(recorded_pods, members: set[str], zone_of: dict[str, str]) -> dict:
    # PodScheduled=True comes from kube-apiserver's binding, not from the scheduler.
    conditions = [
        p["podScheduled"]
        for p in recorded_pods.values()
        if p["podScheduled"] and p["podScheduled"]["status"] != "True"
    ]
    return {
        "bound": bound({name: pod["node"] for name, pod in recorded_pods.items()}, members),
        "shape": shape(pod["node"] for pod in recorded_pods.values()),
        "zones": zones((pod["node"] for pod in recorded_pods.values()), zone_of),
        "conditions": sorted((c["status"], c["reason"], c["message"]) for c in conditions),
    }


def group_conditions(cluster) -> dict:
    return {
        g.name: [(c.type, c.status, c.reason, c.message) for c in g.conditions]
        for g in cluster.list("PodGroup")
    }


def recorded_group_conditions(step) -> dict:
    return {
        name: [(c["type"], c["status"], c["reason"], c["message"]) for c in group["conditions"]]
        for name, group in step["podGroups"].items()
    }


def event_kinds(events) -> set[tuple[str, str, str]]:
    """Victims' events apart (``victims``)."""
    return {
        (e["regarding"]["kind"], e["regarding"]["name"], e["reason"])
        for e in events
        if e["reason"] != "Preempted"
    }


def recorded_event_kinds(events) -> set[tuple[str, str, str]]:
    return {(e["kind"], e["name"], e["reason"]) for e in events if e["reason"] != "Preempted"}


def victims(events, nodes_before: dict) -> dict:
    """How many pods were preempted, how they shared nodes, and what their events said."""
    preempted = [e for e in events if e["reason"] == "Preempted"]
    names = [e["regarding"]["name"] for e in preempted]
    return {
        "count": len(names),
        "shape": shape(nodes_before[name] for name in names),
        "notes": sorted(e["note"] for e in preempted),
    }


def recorded_victims(step, nodes_before: dict, pod_group_uids: dict) -> dict:
    """The recorded victims, the recorded PodGroup's UID in their events replaced by the
    replay's own PodGroup's (each run of kube-apiserver makes new ones)."""
    preempted = [e for e in step["events"] if e["reason"] == "Preempted"]
    assert all(PREEMPTOR_UID.match(e["note"]) for e in preempted), preempted
    (uid,) = pod_group_uids.values() if preempted else (None,)
    return {
        "count": len(step["deletedPods"]),
        "shape": shape(nodes_before[name] for name in step["deletedPods"]),
        "notes": sorted(f"Preempted by podgroup {uid} on node cluster" for _ in preempted),
    }


@pytest.mark.parametrize("scenario", REPLAYED)
def test_the_engine_replays_the_recorded_scenario(scenario):
    replay = Replay(scenario)
    members = {o.name for o in replay.objects.values() if o.kind == "Pod" and o.spec.pod_group_name}
    nodes_before, recorded_nodes_before = {}, {}
    for step, events in replay.steps():
        where = f"{scenario}, after: {step['step']}"
        got = pod_outcomes(replay.cluster, members)
        want = recorded_outcomes(step["pods"], members, replay.zone_of)
        if not replay.constrained:  # without a constraint, equal zones are a tie too
            del got["zones"], want["zones"]
        assert got == want, where
        assert group_conditions(replay.cluster) == recorded_group_conditions(step), where
        # The recorder lists every event seen since the scenario began.
        assert event_kinds(replay.cluster.events) == recorded_event_kinds(step["events"]), where
        uids = {g.name: g.uid for g in replay.cluster.list("PodGroup")}
        assert victims(events, nodes_before) == recorded_victims(
            step, recorded_nodes_before, uids
        ), where
        nodes_before = {p.name: p.spec.node_name for p in replay.cluster.list("Pod")}
        recorded_nodes_before = {name: pod["node"] for name, pod in step["pods"].items()}


def test_scheduled_events_name_each_members_node():
    replay = Replay("gang-fits")
    *_, (_, events) = replay.steps()
    bound = {p.name: p.spec.node_name for p in replay.cluster.list("Pod")}
    notes = sorted(e["note"] for e in events if e["reason"] == "Scheduled")
    assert notes == sorted(
        f"Successfully assigned default/{name} to {node}" for name, node in bound.items()
    )
