"""ScheduleOne end to end over an in-memory cluster with fake plugins and a fake clock."""

from __future__ import annotations

import gc
import random

import pytest

from framework.backend.cache.cache import Cache
from framework.backend.queue.scheduling_queue import PriorityQueue
from framework.cluster.memory import InMemoryCluster
from framework.interface.status import Code
from framework.interface.types import NodePluginScores
from framework.runtime.framework import Framework
from framework.runtime.registry import Registry
from framework.scheduler.scheduler import Scheduler
from framework.scheduler.select_host import SortedNodeScores
from framework.testing.fake_plugins import (
    FakeBind,
    FakeFilter,
    FakePermit,
    FakePreFilter,
    FakeQueueSort,
    FakeReserve,
    FakeScore,
)
from framework.util.clock import FakeClock
from tests.framework.builders import make_node, make_pod
from tests.framework.runtime.helpers import minimal, profile


def build(plugins, points, *, nodes=("n1", "n2", "n3"), clock=None, cluster=None):
    """A started scheduler over ``nodes`` with the given plugin instances."""
    clock = clock or FakeClock()
    registry = Registry()
    registry.register("QS", FakeQueueSort("QS").factory())
    binder = FakeBind("Binder")
    registry.register("Binder", _binding_to(binder, lambda: scheduler.cluster))
    for plugin in plugins:
        registry.register(plugin.name, plugin.factory())
    framework = Framework(registry, profile(**minimal(**points)), clock=clock)
    queue = PriorityQueue.from_frameworks([framework], clock=clock)
    cluster = cluster or InMemoryCluster(make_node(n) for n in nodes)
    attempts = []
    scheduler = Scheduler(
        {"default-scheduler": framework},
        queue,
        Cache(),
        cluster=cluster,
        clock=clock,
        rng=random.Random(0),
        on_attempt=attempts.append,
    )
    framework.cluster = lambda: cluster  # the binder below binds through it
    scheduler.start()
    return scheduler, attempts


def _binding_to(binder, cluster_of):
    """A bind plugin that also binds in the cluster, as DefaultBinder does."""

    class ClusterBinder(FakeBind):
        def bind(self, state, pod, node_name):
            status = super().bind(state, pod, node_name)
            if status is None:
                cluster_of().bind(pod.namespace, pod.name, pod.uid, node_name)
            return status

    instance = ClusterBinder(binder.name)
    return lambda args, handle: instance


def add_pod(scheduler, pod):
    scheduler.clock.step(0.001)
    scheduler.cluster.add(pod)


def test_a_pod_is_bound_to_the_best_scored_node():
    scheduler, attempts = build(
        [FakeScore("S", scores={"n1": 10, "n2": 90, "n3": 50})], {"score": ["S"]}
    )
    add_pod(scheduler, make_pod("web"))
    scheduler.run_until_idle()
    assert [(a.pod, a.result, a.node) for a in attempts] == [("default/web", "Scheduled", "n2")]
    assert scheduler.cluster.get("Pod", "web", "default").spec.node_name == "n2"
    assert attempts[0].final_scores == {"n1": 10, "n2": 90, "n3": 50}
    assert attempts[0].evaluated_nodes == 3 and attempts[0].feasible_nodes == 3


def test_a_pod_that_fits_nowhere_gets_upstreams_message_and_condition():
    scheduler, attempts = build(
        [
            FakeFilter(
                "Full", code=Code.UNSCHEDULABLE, message="Insufficient cpu", fail_nodes={"n1", "n2"}
            ),
            FakeFilter(
                "Tainted",
                code=Code.UNSCHEDULABLE_AND_UNRESOLVABLE,
                message="node(s) had untolerated taint(s)",
            ),
        ],
        {"filter": ["Full", "Tainted"]},
    )
    add_pod(scheduler, make_pod("web"))
    scheduler.run_until_idle()
    message = "0/3 nodes are available: 1 node(s) had untolerated taint(s), 2 Insufficient cpu."
    assert [(a.result, a.message) for a in attempts] == [("Unschedulable", message)]
    pod = scheduler.cluster.get("Pod", "web", "default")
    condition = pod.status.condition("PodScheduled")
    assert (condition.status, condition.reason, condition.message) == (
        "False",
        "Unschedulable",
        message,
    )
    events = [e for e in scheduler.cluster.events if e["reason"] == "FailedScheduling"]
    assert [e["note"] for e in events] == [message]
    assert scheduler.queue.unschedulable_pod_list()[0].name == "web"


