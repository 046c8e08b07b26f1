"""Sums kept by the snapshot between cycles equal the full walk over its nodes.

PodTopologySpread and InterPodAffinity count over every node through queries
(``framework.interface.node_sums``) that the snapshot keeps up to date as the cache and the
cycle change its NodeInfos. Random runs of pod and node changes, refreshes and pods assumed in
the snapshot alone check, after every step, each kept sum against ``sum_over_nodes`` (the walk
upstream does), key order included where it matters.
"""

from __future__ import annotations

import random
from typing import Any

import pytest

from framework.api.labels import selector_from_set
from framework.api.node import Node
from framework.api.pod import Pod
from framework.backend.cache.cache import Cache
from framework.backend.cache.snapshot import Snapshot
from framework.interface.node_info import NodeInfo, PodInfo
from framework.interface.node_sums import NodeSums, sum_over, sum_over_nodes
from framework.plugins.interpodaffinity.pair_counts import (
    AffinityCounts,
    AntiAffinityCounts,
    ExistingAntiAffinityCounts,
)
from framework.plugins.interpodaffinity.scoring import ExistingPodScores, PreScoreState
from framework.plugins.podtopologyspread.common import (
    NODE_INCLUSION_POLICY_HONOR,
    TopologySpreadConstraint,
)
from framework.plugins.podtopologyspread.domain_counts import MatchingPodsPerDomain, query_for

HOSTNAME = "kubernetes.io/hostname"
ZONE = "topology.kubernetes.io/zone"
ZONES = ["a", "b", "c", ""]


def node(name: str, rng: random.Random) -> Node:
    labels = {HOSTNAME: name}
    zone = rng.choice([*ZONES, None])
    if zone is not None:
        labels[ZONE] = zone
    if rng.random() < 0.3:
        labels["disk"] = "ssd"
    taints = (
        [{"key": "dedicated", "value": "x", "effect": "NoSchedule"}] if rng.random() < 0.2 else []
    )
    return Node.from_dict(
        {
            "kind": "Node",
            "metadata": {"name": name, "labels": labels},
            "spec": {"taints": taints},
            "status": {"allocatable": {"cpu": "8", "memory": "8Gi", "pods": "110"}},
        }
    )


def anti_affinity(key: str) -> dict[str, Any]:
    return {
        "podAntiAffinity": {
            "requiredDuringSchedulingIgnoredDuringExecution": [
                {"labelSelector": {"matchLabels": {"color": "green"}}, "topologyKey": key}
            ]
        }
    }


def affinity(rng: random.Random) -> dict[str, Any]:
    """One of: required anti-affinity, required affinity, preferred (anti-)affinity."""
    key = rng.choice([HOSTNAME, ZONE])
    term = {"labelSelector": {"matchLabels": {"color": rng.choice(["green", "blue"])}}}
    term["topologyKey"] = key
    kind = rng.choice(["podAntiAffinity", "podAffinity"])
    if rng.random() < 0.5:
        return anti_affinity(key)
    if rng.random() < 0.5:
        return {"podAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": [term]}}
    weighted = {"weight": rng.randint(1, 5), "podAffinityTerm": term}
    return {kind: {"preferredDuringSchedulingIgnoredDuringExecution": [weighted]}}


def pod(index: int, node_name: str, rng: random.Random) -> Pod:
    metadata: dict[str, Any] = {
        "name": f"p{index}",
        "namespace": rng.choice(["default", "default", "other"]),
        "uid": f"uid-{index}",
        "labels": {"color": rng.choice(["blue", "green", "red"])},
    }
    if rng.random() < 0.1:
        metadata["deletionTimestamp"] = "2024-01-01T00:00:00Z"
    spec: dict[str, Any] = {"nodeName": node_name, "containers": [{"name": "c", "image": "i"}]}
    if rng.random() < 0.4:
        spec["affinity"] = affinity(rng)
    if rng.random() < 0.2:
        claim = {"claimName": f"claim-{rng.randint(0, 3)}"}
        spec["volumes"] = [{"name": "v", "persistentVolumeClaim": claim}]
    return Pod.from_dict({"kind": "Pod", "metadata": metadata, "spec": spec})


