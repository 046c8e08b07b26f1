"""Batch forms: every in-tree ``filter_nodes``, ``score_nodes`` and ``normalize_score_values``
gives, node for node, what the per-node form gives.

The nodes and pods are chosen to reach every branch of the batch forms: full nodes, cordoned
and tainted nodes, images, a scalar resource, a node without memory, and pods that request
nothing, name a node, tolerate taints or ask for the scalar.
"""

from __future__ import annotations

from typing import Any

import pytest

from framework.api.node import Node
from framework.backend.cache.snapshot import new_snapshot
from framework.config.corev1 import (
    NodeAffinity,
    NodeSelector,
    NodeSelectorRequirement,
    NodeSelectorTerm,
)
from framework.config.defaults import default_configuration
from framework.config.types import (
    MOST_ALLOCATED,
    REQUESTED_TO_CAPACITY_RATIO,
    RequestedToCapacityRatioParam,
    ResourceSpec,
    UtilizationShapePoint,
)
from framework.interface.cycle_state import CycleState
from framework.interface.plugins import BatchFilterPlugin, BatchScoreExtensions, BatchScorePlugin
from framework.interface.types import NodeScore
from framework.plugins.registry import in_tree_registry
from framework.runtime.framework import Framework
from tests.framework.builders import make_pod

GPU = "example.com/gpu"
ZONE = "topology.kubernetes.io/zone"
PAUSE = "registry.k8s.io/pause:3.10"


def node(
    name: str,
    *,
    cpu: str = "4",
    memory: str = "8Gi",
    pods: str = "110",
    gpu: str | None = None,
    taints: list[dict[str, str]] | None = None,
    unschedulable: bool = False,
    images: list[dict[str, Any]] | None = None,
    zone: str | None = None,
) -> Node:
    allocatable = {"cpu": cpu, "memory": memory, "pods": pods}
    if gpu is not None:
        allocatable[GPU] = gpu
    labels = {"kubernetes.io/hostname": name}
    if zone is not None:
        labels[ZONE] = zone
    return Node.from_dict(
        {
            "kind": "Node",
            "metadata": {"name": name, "labels": labels},
            "spec": {"taints": taints or [], "unschedulable": unschedulable},
            "status": {"allocatable": allocatable, "images": images or []},
        }
    )


NODES = [
    node("empty", zone="a"),
    node("busy", cpu="2", memory="2Gi", zone="b"),
    node("one-slot", pods="1"),
    node("cordoned", unschedulable=True),
    node("no-schedule", taints=[{"key": "k", "value": "v", "effect": "NoSchedule"}]),
    node("prefer-not", taints=[{"key": "k", "value": "v", "effect": "PreferNoSchedule"}]),
    node("cached", images=[{"names": [PAUSE], "sizeBytes": 300 * 1024 * 1024}], zone="a"),
    node("gpu", gpu="2"),
    node("no-memory", memory="0"),
]


def pod_affinity(kind: str, labels: dict[str, str], topology_key: str) -> dict[str, Any]:
    term = {"labelSelector": {"matchLabels": labels}, "topologyKey": topology_key}
    return {kind: {"requiredDuringSchedulingIgnoredDuringExecution": [term]}}


RUNNING = [
    make_pod("r1", node_name="busy", cpu="1500m", memory="1Gi", labels={"app": "db"}),
    make_pod("r2", node_name="one-slot", cpu="100m", labels={"app": "web"}),
    make_pod("r3", node_name="gpu", cpu="1"),
    make_pod(
        "r4",
        node_name="cached",
        labels={"app": "web"},
        affinity=pod_affinity("podAntiAffinity", {"color": "red"}, "kubernetes.io/hostname"),
    ),
]
TOLERATE_ALL = [{"operator": "Exists"}]


def pod_with_gpu() -> Any:
    pod = make_pod("gpu-user", cpu="500m", memory="1Gi")
    container = pod.spec.containers[0]
    container.resources.requests[GPU] = type(container.resources.requests["cpu"]).parse("1")
    return pod


