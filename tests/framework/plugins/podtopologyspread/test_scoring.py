"""PreScore, Score and NormalizeScore: the state PreScore builds and the final scores.

Ported from upstream's TestPreScoreSkip, TestPreScoreStateEmptyNodes and
TestPodTopologySpreadScore (podtopologyspread/scoring_test.go).
"""

from __future__ import annotations

import math
from typing import Any

import pytest

from framework.api.apps import ReplicaSet
from framework.api.core import Service
from framework.api.meta import ObjectMeta
from framework.config.types import SYSTEM_DEFAULTING
from framework.interface.cycle_state import CycleState
from framework.interface.node_info import NodeInfo
from framework.interface.status import Code, Status
from framework.interface.types import NodeScore
from framework.plugins.podtopologyspread.scoring import (
    get_pre_score_state,
    go_log,
    go_round,
    topology_normalizing_weight,
)
from tests.framework.plugins.podtopologyspread.helpers import (
    BAR_SELECTOR,
    FOO_SELECTOR,
    HONOR,
    IGNORE,
    SCHEDULE_ANYWAY,
    UNSCHEDULABLE_TAINTS,
    constraint,
    default_constraint,
    new_plugin,
    node,
    pod_on,
)
from tests.framework.plugins.wrappers import make_label_selector, make_pod

HOSTNAME = "kubernetes.io/hostname"
ZONE = "topology.kubernetes.io/zone"
FOO = {"foo": ""}
BAR = {"bar": ""}
FOO_BAR = {"foo": "", "bar": ""}


def replica_set(name: str, selector: dict[str, Any]) -> ReplicaSet:
    return ReplicaSet.from_dict(
        {
            "apiVersion": "apps/v1",
            "kind": "ReplicaSet",
            "metadata": {"name": name, "namespace": "default"},
            "spec": {"selector": selector},
        }
    )


def pod(*constraints: tuple[Any, ...], labels: dict[str, str] | None = None, **kw: Any) -> Any:
    wrapper = make_pod().name("p").labels(FOO if labels is None else labels)
    if "owner" in kw:
        wrapper.owner_reference(kw["owner"], "apps/v1", "ReplicaSet")
    if "node_selector" in kw:
        wrapper.node_selector(kw["node_selector"])
    if "node_affinity_in" in kw:
        wrapper.node_affinity_in(*kw["node_affinity_in"])
    for args in constraints:
        wrapper.spread_constraint(*args)
    return wrapper.obj()


def soft(key: str, selector: Any = FOO_SELECTOR, max_skew: int = 1, *rest: Any) -> tuple:
    return (max_skew, key, SCHEDULE_ANYWAY, selector, *rest)


def host(name: str, extra: dict[str, str] | None = None, taints: Any = None) -> Any:
    return node(name, {HOSTNAME: name, **(extra or {})}, taints)


def zone_host(name: str, zone: str) -> Any:
    return host(name, {"zone": zone})


def bare_node_infos(nodes: list[Any]) -> list[NodeInfo]:
    """Upstream hands PreScore NodeInfos built from the nodes alone (no pods)."""
    result = []
    for n in nodes:
        node_info = NodeInfo()
        node_info.set_node(n)
        result.append(node_info)
    return result


# ---------------------------------------------------------------------------------------------
# PreScore Skip


@pytest.mark.parametrize(
    ("pod", "nodes", "objects", "defaults"),
    [
        pytest.param(
            make_pod().name("p").obj(),
            [host("node-a"), host("node-b")],
            [],
            [],
            id="a pod without soft constraints is skipped",
        ),
        pytest.param(
            pod(labels={"foo": "bar", "baz": "sup"}, owner="rs2"),
            [node("node-a", {"planet": "mars"})],
            [replica_set("rs1", make_label_selector().exists("tar").obj())],
            [default_constraint(2, "planet", SCHEDULE_ANYWAY)],
            id="default constraints are skipped when the owning replica set is missing",
        ),
    ],
)
def test_pre_score_skips_pods_without_soft_constraints(
    pod: Any, nodes: list[Any], objects: list[Any], defaults: list[Any]
) -> None:
    plugin = new_plugin([], nodes, objects, default_constraints=defaults)

    status = plugin.pre_score(CycleState(), pod, bare_node_infos(nodes))

    assert status == Status(Code.SKIP)


