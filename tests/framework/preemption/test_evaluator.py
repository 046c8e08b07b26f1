"""The Evaluator with fake preemption plugins (upstream preemption_test.go): dry runs, custom
score functions, extenders, the default node choice and the early failures of Preempt."""

from __future__ import annotations

from typing import Any

import pytest

from framework.interface.cycle_state import CycleState
from framework.interface.status import Code, Status
from framework.interface.types import NodeToStatus
from framework.plugins.feature import Features
from framework.preemption.executor import Executor
from framework.preemption.preemption import (
    Evaluator,
    Interface,
    pick_one_node_for_preemption,
    tied_nodes_for_preemption,
)
from framework.preemption.start_time import StartTimes
from framework.preemption.types import Candidate, Victims
from framework.util.clock import FakeClock
from tests.framework.preemption.builders import (
    HIGH_PRIORITY,
    LOW_PRIORITY,
    MID_PRIORITY,
    NEG_PRIORITY,
    VERY_LARGE,
    node,
    pod,
)
from tests.framework.preemption.helpers import new_framework

MAX_INT32 = (1 << 31) - 1


class FirstPodIsVictim(Interface):
    """Upstream's FakePostFilterPlugin: the node's first pod is the only victim."""

    def __init__(self, num_violating: int = 0, score_funcs: list[Any] | None = None) -> None:
        self.num_violating = num_violating
        self.score_funcs = score_funcs

    def get_offset_and_num_candidates(self, num_nodes: int) -> tuple[int, int]:
        return 0, num_nodes

    def candidates_to_victims_map(self, candidates: list[Candidate]) -> dict[str, Victims]:
        return {c.name: c.victims for c in candidates}

    def pod_eligible_to_preempt_others(self, pod: Any, status: Any) -> tuple[bool, str]:
        return True, ""

    def select_victims_on_node(self, state, pod, node_info, pdbs):
        return [node_info.pods[0].pod], self.num_violating, None

    def ordered_score_funcs(self, nodes_to_victims: dict[str, Victims]) -> Any:
        if self.score_funcs is None:
            return None
        return [f(nodes_to_victims) for f in self.score_funcs]


def fewest_containers(nodes_to_victims: dict[str, Victims]) -> Any:
    return lambda node_name: (
        -sum(
            len(p.spec.containers) + len(p.spec.init_containers)
            for p in nodes_to_victims[node_name].pods
        )
    )


def evaluator(fwk: Any, interface: Interface) -> Evaluator:
    return Evaluator("FakePostFilter", fwk, interface, Executor(fwk, Features()))


@pytest.mark.parametrize(
    ("num_violating", "expected"),
    [(0, [("node1", 0), ("node2", 0)]), (1, [("node1", 1), ("node2", 1)])],
    ids=["no PDB violation", "a PDB violation on each node"],
)
def test_the_dry_run_collects_a_candidate_per_node(num_violating: int, expected: list) -> None:
    pods = [
        pod("p1", node="node1", priority=MID_PRIORITY),
        pod("p2", node="node2", priority=MID_PRIORITY),
    ]
    fwk = new_framework(pods, [node("node1", VERY_LARGE), node("node2", VERY_LARGE)])
    ev = evaluator(fwk, FirstPodIsVictim(num_violating))
    node_infos = fwk.snapshot_shared_lister().list()

    candidates, _, err = ev.dry_run_preemption(
        CycleState(), pod("p", priority=HIGH_PRIORITY), node_infos, [], 0, 2
    )

    assert err is None
    got = [(c.name, c.victims.num_pdb_violations) for c in candidates]
    assert got == expected
    assert [c.victims.pods[0].name for c in candidates] == ["p1", "p2"]


def test_custom_score_functions_choose_the_candidate() -> None:
    pods = [
        pod("p1.1", node="node1", priority=MID_PRIORITY, containers=2),
        pod("p2.1", node="node2", priority=MID_PRIORITY, containers=1),
        pod("p3.1", node="node3", priority=MID_PRIORITY, containers=3),
    ]
    nodes = [node(n, VERY_LARGE) for n in ("node1", "node2", "node3")]
    fwk = new_framework(pods, nodes)
    ev = evaluator(fwk, FirstPodIsVictim(1, [fewest_containers]))
    candidates, _, _ = ev.dry_run_preemption(
        CycleState(),
        pod("p", priority=HIGH_PRIORITY),
        fwk.snapshot_shared_lister().list(),
        [],
        0,
        3,
    )

    assert ev.select_candidate(candidates).name == "node2"