PODS = {
    "a small pod": make_pod("small", cpu="100m", memory="500Mi"),
    "a pod too big for the busy node": make_pod("big", cpu="3", memory="4Gi"),
    "a pod that requests nothing": make_pod("best-effort"),
    "a pod that names a node": make_pod("named", cpu="100m", nodeName="gpu"),
    "a pod that tolerates every taint": make_pod("tolerant", cpu="1", tolerations=TOLERATE_ALL),
    "a pod that asks for the scalar resource": pod_with_gpu(),
    "a pod that needs zone a": make_pod(
        "zone-a",
        cpu="100m",
        affinity={
            "nodeAffinity": {
                "requiredDuringSchedulingIgnoredDuringExecution": {
                    "nodeSelectorTerms": [
                        {"matchExpressions": [{"key": ZONE, "operator": "In", "values": ["a"]}]}
                    ]
                }
            }
        },
    ),
    "a pod with a node selector": make_pod("selector", nodeSelector={ZONE: "b"}),
    "a pod that keeps away from web pods": make_pod(
        "lonely",
        labels={"app": "web"},
        affinity=pod_affinity("podAntiAffinity", {"app": "web"}, "kubernetes.io/hostname"),
    ),
    "a pod that wants a db pod in its zone": make_pod(
        "near-db", affinity=pod_affinity("podAffinity", {"app": "db"}, ZONE)
    ),
    "a pod that a running pod keeps away": make_pod("red", labels={"color": "red"}),
    "a pod that spreads over zones": make_pod(
        "spread",
        labels={"app": "web"},
        topologySpreadConstraints=[
            {
                "maxSkew": 1,
                "topologyKey": ZONE,
                "whenUnsatisfiable": "DoNotSchedule",
                "labelSelector": {"matchLabels": {"app": "web"}},
            }
        ],
    ),
    "a pod whose image some node has": make_pod(
        "cached-image", cpu="100m", containers=[{"name": "c", "image": PAUSE}]
    ),
}


def default_framework(node_infos: list[Any]) -> Framework:
    return build_framework(default_configuration().profiles[0], node_infos)


def build_framework(profile: Any, node_infos: list[Any], nodes: list[Node] = NODES) -> Framework:
    snapshot = new_snapshot(RUNNING, nodes)
    framework = Framework(in_tree_registry(), profile, snapshot_shared_lister=snapshot)
    node_infos[:] = snapshot.list()
    return framework


def args_of(profile: Any, name: str) -> Any:
    return next(c.args for c in profile.plugin_config if c.name == name)


def most_allocated(profile: Any) -> None:
    args_of(profile, "NodeResourcesFit").scoring_strategy.type = MOST_ALLOCATED


def requested_to_capacity_ratio(profile: Any) -> None:
    strategy = args_of(profile, "NodeResourcesFit").scoring_strategy
    strategy.type = REQUESTED_TO_CAPACITY_RATIO
    strategy.requested_to_capacity_ratio = RequestedToCapacityRatioParam(
        shape=[UtilizationShapePoint(0, 0), UtilizationShapePoint(100, 10)]
    )


def three_resources(profile: Any) -> None:
    weighted = [ResourceSpec("cpu", 1), ResourceSpec("memory", 2), ResourceSpec(GPU, 3)]
    args_of(profile, "NodeResourcesFit").scoring_strategy.resources = weighted
    args_of(profile, "NodeResourcesBalancedAllocation").resources = [
        ResourceSpec(spec.name, 1) for spec in weighted
    ]


def added_affinity(profile: Any) -> None:
    args_of(profile, "NodeAffinity").added_affinity = NodeAffinity(
        required_during_scheduling_ignored_during_execution=NodeSelector(
            node_selector_terms=[
                NodeSelectorTerm(
                    match_expressions=[
                        NodeSelectorRequirement(key=ZONE, operator="In", values=["a", "b"])
                    ]
                )
            ]
        )
    )


PROFILES = {
    "the default profile": lambda profile: None,
    "an added node affinity": added_affinity,
    "MostAllocated": most_allocated,
    "RequestedToCapacityRatio": requested_to_capacity_ratio,
    "three weighted resources with a scalar": three_resources,
}


def statuses(results: list[Any]) -> list[Any]:
    return [None if s is None else (s.code, s.all_reasons()) for s in results]


NODE_SETS = {
    "every node": NODES,
    # Some batch forms only take the usual shape, where every node has every resource.
    "nodes that all have CPU and memory": [n for n in NODES if n.name != "no-memory"],
}