def incoming(**spec: Any) -> Pod:
    return Pod.from_dict(
        {
            "kind": "Pod",
            "metadata": {"name": "in", "namespace": "default", "labels": {"color": "green"}},
            "spec": {"containers": [{"name": "c", "image": "i"}], **spec},
        }
    )


def queries() -> list[Any]:
    blue = selector_from_set({"color": "blue"})
    zone = TopologySpreadConstraint(max_skew=1, topology_key=ZONE, selector=blue)
    honoured = TopologySpreadConstraint(
        max_skew=1, topology_key=ZONE, selector=blue, node_taints_policy=NODE_INCLUSION_POLICY_HONOR
    )
    picky = incoming(nodeSelector={"disk": "ssd"})
    green = incoming(affinity=anti_affinity(HOSTNAME))
    terms = tuple(PodInfo(green).required_anti_affinity_terms)
    blue_zone = {"labelSelector": {"matchLabels": {"color": "blue"}}, "topologyKey": ZONE}
    green_host = {"labelSelector": {"matchLabels": {"color": "green"}}, "topologyKey": HOSTNAME}
    preferring = incoming(
        affinity={
            "podAffinity": {
                "preferredDuringSchedulingIgnoredDuringExecution": [
                    {"weight": 3, "podAffinityTerm": blue_zone}
                ]
            },
            "podAntiAffinity": {
                "preferredDuringSchedulingIgnoredDuringExecution": [
                    {"weight": 2, "podAffinityTerm": green_host}
                ]
            },
        }
    )
    return [
        MatchingPodsPerDomain("default", blue, ZONE, (ZONE,)),
        MatchingPodsPerDomain("default", blue, HOSTNAME, (HOSTNAME, ZONE)),
        MatchingPodsPerDomain("default", blue, ZONE, ()),
        query_for(picky, zone, (ZONE,), with_policies=False, comparison_operators=False),
        query_for(picky, honoured, (ZONE,), with_policies=True, comparison_operators=False),
        ExistingAntiAffinityCounts.of(green, {}),
        AffinityCounts(terms),
        AntiAffinityCounts(terms),
        ExistingPodScores.of(PreScoreState(green, [], [], {}), 1, has_constraints=False),
        ExistingPodScores.of(PreScoreState(green, [], [], {}), 0, has_constraints=False),
        ExistingPodScores.of(
            PreScoreState(
                preferring,
                PodInfo(preferring).preferred_affinity_terms,
                PodInfo(preferring).preferred_anti_affinity_terms,
                {},
            ),
            1,
            has_constraints=True,
        ),
    ]


