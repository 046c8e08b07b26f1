"""The node lifecycle controller's unschedulable taint, applied as Nodes are written."""

from __future__ import annotations

import copy

import pytest

from playground.workspaces.node_lifecycle import reconcile_unschedulable_taint

UNSCHEDULABLE = {"key": "node.kubernetes.io/unschedulable", "effect": "NoSchedule"}
GPU = {"key": "nvidia.com/gpu", "value": "present", "effect": "NoSchedule"}


@pytest.mark.parametrize(
    ("spec", "expected"),
    [
        ({"unschedulable": True}, {"unschedulable": True, "taints": [UNSCHEDULABLE]}),
        (
            {"unschedulable": True, "taints": [GPU]},
            {"unschedulable": True, "taints": [GPU, UNSCHEDULABLE]},
        ),
        ({"taints": [UNSCHEDULABLE]}, {}),
        (
            {"unschedulable": False, "taints": [GPU, UNSCHEDULABLE]},
            {"unschedulable": False, "taints": [GPU]},
        ),
        (
            {"unschedulable": True, "taints": [{**UNSCHEDULABLE, "value": "kept"}]},
            {"unschedulable": True, "taints": [{**UNSCHEDULABLE, "value": "kept"}]},
        ),
        (
            {"taints": [{**UNSCHEDULABLE, "effect": "NoExecute"}]},
            {"taints": [{**UNSCHEDULABLE, "effect": "NoExecute"}]},
        ),
        ({"taints": [GPU]}, {"taints": [GPU]}),
    ],
    ids=[
        "a cordoned node gets the taint",
        "after its other taints",
        "an uncordoned node loses it",
        "and keeps its other taints",
        "a taint matched by key and effect is kept as it is",
        "a taint of another effect is not the controller's",
        "a schedulable node without it is left alone",
    ],
)
def test_the_taint_follows_spec_unschedulable(spec, expected):
    manifest = {"kind": "Node", "metadata": {"name": "n1"}, "spec": copy.deepcopy(spec)}
    reconcile_unschedulable_taint(manifest)
    assert manifest["spec"] == expected


@pytest.mark.django_db
def test_cordoning_and_uncordoning_a_stored_node_adds_and_removes_the_taint(cluster):
    cluster.add(
        {
            "apiVersion": "v1",
            "kind": "Node",
            "metadata": {"name": "n1"},
            "spec": {"unschedulable": True},
        }
    )
    assert cluster.get("Node", "n1").to_dict()["spec"]["taints"] == [UNSCHEDULABLE]

    uncordoned = cluster.get("Node", "n1").to_dict()
    del uncordoned["spec"]["unschedulable"]
    cluster.update(uncordoned)

    assert "taints" not in cluster.get("Node", "n1").to_dict()["spec"]