# -- extenders (upstream TestCallExtenders) --------------------------------------------------


class PreemptingExtender:
    def __init__(
        self,
        *,
        supports: bool = True,
        ignorable: bool = False,
        fails: bool = False,
        no_victims: bool = False,
    ) -> None:
        self.supports, self.ignorable, self.fails, self.no_victims = (
            supports,
            ignorable,
            fails,
            no_victims,
        )

    def name(self) -> str:
        return "fakeExtender"

    def is_ignorable(self) -> bool:
        return self.ignorable

    def supports_preemption(self) -> bool:
        return self.supports

    def is_interested(self, pod: Any) -> bool:
        return pod is not None

    def process_preemption(self, pod: Any, victims: dict, node_lister: Any) -> dict:
        if self.fails:
            raise RuntimeError("extender preempt error")
        if self.no_victims:
            return {"mock": Victims()}
        return victims


def describe(status: Status | None) -> tuple[Code, str] | None:
    return None if status is None else (status.code, status.message())


VICTIM = pod("victim", node="node1", priority=MID_PRIORITY)


def node1_candidates() -> list[Candidate]:
    return [Candidate("node1", Victims([VICTIM]))]


@pytest.mark.parametrize(
    ("extenders", "candidates", "want_status", "want"),
    [
        ([], node1_candidates(), None, [("node1", 1)]),
        ([PreemptingExtender()], node1_candidates(), None, [("node1", 1)]),
        (
            [PreemptingExtender(no_victims=True)],
            node1_candidates(),
            Status.error('expected at least one victim pod on node "mock"'),
            [],
        ),
        ([PreemptingExtender(supports=False)], node1_candidates(), None, [("node1", 1)]),
        ([PreemptingExtender(no_victims=True, ignorable=True)], node1_candidates(), None, []),
        (
            [PreemptingExtender(fails=True, ignorable=True)],
            node1_candidates(),
            None,
            [("node1", 1)],
        ),
        (
            [PreemptingExtender(fails=True)],
            node1_candidates(),
            Status.error("extender preempt error"),
            [],
        ),
        ([PreemptingExtender()], [], None, []),
    ],
    ids=[
        "no extenders",
        "an extender that supports preemption keeps the candidates",
        "an extender returning a node without victims is an error",
        "an extender without preemption support is not asked",
        "an ignorable extender's node without victims is dropped",
        "an ignorable extender's error is skipped",
        "an extender's error is returned",
        "no candidates to begin with",
    ],
)
def test_extenders_narrow_the_candidates(extenders, candidates, want_status, want) -> None:
    preemptor = pod("preemptor", priority=HIGH_PRIORITY)
    fwk = new_framework([preemptor], [node("node1", VERY_LARGE)], extenders=extenders)
    ev = evaluator(fwk, FirstPodIsVictim(1, []))

    got, status = ev.call_extenders(preemptor, candidates)

    assert describe(status) == describe(want_status)
    assert [(c.name, len(c.victims.pods)) for c in got] == want


# -- the default node choice (pickOneNodeForPreemption) -----------------------------------------


def victims(*specs: tuple[int, int | None], violations: int = 0) -> Victims:
    return Victims(
        [pod(f"v{i}", priority=prio, start=start) for i, (prio, start) in enumerate(specs)],
        violations,
    )