def framework_for(profile_name: str, node_infos: list[Any], nodes: str) -> Framework:
    profile = default_configuration().profiles[0]
    PROFILES[profile_name](profile)
    return build_framework(profile, node_infos, NODE_SETS[nodes])


@pytest.mark.parametrize("nodes", list(NODE_SETS), ids=list(NODE_SETS))
@pytest.mark.parametrize("pod_name", list(PODS), ids=list(PODS))
@pytest.mark.parametrize("profile_name", list(PROFILES), ids=list(PROFILES))
def test_batch_filters_judge_every_node_as_filter_does(
    profile_name: str, pod_name: str, nodes: str
) -> None:
    node_infos: list[Any] = []
    framework = framework_for(profile_name, node_infos, nodes)
    pod = PODS[pod_name]
    state = CycleState()
    framework.run_pre_filter_plugins(state, pod)
    batch_plugins = [p for p in framework.filter_plugins if isinstance(p, BatchFilterPlugin)]
    assert batch_plugins
    for plugin in batch_plugins:
        want = [plugin.filter(state, pod, n) for n in node_infos]
        assert statuses(plugin.filter_nodes(state, pod, node_infos)) == statuses(want), plugin.name


@pytest.mark.parametrize("nodes", list(NODE_SETS), ids=list(NODE_SETS))
@pytest.mark.parametrize("pod_name", list(PODS), ids=list(PODS))
@pytest.mark.parametrize("profile_name", list(PROFILES), ids=list(PROFILES))
def test_batch_scores_equal_the_scores_node_by_node(
    profile_name: str, pod_name: str, nodes: str
) -> None:
    node_infos: list[Any] = []
    framework = framework_for(profile_name, node_infos, nodes)
    pod = PODS[pod_name]
    state = CycleState()
    framework.run_pre_filter_plugins(state, pod)
    framework.run_pre_score_plugins(state, pod, node_infos)
    batch_plugins = [p for p in framework.score_plugins if isinstance(p, BatchScorePlugin)]
    assert batch_plugins
    for plugin in batch_plugins:
        per_node = [plugin.score(state, pod, n) for n in node_infos]
        scores, status = plugin.score_nodes(state, pod, node_infos)
        assert status is None, plugin.name
        assert scores == [score for score, _ in per_node], plugin.name


@pytest.mark.parametrize("pod_name", list(PODS), ids=list(PODS))
def test_batch_forms_fail_as_the_per_node_forms_without_their_cycle_state(pod_name: str) -> None:
    node_infos: list[Any] = []
    framework = default_framework(node_infos)
    pod = PODS[pod_name]
    state = CycleState()
    for plugin in framework.filter_plugins:
        if isinstance(plugin, BatchFilterPlugin):
            want = [plugin.filter(state, pod, n) for n in node_infos]
            assert statuses(plugin.filter_nodes(state, pod, node_infos)) == statuses(want)
    for plugin in framework.score_plugins:
        if isinstance(plugin, BatchScorePlugin):
            per_node = [plugin.score(state, pod, n) for n in node_infos]
            first_failure = next((s for _, s in per_node if s is not None), None)
            scores, status = plugin.score_nodes(state, pod, node_infos)
            if first_failure is None:
                assert (scores, status) == ([s for s, _ in per_node], None), plugin.name
            else:
                assert statuses([status]) == statuses([first_failure]), plugin.name


@pytest.mark.parametrize(
    "raw",
    [[0, 0, 0], [0, 3, 1], [5, 5, 5], [2, 0, 7, 7]],
    ids=["all zero", "mixed", "all equal", "ties at the top"],
)
def test_normalizing_plain_scores_equals_normalizing_node_scores(raw: list[int]) -> None:
    framework = default_framework([])
    pod = PODS["a small pod"]
    normalizers = [
        p.score_extensions()
        for p in framework.score_plugins
        if isinstance(p.score_extensions(), BatchScoreExtensions)
    ]
    assert normalizers
    for extensions in normalizers:
        node_scores = [NodeScore(f"n{i}", s) for i, s in enumerate(raw)]
        values = list(raw)
        assert extensions.normalize_score(CycleState(), pod, node_scores) is None
        assert extensions.normalize_score_values(CycleState(), pod, values) is None
        assert values == [s.score for s in node_scores]
