"""OpportunisticBatching on and off: what upstream guarantees about the placements.

Upstream only promises that a hinted node passes every filter: the pod then goes there without
scoring. That equals the full cycle's choice when the previous pod's ranking still holds for
the rest of the nodes, which is the case KEP-5598 designs for (one identical pod per node,
every node evaluated, distinct scores). It can differ otherwise, and upstream accepts that:
among equal totals the remaining heap and a fresh heap may pick different nodes; with node
sampling (percentageOfNodesToScore) the full cycle would look at other nodes; normalized
scores (NodeAffinity, TaintToleration) may shift once the chosen node leaves the feasible set.

So the tests check: every oracle replay and every example gives exactly the same attempts with
the gate on as with it off, because none of their pods is signed (each profile keeps
PodTopologySpread's System default constraints, and a pod under default spreading constraints
is never signed) and no hint is ever given; and in the designed case, where hints are used,
the placements are those of the full cycle.
"""

from __future__ import annotations

import json

import pytest
import yaml

from framework.features import FeatureGates
from framework.metrics import BATCH_ATTEMPTS_TOTAL
from framework.simulator import Simulation
from framework.trace import EXTENSION_POINT, PLUGIN
from tests.framework.test_examples import EXAMPLES
from tests.framework.test_examples import SCENARIOS as EXAMPLE_SCENARIOS
from tests.framework.test_oracle import SCENARIOS as ORACLE_SCENARIOS
from tests.framework.test_oracle import replay_simulation

ON = FeatureGates({"OpportunisticBatching": True})
OFF = FeatureGates({"OpportunisticBatching": False})


def attempts(simulation: Simulation) -> list[dict]:
    return [json.loads(json.dumps(r.to_dict())) for r in simulation.reports]


def hints_used(simulation: Simulation) -> float:
    return simulation.metrics.total(BATCH_ATTEMPTS_TOTAL, result="hint_used")


@pytest.mark.parametrize("scenario", ORACLE_SCENARIOS)
def test_oracle_replays_are_the_same_with_the_gate_on(scenario):
    runs = {}
    for gates in (ON, OFF):
        _, simulation = replay_simulation(scenario, gates)
        simulation.run_one_at_a_time()
        runs[gates.enabled("OpportunisticBatching")] = simulation
    assert hints_used(runs[True]) == 0
    assert attempts(runs[True]) == attempts(runs[False])


def example(scenario: str, gates: FeatureGates) -> Simulation:
    directory = EXAMPLES / scenario
    simulation = Simulation(
        str(directory / "config.yaml"), (directory / "objects.yaml").read_text(), features=gates
    )
    simulation.run()
    return simulation


@pytest.mark.parametrize("scenario", EXAMPLE_SCENARIOS)
def test_examples_are_the_same_with_the_gate_on(scenario):
    on, off = example(scenario, ON), example(scenario, OFF)
    assert hints_used(on) == 0
    assert attempts(on) == attempts(off)


# Spreading defaults off, so pods are signed; nodes of distinct sizes, so LeastAllocated ranks
# them without ties; each pod needs more than half of any node, so they go one per node.
BATCHABLE_CONFIG = """\
apiVersion: kubescheduler.config.k8s.io/v1
kind: KubeSchedulerConfiguration
profiles:
- schedulerName: default-scheduler
  pluginConfig:
  - name: PodTopologySpread
    args: {defaultingType: List}
"""


def batchable_objects(nodes: int, pods: int) -> str:
    objects = []
    for i in range(nodes):
        capacity = {"cpu": f"{2000 + 100 * i}m", "memory": "8Gi", "pods": "110"}
        objects.append(
            {
                "apiVersion": "v1",
                "kind": "Node",
                "metadata": {
                    "name": f"node-{i}",
                    "labels": {"kubernetes.io/hostname": f"node-{i}"},
                },
                "status": {"capacity": capacity, "allocatable": capacity},
            }
        )
    for i in range(pods):
        container = {"name": "c", "image": "app", "resources": {"requests": {"cpu": "1500m"}}}
        objects.append(
            {
                "apiVersion": "v1",
                "kind": "Pod",
                "metadata": {"name": f"pod-{i}", "namespace": "default", "labels": {"app": "a"}},
                "spec": {"containers": [container]},
            }
        )
    return yaml.safe_dump_all(objects)


def test_identical_pods_one_per_node_take_their_hints_and_land_as_with_full_cycles():
    objects = batchable_objects(nodes=6, pods=8)
    on = Simulation(BATCHABLE_CONFIG, objects, features=ON)
    off = Simulation(BATCHABLE_CONFIG, objects, features=OFF)
    on.run()
    off.run()
    placements = [(a["pod"], a["result"], a["node"]) for a in attempts(on)]
    assert placements == [(a["pod"], a["result"], a["node"]) for a in attempts(off)]
    # The first pod ranks all six nodes; the next five take the hints (the ranking is then
    # used up); the last two find no node.
    assert hints_used(on) == 5
    assert [p[2] for p in placements[:6]] == [f"node-{i}" for i in range(5, -1, -1)]
    hinted = [a for a in attempts(on) if a["evaluatedNodes"] == 1 and a["result"] == "Scheduled"]
    assert len(hinted) == 5
    assert all(a["finalScores"] == {} for a in hinted)


def test_the_trace_shows_the_hinted_node_and_no_scoring():
    simulation = Simulation(BATCHABLE_CONFIG, batchable_objects(nodes=3, pods=2), features=ON)
    simulation.run()
    first, second = simulation.reports
    summaries = [e for e in second.events if e.kind == EXTENSION_POINT and e.point == "filter"]
    assert [e.data.get("nodeHint") for e in summaries] == [second.attempt.node]
    assert summaries[0].data["feasibleNodes"] == [second.attempt.node]
    assert not [e for e in second.events if e.point in ("preScore", "score")]
    # The check that the first pod's node is now full ran that node through Filter.
    checked = {e.node for e in second.events if e.kind == PLUGIN and e.point == "filter"}
    assert first.attempt.node in checked
    assert not any("nodeHint" in e.data for e in first.events)