@pytest.mark.parametrize(
    ("nodes_to_victims", "expected"),
    [
        ({}, ""),
        ({"a": victims((LOW_PRIORITY, 1))}, "a"),
        (
            {
                "a": victims((LOW_PRIORITY, 1), violations=1),
                "b": victims((MID_PRIORITY, 1), (MID_PRIORITY, 1)),
            },
            "b",
        ),
        (
            {"a": victims((MID_PRIORITY, 1)), "b": victims((LOW_PRIORITY, 1), (LOW_PRIORITY, 1))},
            "b",
        ),
        (
            {
                "a": victims((MID_PRIORITY, 1), (NEG_PRIORITY, 1), (NEG_PRIORITY, 1)),
                "b": victims((MID_PRIORITY, 1), (NEG_PRIORITY, 1)),
            },
            "b",
        ),
        (
            {
                "a": victims((MID_PRIORITY, 1), (LOW_PRIORITY, 1)),
                "b": victims((MID_PRIORITY, 1), (LOW_PRIORITY, 1)),
                "c": victims((MID_PRIORITY, 3), (LOW_PRIORITY, 1)),
            },
            "c",
        ),
        (
            {"a": victims((MID_PRIORITY, 1)), "b": victims((MID_PRIORITY, 1))},
            "a",
        ),
        (
            {"a": victims((MID_PRIORITY, None)), "b": victims((MID_PRIORITY, None))},
            "b",
        ),
    ],
    ids=[
        "no nodes",
        "a single node",
        "fewest PDB violations first",
        "then the lowest highest-priority victim",
        "then the smallest sum, negative priorities shifted",
        "then the latest start of the highest-priority victims",
        "then the first node",
        "without start times the node read last looks newest",
    ],
)
def test_the_default_choice_follows_upstreams_criteria(
    nodes_to_victims: dict[str, Victims], expected: str
) -> None:
    times = StartTimes(FakeClock(1_700_000_000.0))

    assert pick_one_node_for_preemption(nodes_to_victims, None, times) == expected