def test_pre_score_skips_when_the_cluster_has_no_nodes() -> None:
    plugin = new_plugin()

    status = plugin.pre_score(CycleState(), pod(soft("zone")), [])

    assert status == Status(Code.SKIP)


# ---------------------------------------------------------------------------------------------
# PreScore state

THREE_ZONE_HOSTS = [
    zone_host("node-a", "zone1"),
    zone_host("node-b", "zone1"),
    zone_host("node-x", "zone2"),
]
POLICY_NODES = [
    host("node-a", {"zone": "zone1", "foo": ""}),
    host("node-b", {"zone": "zone1", "foo": ""}),
    host("node-x", {"zone": "zone2"}),
]
TAINT_NODES = [*POLICY_NODES[:2], host("node-x", {"zone": "zone2"}, UNSCHEDULABLE_TAINTS)]
ZONES_1_2 = {"zone1": 0, "zone2": 0}

PRE_SCORE_STATES = [
    pytest.param(
        dict(
            pod=pod(soft("zone"), soft(HOSTNAME)),
            nodes=THREE_ZONE_HOSTS,
            constraints=[
                constraint(1, "zone", FOO_SELECTOR),
                constraint(1, HOSTNAME, FOO_SELECTOR),
            ],
            ignored=set(),
            counts=[ZONES_1_2, {}],
            weights=[2, 3],
        ),
        id="zone domains are prepared and hostname is weighted by node count",
    ),
    pytest.param(
        dict(
            pod=pod(soft("zone", None)),
            nodes=THREE_ZONE_HOSTS,
            constraints=[constraint(1, "zone", None)],
            ignored=set(),
            counts=[ZONES_1_2],
            weights=[2],
        ),
        id="a null selector still prepares the domains",
    ),
    pytest.param(
        dict(
            pod=pod(soft("zone"), soft(HOSTNAME, BAR_SELECTOR)),
            nodes=[zone_host("node-a", "zone1"), zone_host("node-b", "zone1"), host("node-x")],
            constraints=[
                constraint(1, "zone", FOO_SELECTOR),
                constraint(1, HOSTNAME, BAR_SELECTOR),
            ],
            ignored={"node-x"},
            counts=[{"zone1": 0}, {}],
            weights=[1, 2],
        ),
        id="a node without the zone label is ignored",
    ),
    pytest.param(
        dict(
            pod=pod(labels={"foo": "tar", "baz": "sup"}, owner="rs1"),
            system_defaulting=True,
            nodes=[
                host("node-a", {ZONE: "mars"}),
                host("node-b", {ZONE: "mars"}),
                host("node-c"),
                host("node-d"),
            ],
            objects=[replica_set("rs1", FOO_SELECTOR)],
            constraints=[constraint(3, HOSTNAME, FOO_SELECTOR), constraint(5, ZONE, FOO_SELECTOR)],
            ignored=set(),
            counts=[{}, {"mars": 0, "": 0}],
            weights=[4, 2],
        ),
        id="system defaults count nodes without a zone as one more zone",
    ),
    pytest.param(
        dict(
            pod=pod(labels={"foo": "tar", "baz": "sup"}, owner="rs1"),
            defaults=[
                default_constraint(1, HOSTNAME, SCHEDULE_ANYWAY),
                default_constraint(2, "rack", "DoNotSchedule"),
                default_constraint(2, "planet", SCHEDULE_ANYWAY),
            ],
            nodes=[host("node-a", {"rack": "rack1", "planet": "mars"})],
            objects=[replica_set("rs1", FOO_SELECTOR)],
            constraints=[
                constraint(1, HOSTNAME, FOO_SELECTOR),
                constraint(2, "planet", FOO_SELECTOR),
            ],
            ignored=set(),
            counts=[{}, {"mars": 0}],
            weights=[1, 1],
        ),
        id="listed default constraints select what the replica set selects",
    ),
    pytest.param(
        dict(
            pod=pod(
                (1, "zone", "DoNotSchedule", BAR_SELECTOR),
                soft("planet", make_label_selector().label("baz", "sup").obj(), 2),
                labels={"foo": "bar", "baz": "sup"},
                owner="rs1",
            ),
            defaults=[default_constraint(2, "galaxy", SCHEDULE_ANYWAY)],
            nodes=[node("node-a", {"planet": "mars", "galaxy": "andromeda"})],
            objects=[replica_set("rs1", FOO_SELECTOR)],
            constraints=[constraint(2, "planet", {"matchLabels": {"baz": "sup"}})],
            ignored=set(),
            counts=[{"mars": 0}],
            weights=[1],
        ),
        id="a pod's own constraints replace the defaults",
    ),
    pytest.param(
        dict(
            pod=pod(soft("zone", BAR_SELECTOR), node_selector=FOO),
            nodes=POLICY_NODES,
            node_inclusion_policy=True,
            constraints=[constraint(1, "zone", BAR_SELECTOR)],
            ignored=set(),
            counts=[ZONES_1_2],
            weights=[2],
        ),
        id="node affinity policy honor with a node selector",
    ),
    pytest.param(
        dict(
            pod=pod(soft("zone", BAR_SELECTOR, 1, None, IGNORE), node_selector=FOO),
            nodes=POLICY_NODES,
            node_inclusion_policy=True,
            constraints=[constraint(1, "zone", BAR_SELECTOR, affinity_policy=IGNORE)],
            ignored=set(),
            counts=[ZONES_1_2],
            weights=[2],
        ),
        id="node affinity policy ignore with a node selector",
    ),
    pytest.param(
        dict(
            pod=pod(soft("zone", BAR_SELECTOR), node_affinity_in=("foo", [""])),
            nodes=POLICY_NODES,
            node_inclusion_policy=True,
            constraints=[constraint(1, "zone", BAR_SELECTOR)],
            ignored=set(),
            counts=[ZONES_1_2],
            weights=[2],
        ),
        id="node affinity policy honor with node affinity",
    ),
    pytest.param(
        dict(
            pod=pod(soft("zone", BAR_SELECTOR, 1, None, IGNORE), node_affinity_in=("foo", [""])),
            nodes=POLICY_NODES,
            node_inclusion_policy=True,
            constraints=[constraint(1, "zone", BAR_SELECTOR, affinity_policy=IGNORE)],
            ignored=set(),
            counts=[ZONES_1_2],
            weights=[2],
        ),
        id="node affinity policy ignore with node affinity",
    ),
    pytest.param(
        dict(
            pod=pod(soft("zone", BAR_SELECTOR, 1, None, None, HONOR)),
            nodes=TAINT_NODES,
            node_inclusion_policy=True,
            constraints=[constraint(1, "zone", BAR_SELECTOR, taints_policy=HONOR)],
            ignored=set(),
            counts=[ZONES_1_2],
            weights=[2],
        ),
        id="node taints policy honor",
    ),
    pytest.param(
        dict(
            pod=pod(soft("zone", BAR_SELECTOR)),
            nodes=TAINT_NODES,
            node_inclusion_policy=True,
            constraints=[constraint(1, "zone", BAR_SELECTOR)],
            ignored=set(),
            counts=[ZONES_1_2],
            weights=[2],
        ),
        id="node taints policy ignore",
    ),
]


