"""Workload-aware preemption's victim selection and order: upstream's tables
(podgrouppreemption_test.go, TestPodGroupEvaluator_SelectVictimsOnDomain and
TestMoreImportantVictim).

Upstream's tables judge feasibility with "blocking rules" rather than real plugins: a rule gives
its node ``capacity`` slots once none of its blocking pods is left on it, and the preemptor
fits when the slots reach its member count.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import pytest

from framework.api.pod import PREEMPT_NEVER, Pod
from framework.api.pod_group import DISRUPTION_MODE_POD, DISRUPTION_MODE_POD_GROUP, PodGroup
from framework.api.policy import PodDisruptionBudget
from framework.interface.node_info import NodeInfo, PodInfo
from framework.interface.status import Code, Status
from framework.preemption.pod_group_preemption import (
    NO_VICTIMS_FOR_PREEMPTOR,
    NOT_ELIGIBLE_NEVER,
    PodGroupEvaluator,
    more_important_victim,
    new_domain_for_workload_preemption,
)
from framework.preemption.start_time import StartTimes
from framework.preemption.types import PodGroupPreemptor, Victim
from framework.util.clock import FakeClock
from tests.framework.preemption.builders import member, node, pdb, pod, pod_group

# Upstream's lowPriority, midPriority, highPriority (preemption_test.go).
LOW, MID, HIGH = 10, 100, 1000
MODE_POD, MODE_GROUP = DISRUPTION_MODE_POD, DISRUPTION_MODE_POD_GROUP
FOO_PDB = pdb(match_labels={"app": "foo"}, disruptions_allowed=0)


@dataclass(frozen=True)
class Rule:
    """Node ``node`` offers ``capacity`` slots once none of ``blocking`` is on it."""

    node: str
    blocking: frozenset[str]
    capacity: int = 1


def rule(node_name: str, *blocking: str, capacity: int = 1) -> Rule:
    return Rule(node_name, frozenset(blocking), capacity)


def preemptor(priority: int, *pods: Pod) -> PodGroupPreemptor:
    return PodGroupPreemptor(pod_group("preemptor-pg", priority=priority), list(pods))


def one_pod(priority: int, **kwargs) -> PodGroupPreemptor:
    return preemptor(priority, pod("p", priority=priority, **kwargs))


def one_per_node() -> list[Pod]:
    """p1 outside groups, p2 of pg1, p3 of pg2, one per node."""
    return [
        pod("p1", uid="v1", node="node1", priority=LOW),
        member("p2", "pg1", uid="v2", node="node2", priority=LOW),
        member("p3", "pg2", uid="v3", node="node3", priority=LOW),
    ]


ONE_PER_NODE_RULES = [rule("node1", "p1"), rule("node2", "p2"), rule("node3", "p3")]


def never_preemptor() -> PodGroupPreemptor:
    """A group one of whose members says ``preemptionPolicy: Never``."""
    return preemptor(
        HIGH,
        pod("p-1", priority=HIGH, preemption_policy=PREEMPT_NEVER),
        pod("p-2", priority=HIGH),
    )


@dataclass
class Case:
    name: str
    nodes: list[str]
    pods: list[Pod]
    preemptor: PodGroupPreemptor
    rules: list[Rule]
    want_pods: set[str]
    want_code: Code
    groups: list[PodGroup] = field(default_factory=list)
    pdbs: list[PodDisruptionBudget] = field(default_factory=list)


CASES = [
    Case(
        "Mix of no-group and single-pod-groups",
        ["node1", "node2", "node3"],
        one_per_node(),
        one_pod(HIGH),
        ONE_PER_NODE_RULES,
        # p1 is less important than p2: it is not part of a pod group.
        {"p1"},
        Code.SUCCESS,
        groups=[
            pod_group("pg1", disruption_mode=MODE_POD),
            pod_group("pg2", disruption_mode=MODE_POD),
        ],
    ),
    Case(
        "Priority: Shared group vs no group",
        ["node1", "node2", "node3"],
        [
            member("p1", "pg1", uid="v1", node="node1", priority=LOW, start=1),
            member("p2", "pg1", uid="v2", node="node2", priority=LOW, start=0),
            pod("p3", uid="v3", node="node3", priority=MID),
        ],
        one_pod(HIGH),
        ONE_PER_NODE_RULES,
        {"p1"},  # p1 is less important than p2: it started later
        Code.SUCCESS,
        groups=[pod_group("pg1", disruption_mode=MODE_POD)],
    ),
    Case(
        "Shared Group: Preempt separately",
        ["node1", "node2"],
        [
            member("p1", "pg1", uid="v1", node="node1", priority=LOW, start=1),
            member("p2", "pg1", uid="v2", node="node2", priority=LOW, start=0),
        ],
        one_pod(HIGH),
        [rule("node1", "p1"), rule("node2", "p2")],
        {"p1"},
        Code.SUCCESS,
        groups=[pod_group("pg1", disruption_mode=MODE_POD)],
    ),
    Case(
        "Complex Mixed: Shared, different, and no groups",
        ["node1", "node2", "node3", "node4", "node5"],
        [
            member("p1", "pg1", uid="v1", node="node1", priority=LOW, start=2),
            member("p2", "pg1", uid="v2", node="node2", priority=LOW, start=1),
            member("p3", "pg2", uid="v3", node="node3", priority=LOW, start=0),
            pod("p4", uid="v4", node="node4", priority=MID),
            member("p5", "pg3", uid="v5", node="node5", priority=HIGH, start=0),
        ],
        preemptor(
            HIGH,
            pod("p-1", priority=HIGH),
            pod("p-2", priority=HIGH),
            pod("p-3", priority=HIGH),
        ),
        [rule(f"node{i}", f"p{i}") for i in range(1, 6)],
        {"p1", "p2", "p3"},
        Code.SUCCESS,
        groups=[pod_group(g, disruption_mode=MODE_POD) for g in ("pg1", "pg2", "pg3")],
    ),
    Case(
        "PDB: Mixed groups",
        ["node1", "node2"],
        [
            member(
                "victim-pdb", "pg1", uid="v1", node="node1", priority=LOW, labels={"app": "foo"}
            ),
            member("victim-no-pdb", "pg1", uid="v2", node="node2", priority=LOW),
        ],
        one_pod(HIGH),
        [rule("node1", "victim-pdb"), rule("node2", "victim-no-pdb")],
        {"victim-no-pdb"},
        Code.SUCCESS,
        pdbs=[FOO_PDB],
    ),
    Case(
        "PodGroup with PreemptNever does not perform preemption (groups missing)",
        ["node1", "node2", "node3"],
        one_per_node(),
        never_preemptor(),
        ONE_PER_NODE_RULES,
        set(),
        Code.UNSCHEDULABLE,
    ),
    Case(
        "Preempt single lower priority pod",
        ["node1"],
        [pod("p1", uid="v1", node="node1", priority=LOW)],
        one_pod(HIGH),
        [rule("node1", "p1")],
        {"p1"},
        Code.SUCCESS,
    ),
    Case(
        "Priority: Prefer lower priority victim",
        ["node1"],
        [
            pod("p1", uid="v1", node="node1", priority=LOW),
            pod("p2", uid="v2", node="node1", priority=MID),
            pod("p3", uid="v3", node="node1", priority=HIGH),
        ],
        one_pod(HIGH),
        [rule("node1", "p1"), rule("node1", "p2"), rule("node1", "p3")],
        {"p1"},
        Code.SUCCESS,
    ),
    Case(
        "Efficiency: Preempt minimum number of victims",
        ["node1"],
        [pod(f"p{i}", uid=f"v{i}", node="node1", priority=LOW) for i in range(1, 5)],
        one_pod(HIGH),
        [rule("node1", "p1", "p2"), rule("node1", "p1")],
        {"p1"},
        Code.SUCCESS,
    ),
    Case(
        "PDB: Prefer non-violating victim",
        ["node1"],
        [
            pod("victim-pdb", uid="v1", node="node1", priority=LOW, labels={"app": "foo"}),
            pod("victim-no-pdb", uid="v2", node="node1", priority=LOW),
        ],
        one_pod(HIGH),
        [rule("node1", "victim-pdb"), rule("node1", "victim-no-pdb")],
        {"victim-no-pdb"},
        Code.SUCCESS,
        pdbs=[FOO_PDB],
    ),
    Case(
        "PodGroup with PreemptNever does not perform preemption",
        ["node1", "node2", "node3"],
        one_per_node(),
        never_preemptor(),
        ONE_PER_NODE_RULES,
        set(),
        Code.UNSCHEDULABLE,
        groups=[
            pod_group("pg1", disruption_mode=MODE_POD, priority=LOW),
            pod_group("pg2", disruption_mode=MODE_POD, priority=LOW),
        ],
    ),
    Case(
        "PDB: Prefer lower priority pod for preemption, when preemption without pdb violation "
        "is not possible",
        ["node1"],
        [
            pod("p1", uid="v1", node="node1", priority=LOW, labels={"app": "foo"}),
            pod("p2", uid="v2", node="node1", priority=MID, labels={"app": "foo"}),
        ],
        one_pod(HIGH),
        [rule("node1", "p1"), rule("node1", "p2")],
        {"p1"},
        Code.SUCCESS,
        pdbs=[FOO_PDB],
    ),
    Case(
        "PodGroup: Preempt group as a whole",
        ["node1", "node2"],
        [
            member("p1", "pg1", uid="v1", node="node1", priority=LOW),
            member("p2", "pg1", uid="v2", node="node2", priority=LOW),
        ],
        one_pod(HIGH),
        [rule("node1", "p1")],
        {"p1", "p2"},
        Code.SUCCESS,
        groups=[pod_group("pg1", disruption_mode=MODE_GROUP, priority=LOW)],
    ),
    Case(
        "PodGroup: Prefer single pod over podGroup for preemption candidate",
        ["node1"],
        [
            pod("p1", node="node1", priority=LOW),
            member("g1-1", "pg1", uid="g1", node="node1", priority=LOW),
            member("g1-2", "pg1", uid="g2", node="node1", priority=LOW),
        ],
        one_pod(HIGH),
        [rule("node1", "g1-1", "g1-2"), rule("node1", "p1")],
        {"p1"},
        Code.SUCCESS,
        groups=[pod_group("pg1", disruption_mode=MODE_GROUP, priority=LOW)],
    ),
    Case(
        "PodGroup: Preempt group as a whole on single node",
        ["node1"],
        [
            member("g1-1", "pg1", uid="g1", node="node1", priority=LOW),
            member("g1-2", "pg1", uid="g2", node="node1", priority=LOW),
            pod("p1", node="node1", priority=MID),
        ],
        one_pod(HIGH),
        [rule("node1", "g1-1")],  # only g1-1 blocks
        {"g1-1", "g1-2"},  # both must be preempted
        Code.SUCCESS,
        groups=[pod_group("pg1", disruption_mode=MODE_GROUP, priority=LOW)],
    ),
    Case(
        "PDB: Unit violation if any member violates",
        ["node1"],
        [
            member("g1-1", "pg1", uid="g1", node="node1", priority=LOW, labels={"app": "foo"}),
            member("g1-2", "pg1", uid="g2", node="node1", priority=LOW),
            pod("p1", node="node1", priority=LOW),
        ],
        one_pod(HIGH),
        [rule("node1", "g1-1"), rule("node1", "p1")],
        {"p1"},  # pg1 violates the PDB as a unit (through g1-1)
        Code.SUCCESS,
        groups=[pod_group("pg1", disruption_mode=MODE_GROUP, priority=LOW)],
        pdbs=[FOO_PDB],
    ),
    Case(
        "PodGroup: Prefer preempting single pod over group of same priority",
        ["node1"],
        [
            pod("p1", node="node1", priority=LOW),
            member("g1-1", "pg1", uid="g1", node="node1", priority=LOW),
            member("g1-2", "pg1", uid="g2", node="node1", priority=LOW),
        ],
        one_pod(HIGH),
        [rule("node1", "g1-1", "g1-2"), rule("node1", "p1")],
        {"p1"},  # the PodGroup is "more important" at the same priority
        Code.SUCCESS,
        groups=[pod_group("pg1", disruption_mode=MODE_GROUP, priority=LOW)],
    ),
    Case(
        "Failure: Cannot preempt the victim with higher priority",
        ["node1"],
        [pod("p1", uid="v1", node="node1", priority=HIGH)],
        one_pod(MID),
        [rule("node1", "p1", capacity=0)],
        set(),
        Code.UNSCHEDULABLE_AND_UNRESOLVABLE,
    ),
    Case(
        "Failure: Cannot preempt if node is empty",
        ["node1"],
        [],
        one_pod(MID),
        [],
        set(),
        Code.UNSCHEDULABLE_AND_UNRESOLVABLE,
    ),
    Case(
        "Priority divergence: candidate victim PodGroup has lower priority than the Pods from "
        "that group",
        ["node1", "node2"],
        [
            member("p1", "pg1", uid="v1", node="node1", priority=HIGH),
            member("p2", "pg1", uid="v2", node="node2", priority=HIGH),
        ],
        one_pod(HIGH),
        [rule("node1", "p1")],
        {"p1", "p2"},
        Code.SUCCESS,
        groups=[pod_group("pg1", disruption_mode=MODE_GROUP, priority=MID)],
    ),
    Case(
        "Priority divergence: candidate victim PodGroup has higher priority than the Pods from "
        "that group",
        ["node1", "node2"],
        [
            member("p1", "pg1", uid="v1", node="node1", priority=LOW),
            member("p2", "pg1", uid="v2", node="node2", priority=LOW),
        ],
        one_pod(MID),
        [rule("node1", "p1")],
        set(),
        Code.UNSCHEDULABLE_AND_UNRESOLVABLE,
        groups=[pod_group("pg1", disruption_mode=MODE_GROUP, priority=MID)],
    ),
    Case(
        "Priority divergence: preemptor PodGroup has higher priority than the Pod from "
        "preemptor PodGroup",
        ["node1", "node2"],
        [
            member("p1", "pg1", uid="v1", node="node1", priority=MID),
            member("p2", "pg1", uid="v2", node="node2", priority=MID),
        ],
        preemptor(HIGH, pod("p", priority=LOW)),
        [rule("node1", "p1")],
        {"p1", "p2"},
        Code.SUCCESS,
        groups=[pod_group("pg1", disruption_mode=MODE_GROUP, priority=MID)],
    ),
    Case(
        "Priority divergence: preemptor PodGroup has lower priority than the Pod from "
        "preemptor PodGroup",
        ["node1", "node2"],
        [
            member("p1", "pg1", uid="v1", node="node1", priority=MID),
            member("p2", "pg1", uid="v2", node="node2", priority=MID),
        ],
        preemptor(LOW, pod("p", priority=HIGH)),
        [rule("node1", "p1")],
        set(),
        Code.UNSCHEDULABLE_AND_UNRESOLVABLE,
        groups=[pod_group("pg1", disruption_mode=MODE_GROUP, priority=MID)],
    ),
]


def domain_nodes(case: Case) -> list[NodeInfo]:
    infos = {}
    for name in case.nodes:
        infos[name] = NodeInfo()
        infos[name].set_node(node(name))
    for p in case.pods:
        infos[p.spec.node_name].add_pod(p)
    return [infos[name] for name in case.nodes]


def blocking_rules_fit(case: Case, nodes: list[NodeInfo]):
    """Upstream's mock podGroupSchedulingFunc over the nodes as they are at each call."""
    by_name = {n.node_name: n for n in nodes}

    def fits() -> Status:
        slots = 0
        for r in case.rules:
            on_node = {p.pod.name for p in by_name[r.node].pods}
            if not on_node & r.blocking:
                slots += r.capacity
        return Status(Code.SUCCESS if slots >= len(case.preemptor.pods) else Code.UNSCHEDULABLE)

    return fits


