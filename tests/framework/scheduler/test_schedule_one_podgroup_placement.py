"""The placement algorithm of the pod-group cycle (TopologyAwareWorkloadScheduling): the facts
of upstream's TestPodGroupSchedulingPlacementAlgorithm and its _Scoring table, run through a
simulation whose profile holds a fake Filter / PlacementGenerate / PlacementScore plugin."""

from __future__ import annotations

from dataclasses import dataclass, field

import pytest
import yaml

from framework.features import FeatureGates
from framework.interface.placement import GeneratePlacementsResult, Placement
from framework.interface.plugins import (
    FilterPlugin,
    PlacementGeneratePlugin,
    PlacementScorePlugin,
)
from framework.interface.status import Code, Status
from framework.plugins.registry import in_tree_registry
from framework.simulator import Simulation

GATES = FeatureGates({"GenericWorkload": True, "TopologyAwareWorkloadScheduling": True})


@dataclass
class FakePlacementPlugin(FilterPlugin, PlacementGeneratePlugin, PlacementScorePlugin):
    """Rejects the nodes in ``filter_status``, proposes ``placements`` (name -> node names)
    and scores them from ``scores`` (upstream's fakePlacementPlugin)."""

    name: str = "FakePlacementPlugin"
    placements: dict[str, list[str]] = field(default_factory=dict)
    generate_status: Status | None = None
    scores: dict[str, int] = field(default_factory=dict)
    score_status: dict[str, Status] = field(default_factory=dict)
    filter_status: dict[str, Status] = field(default_factory=dict)

    def filter(self, state, pod, node_info):
        return self.filter_status.get(node_info.node_name)

    def generate_placements(self, state, pod_group, parent_placement):
        parent = {info.node_name: info for info in parent_placement.nodes}
        placements = [
            Placement(name, [parent[n] for n in names]) for name, names in self.placements.items()
        ]
        return GeneratePlacementsResult(placements), self.generate_status

    def score_placement(self, state, pod_group, placement):
        name = placement.placement.name
        return self.scores.get(name, 0), self.score_status.get(name)


def node(name: str) -> dict:
    allocatable = {"cpu": "4", "memory": "8Gi", "pods": "110"}
    return {
        "apiVersion": "v1",
        "kind": "Node",
        "metadata": {"name": name},
        "status": {"capacity": allocatable, "allocatable": allocatable},
    }


OBJECTS = [
    node("node1"),
    node("node2"),
    {
        "apiVersion": "scheduling.k8s.io/v1alpha2",
        "kind": "PodGroup",
        "metadata": {"name": "pg", "namespace": "default"},
        "spec": {"schedulingPolicy": {"basic": {}}},
    },
    {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {"name": "foo", "namespace": "default"},
        "spec": {
            "containers": [{"name": "c", "image": "pause"}],
            "schedulingGroup": {"podGroupName": "pg"},
        },
    },
]


def config(generator: str, scorers: list[tuple[str, int]]) -> str:
    profile = {
        "schedulerName": "default-scheduler",
        "plugins": {
            "multiPoint": {"disabled": [{"name": "*"}]},
            "queueSort": {"enabled": [{"name": "PrioritySort"}]},
            "bind": {"enabled": [{"name": "DefaultBinder"}]},
            "filter": {"enabled": [{"name": generator}]},
            "placementGenerate": {"enabled": [{"name": generator}]},
            "placementScore": {"enabled": [{"name": n, "weight": w} for n, w in scorers]},
        },
    }
    return yaml.safe_dump(
        {
            "apiVersion": "kubescheduler.config.k8s.io/v1",
            "kind": "KubeSchedulerConfiguration",
            "profiles": [profile],
        }
    )


def simulate(generator: FakePlacementPlugin, scorers: list[tuple[FakePlacementPlugin, int]]):
    registry = in_tree_registry(GATES)
    for plugin in {generator.name: generator, **{s.name: s for s, _ in scorers}}.values():
        registry.register(plugin.name, lambda args, handle, plugin=plugin: plugin)
    simulation = Simulation(
        config(generator.name, [(s.name, w) for s, w in scorers]),
        yaml.safe_dump_all(OBJECTS),
        registry=registry,
        features=GATES,
    )
    simulation.run()
    return simulation


def outcome(simulation: Simulation) -> tuple[str, tuple[str, str, str]]:
    pod = simulation.cluster.get("Pod", "foo", "default")
    condition = pod.status.condition("PodScheduled")
    (group,) = simulation.cluster.get("PodGroup", "pg", "default").conditions
    placed = pod.spec.node_name or condition.message
    return placed, (group.status, group.reason, group.message)


TWO_PLACEMENTS = {"placement1": ["node1"], "placement2": ["node2"]}
FIRST_HIGHER = {"placement1": 2, "placement2": 1}
SECOND_HIGHER = {"placement1": 1, "placement2": 2}
SCHEDULED = ("True", "Scheduled", "")
UNSCHEDULABLE = Status(Code.UNSCHEDULABLE)