@pytest.mark.parametrize("case", PRE_SCORE_STATES)
def test_pre_score_builds_the_state_upstream_builds(case: dict[str, Any]) -> None:
    plugin = new_plugin(
        [],
        case["nodes"],
        case.get("objects", ()),
        default_constraints=case.get("defaults", ()),
        defaulting_type=SYSTEM_DEFAULTING if case.get("system_defaulting") else "List",
        enable_node_inclusion_policy_in_pod_topology_spread=case.get(
            "node_inclusion_policy", False
        ),
    )
    state = CycleState()

    assert plugin.pre_score(state, case["pod"], bare_node_infos(case["nodes"])) is None

    got = get_pre_score_state(state)
    assert got.constraints == case["constraints"]
    assert got.ignored_nodes == case["ignored"]
    assert got.topology_value_to_pod_counts == case["counts"]
    assert got.topology_normalizing_weight == [
        topology_normalizing_weight(size) for size in case["weights"]
    ]


# ---------------------------------------------------------------------------------------------
# Scores


def pods_on(
    node_name: str, count: int, labels: dict[str, str] = FOO, prefix: str = ""
) -> list[Any]:
    letter = prefix or node_name[-1]
    return [pod_on(f"p-{letter}{i}", node_name, labels) for i in range(1, count + 1)]