def test_an_unschedulable_attempt_leaves_no_garbage_cycles():
    """A FitError outlives its attempt; were its traceback kept, the cycle's frames and every
    node's status would wait for the garbage collector (a sixth of the Preemption benchmark)."""
    scheduler, attempts = build(
        [FakeFilter("Full", code=Code.UNSCHEDULABLE, message="Insufficient cpu")],
        {"filter": ["Full"]},
    )
    add_pod(scheduler, make_pod("web"))
    gc.collect()
    gc.disable()
    try:
        scheduler.run_until_idle()
        unreachable = gc.collect()
    finally:
        gc.enable()
    assert [a.result for a in attempts] == ["Unschedulable"]
    assert unreachable == 0


def test_a_pre_filter_rejection_is_reported_once_for_all_nodes():
    scheduler, attempts = build(
        [FakePreFilter("PF", code=Code.UNSCHEDULABLE_AND_UNRESOLVABLE, message="no way")],
        {"pre_filter": ["PF"]},
    )
    add_pod(scheduler, make_pod("web"))
    scheduler.run_until_idle()
    assert attempts[0].message == "0/3 nodes are available: no way."


def test_pods_for_other_schedulers_are_ignored():
    scheduler, attempts = build([], {})
    add_pod(scheduler, make_pod("other", schedulerName="someone-else"))
    assert scheduler.run_until_idle() == 0
    assert attempts == []


def test_pods_are_tried_in_priority_then_creation_order():
    scheduler, attempts = build([], {})
    add_pod(scheduler, make_pod("low-1", priority=1))
    add_pod(scheduler, make_pod("high", priority=10))
    add_pod(scheduler, make_pod("low-2", priority=1))
    scheduler.run_until_idle()
    assert [a.pod for a in attempts] == ["default/high", "default/low-1", "default/low-2"]


def test_a_reserve_failure_unreserves_and_reports_the_chosen_node():
    calls: list = []
    reserve = FakeReserve("R", code=Code.UNSCHEDULABLE, message="taken", calls=calls)
    scheduler, attempts = build([reserve], {"reserve": ["R"]}, nodes=("n1",))
    add_pod(scheduler, make_pod("web"))
    scheduler.run_until_idle()
    assert attempts[0].result == "Unschedulable"
    assert attempts[0].message == "0/1 nodes are available: 1 taken."
    assert calls == [("R", "Reserve"), ("R", "Unreserve")]
    assert scheduler.cache.pod_count() == 0, "the assumed pod was forgotten"


def test_a_pod_waiting_at_permit_binds_once_allowed():
    scheduler, attempts = build(
        [FakePermit("Gate", code=Code.WAIT, timeout=30)], {"permit": ["Gate"]}, nodes=("n1",)
    )
    add_pod(scheduler, make_pod("web"))
    scheduler.run_until_idle()
    assert [a.result for a in attempts] == ["Waiting"]
    framework = scheduler.profiles["default-scheduler"]
    pod = scheduler.cluster.get("Pod", "web", "default")
    assert pod.status.nominated_node_name == "n1", "NominatedNodeNameForExpectation"
    framework.get_waiting_pod(pod.uid).allow("Gate")
    assert [a.result for a in attempts] == ["Waiting", "Scheduled"]
    assert scheduler.cluster.get("Pod", "web", "default").spec.node_name == "n1"


def test_a_pod_waiting_at_permit_is_rejected_when_the_timeout_passes():
    clock = FakeClock()
    scheduler, attempts = build(
        [FakePermit("Gate", code=Code.WAIT, timeout=30)],
        {"permit": ["Gate"]},
        nodes=("n1",),
        clock=clock,
    )
    add_pod(scheduler, make_pod("web"))
    scheduler.run_until_idle()
    clock.step(30)
    assert [a.result for a in attempts] == ["Waiting", "Unschedulable"]
    assert attempts[-1].message == (
        "0/1 nodes are available: 1 rejected due to timeout after waiting 30s at plugin Gate."
    )
    assert scheduler.cache.pod_count() == 0
    assert not scheduler.cluster.get("Pod", "web", "default").spec.node_name


def test_a_failed_bind_forgets_the_pod_and_requeues_it():
    scheduler, attempts = build(
        [FakeBind("Broken", code=Code.ERROR, message="api down")],
        {"bind": ["Broken"]},
        nodes=("n1",),
    )
    add_pod(scheduler, make_pod("web"))
    # One attempt: the Bind plugin fails every time, so running until idle would retry the pod
    # until run_until_idle's cycle limit (100,000 attempts, most of a minute).
    assert scheduler.run_until_idle(max_cycles=1) == 1
    assert len(attempts) == 1
    assert attempts[0].result == "Error"
    assert attempts[0].message == 'running Bind plugin "Broken": api down'
    assert scheduler.cache.pod_count() == 0
    pending = [p.name for p in scheduler.queue.pods_in_backoff_q()] + [
        p.name for p in scheduler.queue.unschedulable_pod_list()
    ]
    assert pending == ["web"]


