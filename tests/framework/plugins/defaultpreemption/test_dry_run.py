"""Dry-run preemption with DefaultPreemption's victim selection (upstream TestDryRunPreemption).

Each case lists the candidates per scheduling cycle as {node: [victims]} plus the number of
PDB violations, and how many times the counting filter ran. Offsets come from an injected
sequence: upstream seeds Go's generator with 4 and gets 4, 1, 3 for five nodes.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import pytest

from framework.config.types import DefaultPreemptionArgs
from framework.interface.status import Code
from framework.plugins.defaultpreemption.default_preemption import DefaultPreemption
from framework.plugins.feature import Features
from framework.testing.fake_plugins import FakeFilter
from tests.framework.preemption.builders import (
    HIGH_PRIORITY,
    LARGE,
    LOW_PRIORITY,
    MEDIUM,
    MID_PRIORITY,
    SMALL,
    VERY_HIGH_PRIORITY,
    VERY_LARGE,
    anti_affinity_exists,
    pdb,
    pod,
    spread_constraint,
    topology_node,
)
from tests.framework.preemption.helpers import (
    FalseFilter,
    MatchFilter,
    Registered,
    TrueFilter,
    default_preemption_args,
    fit,
    instance,
    inter_pod_affinity,
    new_framework,
    pod_topology_spread,
    run_pre_filter,
)

FOO = {"app": "foo"}
Want = dict[str, tuple[list[str], int]]


def limited(percentage: int, absolute: int) -> DefaultPreemptionArgs:
    return DefaultPreemptionArgs(
        min_candidate_nodes_percentage=percentage, min_candidate_nodes_absolute=absolute
    )


@dataclass
class Case:
    id: str
    nodes: list[str]
    test_pods: list[Any]
    init_pods: list[Any]
    plugins: list[Registered]
    expected: list[Want]
    filter_calls: list[int]
    fake_filter_code: Code = Code.SUCCESS
    pdbs: list[Any] = field(default_factory=list)
    args: DefaultPreemptionArgs | None = None


def five_nodes_mid(*, labelled: tuple[str, ...] = (), very_high: tuple[str, ...] = ()) -> list:
    pods = []
    for i in range(1, 6):
        name = f"p{i}"
        priority = VERY_HIGH_PRIORITY if name in very_high else MID_PRIORITY
        labels = FOO if name in labelled else None
        pods.append(pod(name, node=f"node{i}", priority=priority, req=LARGE, labels=labels))
    return pods


CASES = [
    Case(
        "a pod that does not fit on any node has no candidates",
        ["node1", "node2"],
        [pod("p", priority=HIGH_PRIORITY)],
        [
            pod("p1", node="node1", priority=MID_PRIORITY),
            pod("p2", node="node2", priority=MID_PRIORITY),
        ],
        [instance(FalseFilter(), "filter")],
        [{}],
        [2],
    ),
    Case(
        "a pod that fits with no preemption has no candidates when the filter rejects it",
        ["node1", "node2"],
        [pod("p", priority=HIGH_PRIORITY)],
        [
            pod("p1", node="node1", priority=MID_PRIORITY),
            pod("p2", node="node2", priority=MID_PRIORITY),
        ],
        [instance(TrueFilter(), "filter")],
        [{}],
        [2],
        fake_filter_code=Code.UNSCHEDULABLE,
    ),
    Case(
        "a pod that fits one node with no preemption has no candidates when rejected",
        ["node1", "node2"],
        [pod("node1", priority=HIGH_PRIORITY)],
        [
            pod("p1", node="node1", priority=MID_PRIORITY),
            pod("p2", node="node2", priority=MID_PRIORITY),
        ],
        [instance(MatchFilter(), "filter")],
        [{}],
        [2],
        fake_filter_code=Code.UNSCHEDULABLE,
    ),
    Case(
        "a pod fits on both nodes once lower-priority pods are preempted",
        ["node1", "node2"],
        [pod("p", priority=HIGH_PRIORITY, req=LARGE)],
        [
            pod("p1", node="node1", priority=MID_PRIORITY, req=LARGE),
            pod("p2", node="node2", priority=MID_PRIORITY, req=LARGE),
        ],
        [fit()],
        [{"node1": (["p1"], 0), "node2": (["p2"], 0)}],
        [4],
    ),
    Case(
        "no preemption happens when the running pods have higher priority",
        ["node1", "node2"],
        [pod("p", priority=LOW_PRIORITY, req=LARGE)],
        [
            pod("p1", node="node1", priority=MID_PRIORITY, req=LARGE),
            pod("p2", node="node2", priority=MID_PRIORITY, req=LARGE),
        ],
        [fit()],
        [{}],
        [0],
    ),
    Case(
        "a medium-priority pod is preempted but a small low-priority one stays",
        ["node1", "node2"],
        [pod("p", priority=HIGH_PRIORITY, req=LARGE)],
        [
            pod("p1.1", node="node1", priority=LOW_PRIORITY, req=SMALL),
            pod("p1.2", node="node1", priority=MID_PRIORITY, req=LARGE),
            pod("p2", node="node2", priority=MID_PRIORITY, req=LARGE),
        ],
        [fit()],
        [{"node1": (["p1.2"], 0), "node2": (["p2"], 0)}],
        [5],
    ),
    Case(
        "pods of mixed priorities are preempted",
        ["node1", "node2"],
        [pod("p", priority=HIGH_PRIORITY, req=LARGE)],
        [
            pod("p1.1", node="node1", priority=MID_PRIORITY, req=SMALL),
            pod("p1.2", node="node1", priority=LOW_PRIORITY, req=SMALL),
            pod("p1.3", node="node1", priority=MID_PRIORITY, req=MEDIUM),
            pod("p1.4", node="node1", priority=HIGH_PRIORITY, req=SMALL),
            pod("p2", node="node2", priority=HIGH_PRIORITY, req=LARGE),
        ],
        [fit()],
        [{"node1": (["p1.2", "p1.3"], 0)}],
        [4],
    ),
    Case(
        "of equal priorities the pod that started later is preempted",
        ["node1", "node2"],
        [pod("p", priority=HIGH_PRIORITY, req=LARGE)],
        [
            pod("p1.1", node="node1", priority=LOW_PRIORITY, req=SMALL, start=5),
            pod("p1.2", node="node1", priority=LOW_PRIORITY, req=SMALL, start=4),
            pod("p1.3", node="node1", priority=MID_PRIORITY, req=MEDIUM, start=3),
            pod("p1.4", node="node1", priority=HIGH_PRIORITY, req=SMALL, start=2),
            pod("p2", node="node2", priority=HIGH_PRIORITY, req=LARGE, start=1),
        ],
        [fit()],
        [{"node1": (["p1.1", "p1.3"], 0)}],
        [4],
    ),
    Case(
        "a pod with anti-affinity to the preemptor is preempted",
        ["node1", "node2"],
        [pod("p", labels={"foo": ""}, priority=HIGH_PRIORITY, req=SMALL)],
        [
            pod(
                "p1.1",
                node="node1",
                labels={"foo": ""},
                priority=LOW_PRIORITY,
                req=SMALL,
                affinity=anti_affinity_exists("foo", "hostname"),
            ),
            pod("p1.2", node="node1", priority=MID_PRIORITY, req=SMALL),
            pod("p1.3", node="node1", priority=HIGH_PRIORITY, req=SMALL),
            pod("p2", node="node2", priority=HIGH_PRIORITY, req=SMALL),
        ],
        [fit(), inter_pod_affinity()],
        [{"node1": (["p1.1"], 0)}],
        [3],
    ),
    Case(
        "preemption resolves a pod topology spread failure",
        ["node-a/zone1", "node-b/zone1", "node-x/zone2"],
        [
            pod(
                "p",
                labels={"foo": ""},
                priority=HIGH_PRIORITY,
                topologySpreadConstraints=[
                    spread_constraint("zone"),
                    spread_constraint("hostname"),
                ],
            )
        ],
        [
            pod("pod-a1", node="node-a", labels={"foo": ""}, priority=MID_PRIORITY),
            pod("pod-a2", node="node-a", labels={"foo": ""}, priority=LOW_PRIORITY),
            pod("pod-b1", node="node-b", labels={"foo": ""}, priority=LOW_PRIORITY),
            pod("pod-x1", node="node-x", labels={"foo": ""}, priority=HIGH_PRIORITY),
            pod("pod-x2", node="node-x", labels={"foo": ""}, priority=HIGH_PRIORITY),
        ],
        [pod_topology_spread()],
        [{"node-a": (["pod-a2"], 0), "node-b": (["pod-b1"], 0)}],
        [5],
    ),
    Case(
        "a filter rejecting every node in the dry run leaves no candidates",
        ["node1", "node2"],
        [pod("p", priority=HIGH_PRIORITY, req=LARGE)],
        [
            pod("p1", node="node1", priority=MID_PRIORITY, req=LARGE),
            pod("p2", node="node2", priority=MID_PRIORITY, req=LARGE),
        ],
        [fit()],
        [{}],
        [2],
        fake_filter_code=Code.UNSCHEDULABLE,
    ),
    Case(
        "both victims violate the same PDB once its budget is spent",
        ["node1"],
        [pod("p", priority=HIGH_PRIORITY, req=VERY_LARGE)],
        [
            pod("p1.1", node="node1", labels=FOO, priority=MID_PRIORITY, req=MEDIUM),
            pod("p1.2", node="node1", labels=FOO, priority=MID_PRIORITY, req=MEDIUM),
        ],
        [fit()],
        [{"node1": (["p1.1", "p1.2"], 1)}],
        [3],
        pdbs=[pdb(match_labels=FOO, disruptions_allowed=1)],
    ),
    Case(
        "a PDB's disrupted pod that is not a victim spends nothing",
        ["node1"],
        [pod("p", priority=HIGH_PRIORITY, req=VERY_LARGE)],
        [
            pod("p1.1", node="node1", labels=FOO, priority=MID_PRIORITY, req=MEDIUM),
            pod("p1.2", node="node1", labels=FOO, priority=MID_PRIORITY, req=MEDIUM),
        ],
        [fit()],
        [{"node1": (["p1.1", "p1.2"], 1)}],
        [3],
        pdbs=[pdb(match_labels=FOO, disruptions_allowed=1, disrupted_pods=["p2"])],
    ),
    Case(
        "a victim already in the PDB's disrupted pods spends nothing",
        ["node1"],
        [pod("p", priority=HIGH_PRIORITY, req=VERY_LARGE)],
        [
            pod("p1.1", node="node1", labels=FOO, priority=MID_PRIORITY, req=MEDIUM),
            pod("p1.2", node="node1", labels=FOO, priority=MID_PRIORITY, req=MEDIUM),
        ],
        [fit()],
        [{"node1": (["p1.1", "p1.2"], 0)}],
        [3],
        pdbs=[pdb(match_labels=FOO, disruptions_allowed=1, disrupted_pods=["p1.2"])],
    ),
    Case(
        "a victim in the PDB's disrupted pods is not violating, the others may be",
        ["node1"],
        [pod("p", priority=HIGH_PRIORITY, req=VERY_LARGE)],
        [
            pod("p1.1", node="node1", labels=FOO, priority=MID_PRIORITY, req=MEDIUM),
            pod("p1.2", node="node1", labels=FOO, priority=MID_PRIORITY, req=MEDIUM),
            pod("p1.3", node="node1", labels=FOO, priority=MID_PRIORITY, req=MEDIUM),
        ],
        [fit()],
        [{"node1": (["p1.1", "p1.2", "p1.3"], 1)}],
        [4],
        pdbs=[pdb(match_labels=FOO, disruptions_allowed=1, disrupted_pods=["p1.3"])],
    ),
    Case(
        "the args limit the candidates to two although every node would do",
        [f"node{i}" for i in range(1, 6)],
        [pod("p", priority=HIGH_PRIORITY, req=LARGE)],
        five_nodes_mid(),
        [fit()],
        # offset 4: node5 (yes), node1 (yes)
        [{"node1": (["p1"], 0), "node5": (["p5"], 0)}],
        [4],
        args=limited(40, 1),
    ),
    Case(
        "the args limit the candidates to two, skipping nodes that cannot be candidates",
        [f"node{i}" for i in range(1, 6)],
        [pod("p", priority=HIGH_PRIORITY, req=LARGE)],
        five_nodes_mid(very_high=("p2", "p5")),
        [fit()],
        # offset 4: node5 (no), node1 (yes), node2 (no), node3 (yes)
        [{"node1": (["p1"], 0), "node3": (["p3"], 0)}],
        [4],
        args=limited(40, 1),
    ),
    Case(
        "the offset rotates across scheduling cycles and wraps around",
        [f"node{i}" for i in range(1, 6)],
        [pod(f"tp{i}", priority=HIGH_PRIORITY, req=LARGE) for i in range(1, 4)],
        five_nodes_mid(),
        [fit()],
        [
            {"node1": (["p1"], 0), "node5": (["p5"], 0)},  # offset 4
            {"node2": (["p2"], 0), "node3": (["p3"], 0)},  # offset 1
            {"node4": (["p4"], 0), "node5": (["p5"], 0)},  # offset 3
        ],
        [4, 4, 4],
        args=limited(40, 1),
    ),
    Case(
        "the dry run looks past the limit until a node violating no PDB is found",
        [f"node{i}" for i in range(1, 6)],
        [pod("p", priority=HIGH_PRIORITY, req=LARGE)],
        five_nodes_mid(labelled=("p1", "p2", "p5")),
        [fit()],
        # offset 4: node5 (yes, pdb), node1 (yes, pdb), node2 (no: over the limit), node3 (yes)
        [{"node1": (["p1"], 1), "node3": (["p3"], 0), "node5": (["p5"], 1)}],
        [8],
        pdbs=[pdb(match_labels=FOO, disruptions_allowed=0)],
        args=limited(40, 2),
    ),
]


@pytest.mark.parametrize("per_node", [False, True], ids=["batch", "per-node"])
@pytest.mark.parametrize("case", CASES, ids=[c.id for c in CASES])
def test_dry_run_finds_upstreams_candidates(case: Case, per_node: bool) -> None:
    """Both forms of victim selection: nodes judged together (when no PreFilter extension
    runs) and one by one (the debugger's per-node mode) find the same candidates with the same
    number of filter calls."""
    nodes = [topology_node(spec, VERY_LARGE) for spec in case.nodes]
    counting = FakeFilter("FakeFilter", case.fake_filter_code, "injecting failure")
    fwk = new_framework(
        case.init_pods,
        nodes,
        [instance(counting, "filter"), *case.plugins],
        objects=case.test_pods,
    )
    fwk.per_node = per_node
    plugin = DefaultPreemption(case.args or default_preemption_args(), fwk, Features())
    offsets = iter([4, 1, 3])
    plugin.get_offset_rand = lambda n: next(offsets)
    node_infos = sorted(fwk.snapshot_shared_lister().list(), key=lambda n: n.node_name)

    for cycle, preemptor in enumerate(case.test_pods):
        state = run_pre_filter(fwk, preemptor)
        calls_before = counting.num_calls
        offset, num_candidates = plugin.get_offset_and_num_candidates(len(node_infos))
        candidates, _, _ = plugin.evaluator.dry_run_preemption(
            state, preemptor, node_infos, case.pdbs, offset, num_candidates
        )

        got = {
            c.name: (sorted(p.name for p in c.victims.pods), c.victims.num_pdb_violations)
            for c in candidates
        }
        assert got == case.expected[cycle]
        assert counting.num_calls - calls_before == case.filter_calls[cycle]


def test_candidates_violating_no_pdb_come_first() -> None:
    nodes = [topology_node(f"node{i}", VERY_LARGE) for i in range(1, 6)]
    fwk = new_framework(five_nodes_mid(labelled=("p1", "p2", "p5")), nodes, [fit()])
    plugin = DefaultPreemption(limited(40, 2), fwk, Features())
    preemptor = pod("p", priority=HIGH_PRIORITY, req=LARGE)
    node_infos = fwk.snapshot_shared_lister().list()

    candidates, _, _ = plugin.evaluator.dry_run_preemption(
        run_pre_filter(fwk, preemptor),
        preemptor,
        node_infos,
        [pdb(match_labels=FOO, disruptions_allowed=0)],
        4,
        2,
    )

    assert [c.name for c in candidates] == ["node3", "node5", "node1"]