SPREAD_2_1_0_3 = [*pods_on("node-a", 2), *pods_on("node-b", 1), *pods_on("node-d", 3)]
SPREAD_4_3_2_1 = [
    *pods_on("node-a", 4),
    *pods_on("node-b", 3),
    *pods_on("node-c", 2),
    *pods_on("node-d", 1),
]
SPREAD_4_2_1_3 = [
    *pods_on("node-a", 4),
    *pods_on("node-b", 2),
    *pods_on("node-x", 1),
    *pods_on("node-y", 3),
]
FOUR_HOSTS = [host(f"node-{n}") for n in "abcd"]
FOUR_ZONE_HOSTS = [
    zone_host("node-a", "zone1"),
    zone_host("node-b", "zone1"),
    zone_host("node-x", "zone2"),
    zone_host("node-y", "zone2"),
]
DIFFERENT_SELECTOR_PODS = [
    pod_on("p-a1", "node-a", FOO),
    pod_on("p-b1", "node-b", FOO_BAR),
    pod_on("p-y1", "node-y", FOO),
    pod_on("p-y2", "node-y", BAR),
]
THREE_NODE_LABELLED = [node(f"node-{n}", {"node": f"node-{n}"}) for n in "abc"]
POLICY_SCORE_NODES = [
    node("node-a", {"node": "node-a", "foo": ""}),
    node("node-b", {"node": "node-b", "foo": ""}),
    node("node-c", {"node": "node-c"}),
]
TAINT_SCORE_NODES = [
    node("node-a", {"node": "node-a"}),
    node("node-b", {"node": "node-b"}),
    node("node-c", {"node": "node-c"}, UNSCHEDULABLE_TAINTS),
]
POLICY_SCORE_PODS = [*pods_on("node-a", 2), *pods_on("node-b", 1), *pods_on("node-c", 1)]
MATCH_LABEL_KEY_NODES = [
    zone_host("node-a", "zone1"),
    zone_host("node-b", "zone1"),
    zone_host("node-c", "zone2"),
    zone_host("node-d", "zone2"),
]
MATCH_LABEL_KEY_PODS = [
    pod_on("p-a1", "node-a", FOO),
    pod_on("p-b1", "node-b", FOO_BAR),
    pod_on("p-y1", "node-c", FOO),
    pod_on("p-y2", "node-c", BAR),
]

