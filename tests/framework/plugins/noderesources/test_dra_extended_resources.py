"""Scoring extended resources backed by DRA: upstream's TestFitScore and
TestNodeResourcesBalancedAllocation cases with ``draObjects``.

DeviceClass ``device-class-name`` maps ``extended.resource.dra.io/something``; a node without
that resource in its allocatable is scored on the devices its ResourceSlices offer.
"""

from __future__ import annotations

from typing import Any

import pytest

from framework.api.device_class import DeviceClass
from framework.api.resource_claim import ResourceClaim
from framework.api.resource_slice import ResourceSlice
from framework.config.types import (
    LEAST_ALLOCATED,
    NodeResourcesBalancedAllocationArgs,
    NodeResourcesFitArgs,
    ResourceSpec,
    ScoringStrategy,
)
from framework.interface.cycle_state import CycleState
from framework.plugins.feature import Features
from framework.plugins.noderesources.balanced_allocation import BalancedAllocation
from framework.plugins.noderesources.fit import Fit
from tests.framework.plugins.noderesources.builders import (
    make_node,
    req_pod,
    score_nodes,
    snapshot,
)
from tests.framework.storage.builders import FakeHandle

DRA_RESOURCE = "extended.resource.dra.io/something"
FEATURES = Features(enable_dra_extended_resource=True)
DEVICE_CLASS = DeviceClass.from_dict(
    {"metadata": {"name": "device-class-name"}, "spec": {"extendedResourceName": DRA_RESOURCE}}
)


def resource_slice(node: str, devices: int) -> ResourceSlice:
    return ResourceSlice.from_dict(
        {
            "metadata": {"name": f"{node}-test-driver"},
            "spec": {
                "driver": "test-driver",
                "nodeName": node,
                "pool": {"name": node, "resourceSliceCount": 1},
                "devices": [{"name": f"device-{i}"} for i in range(1, devices + 1)],
            },
        }
    )


def both_ways(plugin: Any, pod: Any, node_infos: list[Any], pre_score: bool) -> list[Any]:
    """Scores node by node, checked against the batch form."""
    scores = score_nodes(plugin, pod, node_infos, pre_score=pre_score)
    state = CycleState()
    if pre_score:
        plugin.pre_score(state, pod, node_infos)
    batch, status = plugin.score_nodes(state, pod, node_infos)
    assert status is None
    assert batch == [score for _, score in scores]
    return scores


@pytest.mark.parametrize(
    "pre_score",
    [True, False],
    ids=[
        "test case for ScoringStrategy LeastAllocated with Extended resources",
        "test case for ScoringStrategy LeastAllocated with Extended resources if PreScore is "
        "not called",
    ],
)
def test_fit_scores_dra_devices_like_allocatable(pre_score):
    objects = [DEVICE_CLASS, resource_slice("node1", 3), resource_slice("node2", 2)]
    strategy = ScoringStrategy(type=LEAST_ALLOCATED, resources=[ResourceSpec(DRA_RESOURCE, 1)])
    plugin = Fit(NodeResourcesFitArgs(scoring_strategy=strategy), FakeHandle(objects), FEATURES)
    pod = req_pod({DRA_RESOURCE: "1"})
    nodes = snapshot([], [make_node("node1"), make_node("node2")])
    # (3 - 1) * 100 / 3 and (2 - 1) * 100 / 2.
    assert both_ways(plugin, pod, nodes, pre_score) == [("node1", 66), ("node2", 50)]


def test_allocated_devices_count_as_used():
    """A claim holding one of node1's devices: (3 - 1 - 1) * 100 / 3."""
    taken = ResourceClaim.from_dict(
        {
            "kind": "ResourceClaim",
            "metadata": {"name": "taken", "namespace": "default"},
            "spec": {},
            "status": {
                "allocation": {
                    "devices": {
                        "results": [
                            {
                                "request": "r",
                                "driver": "test-driver",
                                "pool": "node1",
                                "device": "device-1",
                            }
                        ]
                    }
                }
            },
        }
    )
    objects = [DEVICE_CLASS, resource_slice("node1", 3), taken]
    strategy = ScoringStrategy(type=LEAST_ALLOCATED, resources=[ResourceSpec(DRA_RESOURCE, 1)])
    plugin = Fit(NodeResourcesFitArgs(scoring_strategy=strategy), FakeHandle(objects), FEATURES)
    nodes = snapshot([], [make_node("node1")])
    assert both_ways(plugin, req_pod({DRA_RESOURCE: "1"}), nodes, True) == [("node1", 33)]


@pytest.mark.parametrize(
    "pre_score",
    [True, False],
    ids=[
        "include DRA resource on a node for balanced resource allocation",
        "include DRA resource on a node for balanced resource allocation if PreScore not called",
    ],
)
def test_balanced_allocation_includes_dra_devices(pre_score):
    objects = [DEVICE_CLASS, resource_slice("node1", 8)]
    args = NodeResourcesBalancedAllocationArgs(
        resources=[ResourceSpec("cpu", 1), ResourceSpec("memory", 1), ResourceSpec(DRA_RESOURCE, 1)]
    )
    plugin = BalancedAllocation(args, FakeHandle(objects), FEATURES)
    capacity = {"cpu": "3500m", "memory": "40000"}
    nodes = [make_node("node1", capacity), make_node("node2", capacity)]
    existing = [
        req_pod({"cpu": "1000m"}, {"cpu": "2000m"}, node_name="node1"),
        req_pod(
            {"cpu": "1000m", "memory": "2000"},
            {"cpu": "2000m", "memory": "3000"},
            node_name="node2",
        ),
    ]
    pod = req_pod({DRA_RESOURCE: "1"})
    assert both_ways(plugin, pod, snapshot(existing, nodes), pre_score) == [
        ("node1", 76),
        ("node2", 75),
    ]


def test_balanced_allocation_does_not_sign_pods_with_dra_backed_resources():
    plugin = BalancedAllocation(
        NodeResourcesBalancedAllocationArgs(resources=[ResourceSpec("cpu", 1)]),
        FakeHandle([DEVICE_CLASS]),
        FEATURES,
    )
    assert plugin.sign_pod(req_pod({DRA_RESOURCE: "1"}))[0] is None
    assert plugin.sign_pod(req_pod({"cpu": "1"}))[0] is not None
