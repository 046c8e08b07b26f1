"""The batch cache (framework/runtime/batch.py), ported from upstream's batch_test.go.

Each case lets the batch handle a first pod, then asks it for a hint for a second pod and
stores the second pod's results, as the scheduler does. A filter plugin makes every node hold
at most one "blocking" pod (uid starting with b), so two blocking pods go one per node and the
node the first pod took no longer fits the second.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import pytest

from framework.features import FeatureGates
from framework.interface.cycle_state import CycleState
from framework.interface.plugins import FilterPlugin
from framework.interface.status import Code, Status
from framework.metrics import (
    BATCH_ATTEMPTS_TOTAL,
    BATCH_CACHE_FLUSHED_TOTAL,
    Metrics,
)
from framework.runtime.batch import MAX_BATCH_AGE
from framework.util.clock import FakeClock
from tests.framework.builders import StaticLister, make_node_info, make_pod
from tests.framework.runtime.helpers import framework_of


def blocking_pod_id(suffix: str) -> str:
    return f"b-{suffix}"


def non_blocking_pod_id(suffix: str) -> str:
    return f"a-{suffix}"


class BatchTestPlugin(FilterPlugin):
    """A node holds at most one pod whose uid starts with b."""

    name = "batchTest"

    def filter(self, state: CycleState, pod: Any, node_info: Any) -> Status | None:
        if pod.uid.startswith("b") and any(p.pod.uid.startswith("b") for p in node_info.pods):
            return Status(Code.UNSCHEDULABLE, "unsched")
        return None

    def factory(self) -> Any:
        return lambda args, handle: self


@dataclass
class SortedNodes:
    """A plain list standing in for the scheduler's heap (upstream testSortedScoredNodes)."""

    nodes: list[str] = field(default_factory=list)

    def pop(self) -> str:
        return self.nodes.pop(0)

    def __len__(self) -> int:
        return len(self.nodes)


@dataclass
class Case:
    name: str
    first_pod_id: str
    first_sig: str
    first_scheduled: bool
    first_chosen_node: str
    first_other_nodes: SortedNodes | None
    second_pod_id: str
    second_sig: str
    second_chosen_node: str
    expected_hint: str
    skip_pod: bool = False
    second_other_nodes: SortedNodes | None = None
    expected_state: tuple[str, list[str]] | None = None


CASES = [
    Case(
        "a second pod with the same signature gets a hint",
        blocking_pod_id("1"), "sig", True, "n3", SortedNodes(["n1"]),
        blocking_pod_id("2"), "sig", "n1", expected_hint="n1",
    ),
    Case(
        "a second pod with a different signature doesn't get a hint",
        non_blocking_pod_id("1"), "sig", True, "n3", SortedNodes(["n1"]),
        non_blocking_pod_id("2"), "sig2", "n1", expected_hint="",
    ),
    Case(
        "a second pod doesn't get a hint if it's not 1-pod-per-node",
        non_blocking_pod_id("1"), "sig", True, "n3", SortedNodes(["n1"]),
        non_blocking_pod_id("2"), "sig", "n1", expected_hint="",
    ),
    Case(
        "pod doesn't get hint if previous pod didn't scheduled",
        blocking_pod_id("1"), "sig", False, "n3", SortedNodes(["n1"]),
        blocking_pod_id("2"), "sig", "n1", expected_hint="",
    ),
    Case(
        "empty list",
        blocking_pod_id("1"), "sig", True, "n3", SortedNodes([]),
        blocking_pod_id("2"), "sig", "n4", expected_hint="",
    ),
    Case(
        "nil list",
        blocking_pod_id("1"), "sig", True, "n3", None,
        blocking_pod_id("2"), "sig", "n4", expected_hint="",
    ),
    Case(
        "pod doesn't get hint because the previous pod is to a different profile",
        blocking_pod_id("1"), "sig", True, "n3", SortedNodes(["n1"]),
        blocking_pod_id("2"), "sig", "n1", expected_hint="", skip_pod=True,
    ),
    Case(
        "pod uses batch from preceding pod and leaves remaining batch to next pod",
        blocking_pod_id("1"), "sig", True, "n3", SortedNodes(["n1", "n2"]),
        blocking_pod_id("2"), "sig", "n1", expected_hint="n1",
        expected_state=("sig", ["n2"]),
    ),
]  # fmt: skip


def new_batch_test_framework(clock: FakeClock | None = None, metrics: Metrics | None = None):
    framework = framework_of(
        [BatchTestPlugin()],
        points={"filter": ["batchTest"]},
        clock=clock or FakeClock(0.0),
        metrics=metrics or Metrics(),
    )
    lister = StaticLister([])
    framework.set_snapshot_shared_lister(lister)
    return framework, lister


@pytest.mark.parametrize("case", CASES, ids=lambda c: c.name)
def test_batch_basic(case: Case):
    framework, lister = new_batch_test_framework()
    batch = framework.batch
    pod = make_pod("pod", uid=case.first_pod_id)
    state = CycleState()

    hint = batch.get_node_hint(pod, case.first_sig.encode(), state, 1)
    assert hint == ""
    if case.first_scheduled:
        batch.store_schedule_results(
            case.first_sig.encode(), hint, case.first_chosen_node, case.first_other_nodes, 1
        )

    cycle_count = 3 if case.skip_pod else 2
    pod2 = make_pod("pod2", uid=case.second_pod_id)
    lister._node_infos = [make_node_info(case.first_chosen_node, pod)]

    hint = batch.get_node_hint(pod2, case.second_sig.encode(), state, cycle_count)
    assert hint == case.expected_hint

    batch.store_schedule_results(
        case.second_sig.encode(),
        hint,
        case.second_chosen_node,
        case.second_other_nodes,
        cycle_count,
    )
    empty = batch.state is None or len(batch.state.sorted_nodes) == 0
    assert empty == (case.expected_state is None)
    if case.expected_state is not None:
        signature, nodes = case.expected_state
        assert batch.state.signature == signature.encode()
        assert batch.state.sorted_nodes.nodes == nodes


