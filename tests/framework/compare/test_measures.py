"""The report's measures on a cluster small enough to count by hand: utilization, the largest
free block, skew per workload, and the better-value marks."""

from __future__ import annotations

import json

from framework.compare.inputs import CompareInputs
from framework.compare.report import better
from framework.compare.variant import run_variant
from tests.framework.compare.scenarios import SPREADING, node, pod

ZONE = "topology.kubernetes.io/zone"


def owned(manifest: dict, replica_set: str) -> dict:
    manifest["metadata"]["ownerReferences"] = [
        {"apiVersion": "apps/v1", "kind": "ReplicaSet", "name": replica_set, "uid": "u1",
         "controller": True}
    ]  # fmt: skip
    return manifest


def measures_of(*objects: dict) -> dict:
    text = "\n---\n".join(json.dumps(o) for o in objects)
    return run_variant(SPREADING, CompareInputs(text)).measures


# n1 and n2 in zone a, n3 in zone b, 2 CPUs each; bound: two of rs-1 on n1 (the app label of
# a pod with a controller does not count), one of rs-1 on n2, an app=cache pod on n2 and a
# pod of no workload on n2; nothing on n3.
CLUSTER = (
    node("n1", **{ZONE: "a"}),
    node("n2", **{ZONE: "a"}),
    node("n3", **{ZONE: "b"}),
    owned(pod("r1", cpu="1", node_name="n1"), "rs-1"),
    owned(pod("r2", cpu="500m", node_name="n1", app="other"), "rs-1"),
    owned(pod("r3", cpu="500m", node_name="n2"), "rs-1"),
    pod("c1", cpu="200m", node_name="n2", app="cache"),
    {**pod("loose", cpu="100m", node_name="n2"), "metadata": {"name": "loose"}},
)


def test_utilization_is_requested_over_allocatable_per_node():
    utilization = measures_of(*CLUSTER)["utilization"]
    assert utilization["nodes"] == {
        "n1": {"cpu": 0.75, "memory": 0.0},
        "n2": {"cpu": 0.4, "memory": 0.0},
        "n3": {"cpu": 0.0, "memory": 0.0},
    }
    assert utilization["cpu"] == {"mean": 0.3833, "p50": 0.4, "p90": 0.75, "max": 0.75}
    assert (utilization["emptyNodes"], utilization["nodesAbove90"]) == (1, 0)
    assert (
        utilization["largestFree"]["cpu"] == "2" and utilization["largestFree"]["cpuMillis"] == 2000
    )
    assert utilization["histogram"]["cpu"] == [1, 0, 0, 0, 1, 0, 0, 1, 0, 0]


def test_skew_groups_pods_by_controller_else_app_label_and_counts_empty_domains():
    skew = {
        (e["workload"], e["topologyKey"]): (e["skew"], e["counts"])
        for e in measures_of(*CLUSTER)["skew"]
    }
    assert skew == {
        ("default/ReplicaSet/rs-1", ZONE): (3, {"a": 3}),
        ("default/ReplicaSet/rs-1", "kubernetes.io/hostname"): (2, {"n1": 2, "n2": 1}),
        ("default/app=cache", ZONE): (1, {"a": 1}),
        ("default/app=cache", "kubernetes.io/hostname"): (1, {"n2": 1}),
    }


def test_a_shared_best_value_is_marked_for_nobody():
    variants = [
        {"name": "a", "pods": {"scheduled": 3}, "maxSkew": 1},
        {"name": "b", "pods": {"scheduled": 3}, "maxSkew": 2},
        {"name": "c", "pods": {"scheduled": 2}, "maxSkew": 1},
    ]
    assert better(variants) == {}
    variants[2]["maxSkew"] = 0
    assert better(variants) == {"maxSkew": "c"}