@pytest.mark.parametrize(
    ("num_nodes", "percentage", "want"),
    [
        (50, 0, 50),
        (99, 0, 99),
        (100, 0, 100),
        (1000, 0, 420),
        (5000, 0, 500),
        (6000, 0, 300),
        (16000, 0, 800),
        (1000, 20, 200),
        (1000, 5, 100),
        (1000, 100, 1000),
    ],
    ids=lambda v: str(v),
)
def test_node_sampling_follows_upstream_figures(num_nodes, percentage, want):
    scheduler, _ = build([], {}, nodes=())
    scheduler.percentage_of_nodes_to_score = percentage
    assert scheduler.num_feasible_nodes_to_find(None, num_nodes) == want


def test_a_profile_percentage_overrides_the_global_one():
    scheduler, _ = build([], {}, nodes=())
    scheduler.percentage_of_nodes_to_score = 50
    assert scheduler.num_feasible_nodes_to_find(10, 1000) == 100


def test_filtering_stops_at_enough_feasible_nodes_and_rotates_the_start():
    filter_plugin = FakeFilter("F")
    names = [f"n{i:03d}" for i in range(200)]
    scheduler, attempts = build(
        [filter_plugin, FakeScore("S")], {"filter": ["F"], "score": ["S"]}, nodes=names
    )
    scheduler.percentage_of_nodes_to_score = 10  # 200 nodes -> 100 to find (the minimum)
    add_pod(scheduler, make_pod("a"))
    add_pod(scheduler, make_pod("b"))
    scheduler.run_until_idle()
    assert [(a.evaluated_nodes, a.feasible_nodes) for a in attempts] == [(100, 100), (100, 100)]
    assert filter_plugin.num_calls == 200
    assert scheduler.next_start_node_index == 0, "two cycles of 100 wrap around 200 nodes"


@pytest.mark.parametrize(
    ("totals", "want"),
    [
        ([5, 9, 7], "n1"),
        ([3, 3, 3], "n0"),
        ([1, 4, 4, 2], "n1"),
        ([4, 1, 2, 4, 3, 4], "n0"),
    ],
    ids=[
        "the highest total wins",
        "with all equal the first evaluated node wins",
        "ties go to the earlier node in heap order",
        "Go's heap order decides among several ties",
    ],
)
def test_host_selection_reproduces_gos_heap(totals, want):
    scores = [NodePluginScores(f"n{i}", total_score=t) for i, t in enumerate(totals)]
    assert SortedNodeScores(scores).pop() == want


def test_the_heap_pops_nodes_best_first():
    scores = [NodePluginScores(f"n{i}", total_score=t) for i, t in enumerate([2, 8, 5, 8, 1])]
    heap = SortedNodeScores(scores)
    popped = [heap.pop_score().total_score for _ in range(len(heap))]
    assert popped == [8, 8, 5, 2, 1]


@pytest.mark.parametrize("seed", range(200))
def test_the_first_pop_without_a_heap_is_gos_heap_root(seed):
    # The first pop is answered without building the heap; a second pop builds it. Both must
    # pop what Go's Init and Pop would, whatever the ties (few distinct totals, many nodes).
    rng = random.Random(seed)
    size = rng.randint(1, 40) if seed % 2 else rng.randint(100, 600)
    scores = [
        NodePluginScores(f"n{i}", total_score=rng.randint(0, 3), randomizer=rng.choice([0, 0, 1]))
        for i in range(size)
    ]
    reference = _GoHeap(scores)
    heap = SortedNodeScores(scores)
    assert [heap.pop() for _ in range(len(heap))] == [reference.pop() for _ in range(size)]


class _GoHeap:
    """container/heap's Init and Pop over (total, randomizer), largest first, as written in Go."""

    def __init__(self, scores):
        self.items = list(scores)
        for i in range(len(self.items) // 2 - 1, -1, -1):
            self._down(i, len(self.items))

    def _greater(self, i, j):
        a, b = self.items[i], self.items[j]
        return (a.total_score, a.randomizer) > (b.total_score, b.randomizer)

    def _down(self, i, n):
        """Go's down: swap with the better child (the left one unless the right is strictly
        better) while that child is strictly better, written recursively."""
        left, right = 2 * i + 1, 2 * i + 2
        if left >= n:
            return
        child = right if right < n and self._greater(right, left) else left
        if self._greater(child, i):
            self.items[i], self.items[child] = self.items[child], self.items[i]
            self._down(child, n)

    def pop(self):
        n = len(self.items) - 1
        self.items[0], self.items[n] = self.items[n], self.items[0]
        self._down(0, n)
        return self.items.pop().name