def attempts(metrics: Metrics) -> dict[str, float]:
    return {dict(k)["result"]: v for k, v in metrics.series(BATCH_ATTEMPTS_TOTAL).items()}


def flushes(metrics: Metrics) -> dict[str, float]:
    return {dict(k)["reason"]: v for k, v in metrics.series(BATCH_CACHE_FLUSHED_TOTAL).items()}


def stored_batch(clock: FakeClock, metrics: Metrics, other_nodes: list[str]):
    """A batch that stored a blocking pod's results on n3, and the lister showing n3."""
    framework, lister = new_batch_test_framework(clock, metrics)
    first = make_pod("pod", uid=blocking_pod_id("1"))
    framework.batch.get_node_hint(first, b"sig", CycleState(), 1)
    framework.batch.store_schedule_results(b"sig", "", "n3", SortedNodes(other_nodes), 1)
    lister._node_infos = [make_node_info("n3", first)]
    return framework.batch


def test_a_hint_used_is_counted_and_the_rest_of_the_ranking_kept():
    metrics, clock = Metrics(), FakeClock(0.0)
    batch = stored_batch(clock, metrics, ["n1", "n2"])
    second = make_pod("pod2", uid=blocking_pod_id("2"))
    assert batch.get_node_hint(second, b"sig", CycleState(), 2) == "n1"
    batch.store_schedule_results(b"sig", "n1", "n1", None, 2)
    assert attempts(metrics) == {"no_hint": 1, "hint_used": 1}
    assert flushes(metrics) == {}
    assert batch.batched_pods == 1
    assert batch.state.sorted_nodes.nodes == ["n2"]


def test_a_hint_not_used_is_counted_and_the_new_ranking_stored():
    metrics = Metrics()
    batch = stored_batch(FakeClock(0.0), metrics, ["n1", "n2"])
    second = make_pod("pod2", uid=blocking_pod_id("2"))
    assert batch.get_node_hint(second, b"sig", CycleState(), 2) == "n1"
    batch.store_schedule_results(b"sig", "n1", "n5", SortedNodes(["n6"]), 2)
    assert attempts(metrics) == {"no_hint": 1, "hint_not_used": 1}
    assert batch.state.sorted_nodes.nodes == ["n6"]


@pytest.mark.parametrize(
    ("name", "signature", "cycle", "age", "node", "uid", "reason"),
    [
        ("another pod in between", b"sig", 3, 0.0, "n3", "b-2", "pod_skipped"),
        ("another signature", b"other", 2, 0.0, "n3", "b-2", "pod_incompatible"),
        ("an unsigned pod", None, 2, 0.0, "n3", "b-2", "pod_incompatible"),
        ("a ranking older than 500ms", b"sig", 2, MAX_BATCH_AGE + 0.001, "n3", "b-2", "expired"),
        ("the chosen node is gone", b"sig", 2, 0.0, "gone", "b-2", "node_missing"),
        ("the chosen node still fits", b"sig", 2, 0.0, "n3", "a-2", "node_not_full"),
    ],
)
def test_each_reason_to_give_up_the_ranking_is_counted(
    name, signature, cycle, age, node, uid, reason
):
    metrics, clock = Metrics(), FakeClock(0.0)
    batch = stored_batch(clock, metrics, ["n1"])
    batch.last_cycle.chosen_node = node
    clock.step(age)
    pod = make_pod("pod2", uid=uid)
    assert batch.get_node_hint(pod, signature, CycleState(), cycle) == ""
    assert flushes(metrics) == {reason: 1}
    assert attempts(metrics) == {"no_hint": 2}


def test_a_ranking_exactly_500ms_old_is_still_used():
    clock = FakeClock(0.0)
    batch = stored_batch(clock, Metrics(), ["n1"])
    clock.step(MAX_BATCH_AGE)
    assert batch.get_node_hint(make_pod("p2", uid="b-2"), b"sig", CycleState(), 2) == "n1"


@pytest.mark.parametrize(
    ("signature", "others", "reason"),
    [(None, ["n1"], "pod_not_batchable"), (b"sig", [], "empty_list")],
)
def test_results_that_cannot_be_stored_flush_the_ranking(signature, others, reason):
    metrics = Metrics()
    batch = stored_batch(FakeClock(0.0), metrics, ["n1"])
    batch.store_schedule_results(signature, "", "n4", SortedNodes(others), 2)
    assert batch.state is None
    assert flushes(metrics) == {reason: 1}


def test_without_the_gate_a_framework_has_no_batch_and_signs_nothing():
    framework = framework_of(
        [BatchTestPlugin()],
        points={"filter": ["batchTest"]},
        features=FeatureGates({"OpportunisticBatching": False}),
    )
    assert framework.batch is None
    assert framework.sign_pod(make_pod()) is None