SCORES = [
    pytest.param(
        dict(pod=pod(soft(HOSTNAME)), nodes=[host("node-a"), host("node-b")], want=[100, 100]),
        id="one hostname constraint and no pods",
    ),
    pytest.param(
        dict(
            pod=pod(soft(HOSTNAME)),
            existing=[*pods_on("node-a", 2), *pods_on("node-b", 1)],
            nodes=[host("node-a")],
            failed=[host("node-b")],
            want=[100],
        ),
        id="a single candidate scores 100",
    ),
    pytest.param(
        dict(
            pod=pod(soft(HOSTNAME)),
            existing=[*pods_on("node-a", 1), *pods_on("node-b", 1)],
            nodes=[host("node-a"), host("node-b")],
            want=[100, 100],
        ),
        id="equal spread scores equally",
    ),
    pytest.param(
        dict(
            pod=pod(soft(HOSTNAME)),
            existing=SPREAD_2_1_0_3,
            nodes=FOUR_HOSTS,
            want=[20, 60, 100, 0],
        ),
        id="pods spread 2 1 0 3 over four candidates",
    ),
    pytest.param(
        dict(
            pod=pod(soft(HOSTNAME, None)),
            existing=SPREAD_2_1_0_3,
            nodes=FOUR_HOSTS,
            want=[100, 100, 100, 100],
        ),
        id="a null selector scores every node 100",
    ),
    pytest.param(
        dict(
            pod=pod(soft(HOSTNAME, FOO_SELECTOR, 2)),
            existing=SPREAD_2_1_0_3,
            nodes=FOUR_HOSTS,
            want=[33, 66, 100, 16],
        ),
        id="max skew 2 waters down the differences",
    ),
    pytest.param(
        dict(
            pod=pod(soft(HOSTNAME, FOO_SELECTOR, 3)),
            existing=SPREAD_4_3_2_1,
            nodes=FOUR_HOSTS,
            want=[44, 66, 77, 100],
        ),
        id="max skew 3 with pods spread 4 3 2 1",
    ),
    pytest.param(
        dict(
            pod=make_pod().name("p").labels(FOO).obj(),
            existing=SPREAD_4_3_2_1,
            nodes=FOUR_HOSTS,
            objects=[Service(ObjectMeta(name="svc"), {"foo": ""})],
            want=[44, 66, 77, 100],
        ),
        id="system defaults without zones score like one hostname constraint",
    ),
    pytest.param(
        dict(
            pod=pod(soft(HOSTNAME)),
            existing=SPREAD_4_2_1_3,
            nodes=[host("node-a"), host("node-b"), host("node-x")],
            failed=[host("node-y")],
            want=[33, 83, 100],
        ),
        id="three of four nodes are candidates",
    ),
    pytest.param(
        dict(
            pod=pod(soft(HOSTNAME)),
            existing=SPREAD_4_2_1_3,
            nodes=[host("node-a"), node("node-b", {"n": "node-b"}), host("node-x")],
            failed=[host("node-y")],
            want=[16, 0, 100],
        ),
        id="a candidate without the topology key scores 0",
    ),
    pytest.param(
        dict(
            pod=pod(soft("zone")),
            existing=SPREAD_4_2_1_3,
            nodes=FOUR_ZONE_HOSTS[:3],
            failed=FOUR_ZONE_HOSTS[3:],
            want=[75, 75, 100],
        ),
        id="one zone constraint with three of four candidates",
    ),
    pytest.param(
        dict(
            pod=pod(soft("zone"), soft(HOSTNAME)),
            existing=[
                *pods_on("node-a", 2),
                *pods_on("node-b", 1),
                *pods_on("node-x", 2),
                *pods_on("node-y", 4),
            ],
            nodes=[FOUR_ZONE_HOSTS[0], FOUR_ZONE_HOSTS[2]],
            failed=[FOUR_ZONE_HOSTS[1], FOUR_ZONE_HOSTS[3]],
            want=[100, 63],
        ),
        id="zone and hostname constraints with two of four candidates",
    ),
    pytest.param(
        dict(
            pod=pod(soft("zone"), soft("zone", BAR_SELECTOR), labels=FOO_BAR),
            existing=[
                pod_on("p-a1", "node-a", FOO_BAR),
                pod_on("p-a2", "node-a", FOO),
                pod_on("p-b1", "node-b", FOO_BAR),
                pod_on("p-y1", "node-y", FOO),
                pod_on("p-y2", "node-y", FOO_BAR),
                pod_on("p-y3", "node-y", FOO),
            ],
            nodes=[node("node-a", {"zone": "zone1"}), node("node-x", {"zone": "zone2"})],
            failed=[node("node-b", {"zone": "zone1"}), node("node-y", {"zone": "zone2"})],
            want=[85, 100],
        ),
        id="two zone constraints with two of four candidates",
    ),
    pytest.param(
        dict(
            pod=pod(soft("zone"), soft(HOSTNAME, BAR_SELECTOR), labels=FOO_BAR),
            existing=DIFFERENT_SELECTOR_PODS,
            nodes=FOUR_ZONE_HOSTS,
            want=[60, 20, 100, 60],
        ),
        id="zone and hostname constraints with different selectors",
    ),
    pytest.param(
        dict(
            pod=pod(soft("zone"), soft(HOSTNAME, BAR_SELECTOR), labels=FOO_BAR),
            existing=[
                pod_on("p-b1", "node-b", BAR),
                pod_on("p-x1", "node-x", FOO),
                pod_on("p-y1", "node-y", FOO_BAR),
            ],
            nodes=FOUR_ZONE_HOSTS,
            want=[100, 60, 40, 0],
        ),
        id="different selectors where some nodes hold no pods",
    ),
    pytest.param(
        dict(
            pod=pod(soft("zone"), soft(HOSTNAME, BAR_SELECTOR), labels=FOO_BAR),
            existing=DIFFERENT_SELECTOR_PODS,
            nodes=FOUR_ZONE_HOSTS[:3],
            failed=FOUR_ZONE_HOSTS[3:],
            want=[50, 25, 100],
        ),
        id="different selectors with three of four candidates",
    ),
    pytest.param(
        dict(
            pod=pod(soft(HOSTNAME)),
            existing=[
                make_pod().name("p-a1").namespace("ns1").node("node-a").labels(FOO).obj(),
                pod_on("p-a2", "node-a", FOO),
                pod_on("p-b1", "node-b", FOO),
                pod_on("p-b2", "node-b", FOO),
            ],
            nodes=[host("node-a"), host("node-b")],
            want=[100, 33],
        ),
        id="pods of other namespaces do not count",
    ),
    pytest.param(
        dict(
            pod=pod(soft(HOSTNAME)),
            existing=[
                make_pod().name("p-a").node("node-a").labels(FOO).terminating().obj(),
                pod_on("p-b", "node-b", FOO),
            ],
            nodes=[host("node-a"), host("node-b")],
            want=[100, 0],
        ),
        id="terminating pods do not count",
    ),
    pytest.param(
        dict(
            pod=pod(soft("node", FOO_SELECTOR, 2, 10)),
            existing=[*pods_on("node-a", 2), *pods_on("node-b", 2), *pods_on("node-c", 1)],
            nodes=THREE_NODE_LABELLED,
            want=[75, 75, 100],
        ),
        id="min domains has no effect on soft constraints",
    ),
    pytest.param(
        dict(
            pod=pod(soft("node"), node_selector=FOO),
            existing=POLICY_SCORE_PODS,
            nodes=POLICY_SCORE_NODES,
            node_inclusion_policy=True,
            want=[0, 33, 100],
        ),
        id="node affinity policy honor with a node selector",
    ),
    pytest.param(
        dict(
            pod=pod(soft("node", FOO_SELECTOR, 1, None, IGNORE), node_selector=FOO),
            existing=POLICY_SCORE_PODS,
            nodes=POLICY_SCORE_NODES,
            node_inclusion_policy=True,
            want=[66, 100, 100],
        ),
        id="node affinity policy ignore with a node selector",
    ),
    pytest.param(
        dict(
            pod=pod(soft("node"), node_affinity_in=("foo", [""])),
            existing=POLICY_SCORE_PODS,
            nodes=POLICY_SCORE_NODES,
            node_inclusion_policy=True,
            want=[0, 33, 100],
        ),
        id="node affinity policy honor with node affinity",
    ),
    pytest.param(
        dict(
            pod=pod(soft("node", FOO_SELECTOR, 1, None, IGNORE), node_affinity_in=("foo", [""])),
            existing=POLICY_SCORE_PODS,
            nodes=POLICY_SCORE_NODES,
            node_inclusion_policy=True,
            want=[66, 100, 100],
        ),
        id="node affinity policy ignore with node affinity",
    ),
    pytest.param(
        dict(
            pod=pod(soft("node", FOO_SELECTOR, 1, None, None, HONOR)),
            existing=POLICY_SCORE_PODS,
            nodes=TAINT_SCORE_NODES,
            node_inclusion_policy=True,
            want=[0, 33, 100],
        ),
        id="node taints policy honor",
    ),
    pytest.param(
        dict(
            pod=pod(soft("node")),
            existing=POLICY_SCORE_PODS,
            nodes=TAINT_SCORE_NODES,
            node_inclusion_policy=True,
            want=[66, 100, 100],
        ),
        id="node taints policy ignore",
    ),
    pytest.param(
        dict(
            pod=pod(
                soft("zone", FOO_SELECTOR, 1, None, None, None, ["baz"]),
                soft(HOSTNAME, BAR_SELECTOR, 1, None, None, None, ["baz"]),
                labels={"foo": "", "bar": "", "baz": ""},
            ),
            existing=MATCH_LABEL_KEY_PODS,
            nodes=MATCH_LABEL_KEY_NODES,
            want=[60, 20, 60, 100],
        ),
        id="match label keys are ignored when the feature is off",
    ),
    pytest.param(
        dict(
            pod=pod(
                soft("zone", {}, 1, None, None, None, ["foo"]),
                soft(HOSTNAME, {}, 1, None, None, None, ["bar"]),
                labels=FOO_BAR,
            ),
            existing=MATCH_LABEL_KEY_PODS,
            nodes=MATCH_LABEL_KEY_NODES,
            match_label_keys=True,
            want=[60, 20, 60, 100],
        ),
        id="match label keys with empty label selectors",
    ),
    pytest.param(
        dict(
            pod=pod(
                soft("zone"),
                soft(HOSTNAME, BAR_SELECTOR, 1, None, None, None, ["baz"]),
                labels={"foo": "", "bar": "", "baz": ""},
            ),
            existing=[
                pod_on("p-a1", "node-a", FOO),
                pod_on("p-b1", "node-b", {"foo": "", "bar": "", "baz": ""}),
                pod_on("p-c1", "node-c", FOO),
                pod_on("p-c2", "node-c", BAR),
                pod_on("p-d3", "node-c", {"bar": "", "baz": ""}),
            ],
            nodes=MATCH_LABEL_KEY_NODES,
            match_label_keys=True,
            want=[60, 20, 60, 100],
        ),
        id="match label keys ANDed with a label selector",
    ),
]