@pytest.mark.parametrize("case", CASES, ids=lambda c: c.name)
def test_select_victims_on_domain(case: Case):
    nodes = domain_nodes(case)
    groups = {g.name: g for g in case.groups}
    domain = new_domain_for_workload_preemption(
        nodes, lambda ns, name: groups.get(name), "test-domain", StartTimes(FakeClock(5.0))
    )
    evaluator = PodGroupEvaluator(handle=None, executor=None, start_times=StartTimes())

    victims, status = evaluator.select_victims_on_domain(
        case.preemptor, domain, case.pdbs, blocking_rules_fit(case, nodes)
    )

    assert (status.code if status is not None else Code.SUCCESS) == case.want_code
    if case.want_code == Code.SUCCESS:
        assert {p.name for p in victims.pods} == case.want_pods


def test_a_group_with_never_says_so_and_one_without_victims_says_so():
    never = CASES[5]
    nodes = domain_nodes(never)
    domain = new_domain_for_workload_preemption(nodes, lambda ns, n: None, "d", StartTimes())
    evaluator = PodGroupEvaluator(None, None, StartTimes())
    _, status = evaluator.select_victims_on_domain(
        never.preemptor, domain, [], blocking_rules_fit(never, nodes)
    )
    assert status.message() == NOT_ELIGIBLE_NEVER == "not eligible due to preemptionPolicy=Never."

    empty = new_domain_for_workload_preemption([], lambda ns, n: None, "d", StartTimes())
    _, status = evaluator.select_victims_on_domain(one_pod(HIGH), empty, [], lambda: None)
    assert status.message() == NO_VICTIMS_FOR_PREEMPTOR
    assert NO_VICTIMS_FOR_PREEMPTOR == "No preemption victims found for incoming preemptor"