@pytest.mark.parametrize(
    ("plugin", "want"),
    [
        (
            FakePlacementPlugin(
                placements=TWO_PLACEMENTS, scores={"placement1": 2, "placement2": 1}
            ),
            ("node1", SCHEDULED),
        ),
        (
            FakePlacementPlugin(
                placements=TWO_PLACEMENTS, scores={"placement1": 1, "placement2": 2}
            ),
            ("node2", SCHEDULED),
        ),
        (
            FakePlacementPlugin(placements={}),
            (
                "no feasible placements found",
                ("False", "Unschedulable", "no feasible placements found"),
            ),
        ),
        (
            FakePlacementPlugin(
                placements=TWO_PLACEMENTS,
                scores={"placement1": 1, "placement2": 2},
                filter_status={"node1": UNSCHEDULABLE, "node2": UNSCHEDULABLE},
            ),
            (
                "0/1 nodes are available:",
                (
                    "False",
                    "Unschedulable",
                    "0/2 placements are available, first placement status: "
                    "pod group is unschedulable",
                ),
            ),
        ),
        (
            FakePlacementPlugin(
                placements=TWO_PLACEMENTS,
                scores={"placement1": 1},
                filter_status={"node2": UNSCHEDULABLE},
            ),
            ("node1", SCHEDULED),
        ),
        (
            FakePlacementPlugin(generate_status=Status(Code.ERROR, "error for test")),
            ("error for test", ("False", "SchedulerError", "error for test")),
        ),
        (
            FakePlacementPlugin(
                placements=TWO_PLACEMENTS,
                scores={"placement1": 1},
                score_status={"placement2": Status(Code.ERROR, "error for test")},
            ),
            (
                'running PlacementScore plugins: plugin "FakePlacementPlugin" failed with: '
                "error for test",
                (
                    "False",
                    "SchedulerError",
                    'running PlacementScore plugins: plugin "FakePlacementPlugin" failed with: '
                    "error for test",
                ),
            ),
        ),
    ],
    ids=[
        "respects higher score of placement1",
        "respects higher score of placement2",
        "when no placements are generated, returns unschedulable",
        "when all placements are infeasible, returns unschedulable",
        "filters out infeasible placements",
        "when generate plugin fails, returns error",
        "when score plugin fails, returns error",
    ],
)
def test_the_group_takes_the_best_feasible_placement(plugin, want):
    assert outcome(simulate(plugin, [(plugin, 1)])) == want


@pytest.mark.parametrize(
    ("scores", "want"),
    [
        (
            [({"placement1": 50, "placement2": 75}, 1), ({"placement1": 25, "placement2": 10}, 2)],
            "node1",
        ),
        (
            [({"placement1": 75, "placement2": 50}, 1), ({"placement1": 10, "placement2": 25}, 2)],
            "node2",
        ),
    ],
    ids=["respects higher score of placement1", "respects higher score of placement2"],
)
def test_placement_scores_are_weighted_across_plugins(scores, want):
    generator = FakePlacementPlugin(name="FakeGeneratorPlugin", placements=TWO_PLACEMENTS)
    scorers = [
        (FakePlacementPlugin(name=f"FakeScorePlugin{i}", scores=s), weight)
        for i, (s, weight) in enumerate(scores)
    ]
    placed, group = outcome(simulate(generator, scorers))
    assert (placed, group) == (want, SCHEDULED)


# -- the default profile with the gate ---------------------------------------------------------

DEFAULT_CONFIG = "apiVersion: kubescheduler.config.k8s.io/v1\nkind: KubeSchedulerConfiguration\n"
ZONE = "topology.kubernetes.io/zone"


def zoned_node(name: str, zone: str) -> dict:
    manifest = node(name)
    manifest["metadata"]["labels"] = {ZONE: zone}
    return manifest


def cpu_pod(name: str, cpu: str, **spec) -> dict:
    container = {"name": "c", "image": "pause", "resources": {"requests": {"cpu": cpu}}}
    return {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {"name": name, "namespace": "default"},
        "spec": {"containers": [container], **spec},
    }


@pytest.mark.parametrize("busy_node", ["w0", "w2"])
def test_with_room_in_every_zone_the_default_profile_packs_the_busier_one(busy_node):
    """Both zones hold the gang, so PodGroupPodsCount scores them alike; NodeResourcesFit's
    placement score (MostAllocated) prefers the zone already running a pod."""
    gates = FeatureGates(
        {"GenericWorkload": True, "GangScheduling": True, "TopologyAwareWorkloadScheduling": True}
    )
    group = {
        "apiVersion": "scheduling.k8s.io/v1alpha2",
        "kind": "PodGroup",
        "metadata": {"name": "g", "namespace": "default"},
        "spec": {
            "schedulingPolicy": {"gang": {"minCount": 2}},
            "schedulingConstraints": {"topology": [{"key": ZONE}]},
        },
    }
    members = [cpu_pod(f"g-{i}", "1", schedulingGroup={"podGroupName": "g"}) for i in range(2)]
    objects = [
        zoned_node("w0", "zone-a"),
        zoned_node("w1", "zone-a"),
        zoned_node("w2", "zone-b"),
        zoned_node("w3", "zone-b"),
        cpu_pod("busy", "1", nodeName=busy_node),
        group,
        *members,
    ]
    simulation = Simulation(DEFAULT_CONFIG, yaml.safe_dump_all(objects), features=gates)
    simulation.run()

    zone_of = {"w0": "zone-a", "w1": "zone-a", "w2": "zone-b", "w3": "zone-b"}
    placed = {p.name: p.spec.node_name for p in simulation.cluster.list("Pod")}
    assert {zone_of[placed[f"g-{i}"]] for i in range(2)} == {zone_of[busy_node]}


class CopyingPlacementPlugin(FakePlacementPlugin):
    """Proposes copies of the nodes it was given, not the snapshot's own."""

    def generate_placements(self, state, pod_group, parent_placement):
        copies = [info.clone() for info in parent_placement.nodes[:1]]
        return GeneratePlacementsResult([Placement("copy", copies)]), None


def test_a_placement_of_copied_nodes_fails_the_group_with_an_error():
    plugin = CopyingPlacementPlugin()
    message = (
        "failed to assume pod group placement: "
        "node node1 in placement is not the same instance as in the snapshot"
    )
    assert outcome(simulate(plugin, [(plugin, 1)])) == (
        message,
        ("False", "SchedulerError", message),
    )