@pytest.mark.parametrize("case", SCORES)
def test_scores_match_upstream(case: dict[str, Any]) -> None:
    nodes = case["nodes"]
    plugin = new_plugin(
        case.get("existing", ()),
        [*nodes, *case.get("failed", ())],
        case.get("objects", ()),
        defaulting_type=SYSTEM_DEFAULTING,
        enable_node_inclusion_policy_in_pod_topology_spread=case.get(
            "node_inclusion_policy", False
        ),
        enable_match_label_keys_in_pod_topology_spread=case.get("match_label_keys", False),
    )
    snapshot = plugin.handle.snapshot_shared_lister()
    state = CycleState()
    assert plugin.pre_score(state, case["pod"], bare_node_infos(nodes)) is None

    scores = []
    for n in nodes:
        score, status = plugin.score(state, case["pod"], snapshot.get(n.name))
        assert status is None
        scores.append(NodeScore(n.name, score))
    assert plugin.normalize_score(state, case["pod"], scores) is None

    assert scores == [NodeScore(n.name, want) for n, want in zip(nodes, case["want"], strict=True)]


def test_score_without_pre_score_state_is_an_error() -> None:
    plugin = new_plugin([], [host("node-a")])
    node_info = plugin.handle.snapshot_shared_lister().get("node-a")

    score, status = plugin.score(CycleState(), pod(soft(HOSTNAME)), node_info)

    assert (score, status) == (
        0,
        Status.error('error reading "PreScorePodTopologySpread" from cycleState: not found'),
    )