def test_a_group_disrupted_as_a_whole_is_one_victim_with_the_groups_priority():
    nodes = domain_nodes(CASES[-1])
    groups = {"pg1": pod_group("pg1", disruption_mode=MODE_GROUP, priority=7)}
    domain = new_domain_for_workload_preemption(
        nodes, lambda ns, name: groups.get(name), "d", StartTimes()
    )
    (unit,) = domain.all_possible_victims
    assert [p.pod.name for p in unit.pods] == ["p1", "p2"]
    assert unit.priority == 7
    assert sorted(unit.affected_nodes) == ["node1", "node2"]


def test_the_preemptor_takes_the_pod_groups_priority_and_never_from_any_member():
    group = preemptor(HIGH, pod("a", priority=LOW), pod("b", preemption_policy=PREEMPT_NEVER))
    assert (group.priority, group.preemption_policy) == (HIGH, PREEMPT_NEVER)


def unit(priority: int, *, group: bool = False, size: int = 1, start: int | None = None):
    pods = [PodInfo(member("m", "pg") if group else pod("m")) for _ in range(size)]
    return Victim(pods, priority, [], start)


NOW, BEFORE = 1000, 500


@pytest.mark.parametrize(
    ("name", "vi1", "vi2", "want"),
    [
        ("vi1 has higher priority", unit(20), unit(10), True),
        ("vi2 has higher priority", unit(10), unit(20), False),
        ("vi1 is PG, vi2 is Pod, same priority", unit(10, group=True), unit(10), True),
        ("vi1 is Pod, vi2 is PG, same priority", unit(10), unit(10, group=True), False),
        ("both Pods, vi1 older", unit(10, start=BEFORE), unit(10, start=NOW), True),
        ("both Pods, vi2 older", unit(10, start=NOW), unit(10, start=BEFORE), False),
        ("both PGs, vi1 larger", unit(10, group=True, size=2), unit(10, group=True), True),
        ("both PGs, vi2 larger", unit(10, group=True), unit(10, group=True, size=2), False),
        (
            "both PGs, same size, vi1 older",
            unit(10, group=True, size=2, start=BEFORE),
            unit(10, group=True, size=2, start=NOW),
            True,
        ),
        (
            "both PGs, same size, vi2 older",
            unit(10, group=True, size=2, start=NOW),
            unit(10, group=True, size=2, start=BEFORE),
            False,
        ),
        ("both Pods, no start times", unit(10), unit(10), False),
    ],
)
def test_more_important_victim(name, vi1, vi2, want):
    assert more_important_victim(vi1, vi2) is want