def test_fewest_victims_decides_when_sums_are_equal() -> None:
    shifted = MAX_INT32 + 1
    # Two victims at -shifted/2 each sum (after the shift) to the same as one victim at 0.
    half = -(shifted // 2)
    nodes_to_victims = {
        "a": Victims([pod("a1", priority=half), pod("a2", priority=half)]),
        "b": Victims([pod("b1", priority=half), pod("b2", priority=half)]),
        "c": Victims([pod("c1", priority=half)]),
    }

    assert pick_one_node_for_preemption(nodes_to_victims, None, StartTimes()) == "c"


# -- early failures of Preempt ----------------------------------------------------------------


def test_a_preemptor_missing_from_the_cluster_is_an_error() -> None:
    fwk = new_framework([], [node("node1")])
    ev = evaluator(fwk, FirstPodIsVictim())

    result, status = ev.preempt(CycleState(), pod("gone"), NodeToStatus())

    assert result is None
    assert (status.code, status.message()) == (Code.ERROR, 'pod "gone" not found')


def test_a_cluster_without_nodes_is_an_error() -> None:
    preemptor = pod("p", priority=HIGH_PRIORITY)
    fwk = new_framework([], [], objects=[preemptor])
    ev = evaluator(fwk, FirstPodIsVictim())

    result, status = ev.preempt(CycleState(), preemptor, NodeToStatus())

    assert result is None
    assert (status.code, status.message()) == (Code.ERROR, "no nodes available")


def test_an_ineligible_preemptor_keeps_its_nomination() -> None:
    class Never(FirstPodIsVictim):
        def pod_eligible_to_preempt_others(self, pod: Any, status: Any) -> tuple[bool, str]:
            return False, "not today"

    preemptor = pod("p", priority=HIGH_PRIORITY)
    fwk = new_framework([], [node("node1")], objects=[preemptor])

    result, status = evaluator(fwk, Never()).preempt(CycleState(), preemptor, NodeToStatus())

    assert result is None
    assert status == Status(Code.UNSCHEDULABLE, "not today")


def test_dry_run_errors_are_aggregated_when_no_node_is_a_candidate() -> None:
    class Failing(FirstPodIsVictim):
        def select_victims_on_node(self, state, pod, node_info, pdbs):
            return [], 0, Status.error(f"boom on {node_info.node_name}")

    pods = [pod("p1", node="node1", priority=LOW_PRIORITY), pod("p2", node="node2")]
    preemptor = pod("p", priority=HIGH_PRIORITY)
    fwk = new_framework(pods, [node("node1"), node("node2")], objects=[preemptor])
    statuses = NodeToStatus({n: Status(Code.UNSCHEDULABLE) for n in ("node1", "node2")})

    result, status = evaluator(fwk, Failing()).preempt(CycleState(), preemptor, statuses)

    assert result is None
    assert status.message() == "[boom on node1, boom on node2]"


def test_a_candidate_without_victims_is_an_error_for_that_node() -> None:
    class NoVictims(FirstPodIsVictim):
        def select_victims_on_node(self, state, pod, node_info, pdbs):
            return [], 0, None

    fwk = new_framework([pod("p1", node="node1")], [node("node1")])
    node_infos = fwk.snapshot_shared_lister().list()

    candidates, statuses, err = evaluator(fwk, NoVictims()).dry_run_preemption(
        CycleState(), pod("p", priority=HIGH_PRIORITY), node_infos, [], 0, 1
    )

    assert candidates == []
    assert str(err) == 'expected at least one victim pod on node "node1"'
    assert statuses.get("node1").code == Code.ERROR


# -- ties upstream breaks by Go's map order ---------------------------------------------------


@pytest.mark.parametrize(
    ("nodes_to_victims", "expected"),
    [
        ({"a": victims((MID_PRIORITY, None))}, ["a"]),
        (
            {"a": victims((MID_PRIORITY, None)), "b": victims((MID_PRIORITY, None))},
            ["a", "b"],
        ),
        (
            {
                "a": victims((MID_PRIORITY, None)),
                "b": victims((MID_PRIORITY, 5)),
                "c": victims((MID_PRIORITY, None)),
            },
            ["a", "c"],
        ),
        (
            {"a": victims((MID_PRIORITY, 3)), "b": victims((MID_PRIORITY, 3))},
            ["a", "b"],
        ),
        (
            {"a": victims((MID_PRIORITY, 3)), "b": victims((MID_PRIORITY, 4))},
            ["b"],
        ),
        (
            {"a": victims((LOW_PRIORITY, None)), "b": victims((MID_PRIORITY, None))},
            ["a"],
        ),
    ],
    ids=[
        "a single node",
        "victims without start times on both nodes",
        "a recorded start loses to now",
        "equal recorded starts",
        "different recorded starts are no tie",
        "an earlier criterion decides",
    ],
)
def test_tied_nodes_are_those_only_go_map_order_separates(
    nodes_to_victims: dict[str, Victims], expected: list[str]
) -> None:
    assert tied_nodes_for_preemption(nodes_to_victims, None) == expected


def test_custom_score_functions_define_the_ties() -> None:
    nodes_to_victims = {"a": victims((MID_PRIORITY, 1)), "b": victims((LOW_PRIORITY, 9))}

    assert tied_nodes_for_preemption(nodes_to_victims, [lambda node: 0]) == ["a", "b"]


@pytest.mark.parametrize(
    ("recorded", "expected"),
    [("node2", "node2"), ("node1", "node1"), ("node3", None)],
    ids=[
        "the tie breaker may pick another tied node",
        "the tie breaker may keep the pick",
        "a node that is not a candidate is ignored",
    ],
)
def test_a_tie_breaker_replays_a_recorded_choice(recorded: str, expected: str | None) -> None:
    pods = [
        pod("p1", node="node1", priority=MID_PRIORITY),
        pod("p2", node="node2", priority=MID_PRIORITY),
    ]
    preemptor = pod("p", priority=HIGH_PRIORITY)
    fwk = new_framework(pods, [node("node1"), node("node2")], objects=[preemptor])
    ev = evaluator(fwk, FirstPodIsVictim())
    calls = []

    def tie_breaker(pod: Any, tied: list[str], pick: str) -> str:
        calls.append((pod.name, tied, pick))
        return recorded

    ev.tie_breaker = tie_breaker
    statuses = NodeToStatus({n: Status(Code.UNSCHEDULABLE) for n in ("node1", "node2")})

    result, _ = ev.preempt(CycleState(), preemptor, statuses)

    (call,) = calls
    assert call[:2] == ("p", ["node1", "node2"])
    chosen = result.nominating_info.nominated_node_name
    assert chosen == (expected or call[2])
    assert fwk.cluster().deleted() == ["p1" if chosen == "node1" else "p2"]