# ---------------------------------------------------------------------------------------------
# Go float arithmetic


@pytest.mark.parametrize(
    ("x", "want"),
    [
        pytest.param(
            3.0,
            float.fromhex("0x1.193ea7aad030ap+0"),
            id="log of 3 is one ulp below the C library's",
        ),
        pytest.param(
            14.0,
            float.fromhex("0x1.51cca16d7bba8p+1"),
            id="log of 14 is one ulp above the C library's",
        ),
        pytest.param(0.6023203277884887, -0.5069658692305488, id="the value of Go issue 9546"),
        pytest.param(2.0, math.log(2.0), id="log of 2 agrees with the C library"),
        pytest.param(1.0, 0.0, id="log of 1 is zero"),
    ],
)
def test_go_log_reproduces_go_math_log_bit_for_bit(x: float, want: float) -> None:
    assert go_log(x) == want


@pytest.mark.parametrize(
    ("x", "want"),
    [
        pytest.param(2.5, 3, id="a half rounds away from zero"),
        pytest.param(3.5, 4, id="an odd half rounds up too"),
        pytest.param(-2.5, -3, id="a negative half rounds away from zero"),
        pytest.param(0.49999999999999994, 0, id="the largest value below a half rounds down"),
        pytest.param(7.0, 7, id="integers stay"),
    ],
)
def test_go_round_rounds_half_away_from_zero(x: float, want: int) -> None:
    assert go_round(x) == want