class Run:
    """A cache, the snapshot it refreshes, and random changes to both."""

    def __init__(self, seed: int) -> None:
        self.rng = random.Random(seed)
        self.cache = Cache()
        self.snapshot = Snapshot()
        self.nodes: dict[str, Node] = {}
        self.pods: dict[str, Pod] = {}
        self.assumed: list[Pod] = []
        self.count = 0
        for _ in range(8):
            self.add_node()
        self.refresh()

    def add_node(self) -> None:
        name = f"n{self.count}"
        self.count += 1
        self.nodes[name] = node(name, self.rng)
        self.cache.add_node(self.nodes[name])

    def step(self) -> None:
        rng = self.rng
        action = rng.random()
        if action < 0.4 and self.nodes:
            self.count += 1
            new = pod(self.count, rng.choice(sorted(self.nodes)), rng)
            self.pods[new.uid] = new
            self.cache.add_pod(new)
        elif action < 0.55 and self.pods:
            gone = self.pods.pop(rng.choice(sorted(self.pods)))
            self.cache.remove_pod(gone)
        elif action < 0.62 and self.nodes:
            name = rng.choice(sorted(self.nodes))
            updated = node(name, rng)
            self.cache.update_node(self.nodes[name], updated)
            self.nodes[name] = updated
        elif action < 0.66:
            self.add_node()
        elif action < 0.69 and len(self.nodes) > 2:
            name = rng.choice(sorted(self.nodes))
            for uid in [uid for uid, p in self.pods.items() if p.spec.node_name == name]:
                self.cache.remove_pod(self.pods.pop(uid))
            self.cache.remove_node(self.nodes.pop(name))
        elif action < 0.8 and self.snapshot.node_info_list:
            self.count += 1
            name = rng.choice(self.snapshot.node_info_list).node_name
            assumed = pod(self.count, name, rng)
            self.snapshot.assume_pod(PodInfo(assumed))
            self.assumed.append(assumed)
        elif action < 0.88 and self.assumed:
            self.snapshot.forget_pod(self.assumed.pop(rng.randrange(len(self.assumed))))
        else:
            self.refresh()

    def refresh(self) -> None:
        for assumed in self.assumed:
            self.snapshot.forget_pod(assumed)
        self.assumed.clear()
        self.cache.update_snapshot(self.snapshot)


def lists(snapshot: Snapshot) -> list[list[NodeInfo]]:
    return [
        snapshot.node_info_list,
        snapshot.have_pods_with_affinity_node_info_list,
        snapshot.have_pods_with_required_anti_affinity_node_info_list,
    ]


def assert_kept_sums_equal_the_walk(snapshot: Snapshot, query: Any) -> None:
    for nodes in lists(snapshot):
        want = sum_over_nodes(query, nodes)
        got = sum_over(query, snapshot, nodes)
        if query.ordered:
            assert list(got.items()) == list(want.items())
        else:
            assert dict(got) == want


@pytest.mark.parametrize("seed", range(12))
def test_refreshes_move_nodes_between_the_affinity_lists_as_a_rebuild_would(seed):
    run = Run(seed)
    for _ in range(150):
        run.step()
        if not run.assumed:  # the lists do not follow pods assumed in the snapshot alone
            snapshot = run.snapshot
            nodes = snapshot.node_info_list
            with_affinity = [n for n in nodes if n.pods_with_affinity]
            with_anti_affinity = [n for n in nodes if n.pods_with_required_anti_affinity]
            assert snapshot.have_pods_with_affinity_node_info_list == with_affinity
            assert (
                snapshot.have_pods_with_required_anti_affinity_node_info_list == with_anti_affinity
            )
            pvcs = {key for n in nodes for key in n.pvc_ref_counts}
            assert snapshot.used_pvc_set == pvcs


@pytest.mark.parametrize("seed", range(12))
def test_kept_sums_equal_the_full_walk_after_every_change(seed):
    run = Run(seed)
    all_queries = queries()
    for _ in range(150):
        run.step()
        for query in all_queries:
            assert_kept_sums_equal_the_walk(run.snapshot, query)


def test_kept_sums_catch_up_after_the_change_log_was_cut(monkeypatch):
    monkeypatch.setattr(NodeSums, "MAX_LOG", 4)
    monkeypatch.setattr(NodeSums, "MAX_SUMS", 2)
    run = Run(99)
    all_queries = queries()
    for step in range(300):
        run.step()
        # Ask only now and then, so that sums fall behind the log and out of the memo.
        if step % 7 == 0:
            for query in all_queries:
                assert_kept_sums_equal_the_walk(run.snapshot, query)


def test_a_sum_over_a_list_the_snapshot_does_not_hold_is_walked():
    run = Run(3)
    nodes = list(run.snapshot.node_info_list)
    query = queries()[0]
    assert run.snapshot.kept_node_sum(query, nodes) is None
    assert sum_over(query, run.snapshot, nodes) == sum_over_nodes(query, nodes)
