"""The scheduling cycle with HTTP extenders: upstream's TestSchedulerWithExtenders, over HTTP.

Each fake extender is a scripted server answering like upstream's ``FakeExtender``: predicates
decide Filter (``FakeExtender: node "<name>" failed`` for a node that fails), prioritizers
(weighted) decide Prioritize, and Bind accepts.
"""

from __future__ import annotations

import random
from contextlib import ExitStack
from dataclasses import dataclass, field

import pytest

from framework.backend.cache.cache import Cache
from framework.backend.queue.scheduling_queue import PriorityQueue
from framework.cluster.memory import InMemoryCluster
from framework.config.types import Extender, ExtenderManagedResource
from framework.extender.http_extender import HTTPExtender
from framework.runtime.framework import Framework
from framework.runtime.registry import Registry
from framework.scheduler.scheduler import Scheduler
from framework.testing.fake_plugins import FakeBind, FakeFilter, FakeQueueSort, FakeScore
from framework.util.clock import FakeClock
from tests.framework.builders import make_node, make_pod
from tests.framework.extender.servers import ScriptedServer, serving
from tests.framework.runtime.helpers import minimal, profile

# -- upstream's FakeExtender predicates and prioritizers ----------------------------------------


def true_predicate(node: str) -> str:
    return "ok"


def false_predicate(node: str) -> str:
    return "unschedulable"


def error_predicate(node: str) -> str:
    return "error"


def node1_predicate(node: str) -> str:
    return "ok" if node == "node1" else "unschedulable"


def node2_predicate(node: str) -> str:
    return "ok" if node == "node2" else "unschedulable"


def error_prioritizer(nodes: list[str]) -> dict[str, int]:
    raise RuntimeError("some error")


def node1_prioritizer(nodes: list[str]) -> dict[str, int]:
    return {n: 10 if n == "node1" else 1 for n in nodes}


def node2_prioritizer(nodes: list[str]) -> dict[str, int]:
    return {n: 10 if n == "node2" else 1 for n in nodes}


@dataclass
class FakeExtender:
    """What one scripted extender does, and how the scheduler is configured to call it."""

    predicates: list = field(default_factory=list)
    prioritizers: list = field(default_factory=list)  # (function, weight)
    weight: int = 0
    uninterested: bool = False
    ignorable: bool = False
    binder: bool = False

    def respond(self, verb: str, args: dict):
        if verb == "filter":
            return self._filter(args["NodeNames"])
        if verb == "prioritize":
            return self._prioritize(args["NodeNames"])
        return {"Error": ""}

    def _filter(self, nodes: list[str]) -> dict:
        passed, failed = [], {}
        for node in nodes:
            verdicts = [predicate(node) for predicate in self.predicates]
            if "error" in verdicts:
                return {"Error": "some error"}
            if "unschedulable" in verdicts:
                failed[node] = f'FakeExtender: node "{node}" failed'
            else:
                passed.append(node)
        return {"NodeNames": passed, "FailedNodes": failed}

    def _prioritize(self, nodes: list[str]):
        combined: dict[str, int] = {}
        for function, weight in self.prioritizers:
            try:
                scores = function(nodes)
            except RuntimeError:
                return {"Error": "some error"}  # not a HostPriorityList: Prioritize fails
            for node, score in scores.items():
                combined[node] = combined.get(node, 0) + score * weight
        return [{"Host": node, "Score": score} for node, score in combined.items()]

    def config(self, url: str) -> Extender:
        return Extender(
            url_prefix=url,
            filter_verb="filter" if self.predicates else "",
            prioritize_verb="prioritize" if self.prioritizers else "",
            bind_verb="bind" if self.binder else "",
            weight=self.weight,
            node_cache_capable=True,
            ignorable=self.ignorable,
            managed_resources=[ExtenderManagedResource("example.com/unused")]
            if self.uninterested
            else [],
        )


# -- the scheduler -----------------------------------------------------------------------------

TRUE_FILTER = FakeFilter("TrueFilter")


def scheduler_with(plugins, points, extenders, nodes=("node1", "node2")):
    clock = FakeClock()
    registry = Registry()
    registry.register("QS", FakeQueueSort("QS").factory())
    binder = FakeBind("Binder")
    registry.register("Binder", binder.factory())
    for plugin in plugins:
        registry.register(plugin.name, plugin.factory())
    framework = Framework(registry, profile(**minimal(**points)), extenders=extenders, clock=clock)
    cluster = InMemoryCluster(make_node(n) for n in nodes)
    attempts = []
    scheduler = Scheduler(
        {"default-scheduler": framework},
        PriorityQueue.from_frameworks([framework], clock=clock),
        Cache(),
        cluster=cluster,
        clock=clock,
        rng=random.Random(0),
        extenders=extenders,
        on_attempt=attempts.append,
    )
    scheduler.start()
    return scheduler, attempts, binder


@dataclass
class Case:
    plugins: list
    points: dict
    extenders: list
    nodes: tuple = ("node1", "node2")
    want: tuple = ()  # (result, node, evaluated nodes, feasible nodes, message)


EQUAL = FakeScore("EqualPrioritizerPlugin", default=1)
NODE2_PRIORITIZER = FakeScore("Node2Prioritizer", scores={"node2": 100}, default=10)
FILTER_ONLY = {"filter": ["TrueFilter"]}
UNSCHEDULABLE_ON_BOTH = (
    "0/2 nodes are available: "
    '1 FakeExtender: node "node1" failed, 1 FakeExtender: node "node2" failed.'
)

CASES = {
    "test 1: an extender's filter error fails the cycle": Case(
        [TRUE_FILTER],
        FILTER_ONLY,
        [FakeExtender([true_predicate]), FakeExtender([error_predicate])],
        want=("Error", None, 0, 0, "some error"),
    ),
    "test 2: an extender failing every node makes the pod unschedulable": Case(
        [TRUE_FILTER],
        FILTER_ONLY,
        [FakeExtender([true_predicate]), FakeExtender([false_predicate])],
        want=("Unschedulable", None, 2, 0, UNSCHEDULABLE_ON_BOTH),
    ),
    "test 3: the only node an extender lets pass is chosen": Case(
        [TRUE_FILTER, EQUAL],
        {**FILTER_ONLY, "score": [("EqualPrioritizerPlugin", 1)]},
        [FakeExtender([true_predicate]), FakeExtender([node1_predicate])],
        want=("Scheduled", "node1", 2, 1, ""),
    ),
    "test 4: extenders passing different nodes leave none": Case(
        [TRUE_FILTER],
        FILTER_ONLY,
        [FakeExtender([node2_predicate]), FakeExtender([node1_predicate])],
        want=(
            "Unschedulable",
            None,
            2,
            0,
            '0/2 nodes are available: 1 FakeExtender: node "node1" failed, '
            '1 FakeExtender: node "node2" failed.',
        ),
    ),
    "test 5: a prioritize error is ignored": Case(
        [TRUE_FILTER],
        FILTER_ONLY,
        [FakeExtender([true_predicate], [(error_prioritizer, 10)], weight=1)],
        nodes=("node1",),
        want=("Scheduled", "node1", 1, 1, ""),
    ),
    "test 6: the heavier extender's preference wins": Case(
        [TRUE_FILTER],
        FILTER_ONLY,
        [
            FakeExtender([true_predicate], [(node1_prioritizer, 10)], weight=1),
            FakeExtender([true_predicate], [(node2_prioritizer, 10)], weight=5),
        ],
        want=("Scheduled", "node2", 2, 2, ""),
    ),
    "test 7: a plugin's score can outweigh an extender's": Case(
        [TRUE_FILTER, NODE2_PRIORITIZER],
        {**FILTER_ONLY, "score": [("Node2Prioritizer", 20)]},
        [FakeExtender([true_predicate], [(node1_prioritizer, 10)], weight=1)],
        want=("Scheduled", "node2", 2, 2, ""),
    ),
    "test 8: an uninterested extender is never called": Case(
        [TRUE_FILTER, NODE2_PRIORITIZER],
        {**FILTER_ONLY, "score": [("Node2Prioritizer", 1)]},
        [FakeExtender([error_predicate], [(error_prioritizer, 10)], uninterested=True)],
        want=("Scheduled", "node2", 2, 2, ""),
    ),
    "test 9: an ignorable extender's filter error is skipped": Case(
        [TRUE_FILTER, EQUAL],
        {**FILTER_ONLY, "score": [("EqualPrioritizerPlugin", 1)]},
        [FakeExtender([error_predicate], ignorable=True), FakeExtender([node1_predicate])],
        want=("Scheduled", "node1", 2, 1, ""),
    ),
    "test 10: without scoring, extender filters make every node evaluated": Case(
        [TRUE_FILTER],
        FILTER_ONLY,
        [FakeExtender([true_predicate]), FakeExtender([node1_predicate])],
        want=("Scheduled", "node1", 2, 1, ""),
    ),
    "test 11: without scoring or extender filters a single feasible node is evaluated": Case(
        [],
        {},
        [FakeExtender(binder=True)],
        want=("Scheduled", "node1", 1, 1, ""),
    ),
}


@pytest.mark.parametrize("case", CASES.values(), ids=CASES.keys())
def test_the_scheduling_cycle_calls_extenders_at_upstream_s_points(case):
    with ExitStack() as stack:
        servers = [stack.enter_context(serving(ScriptedServer(e.respond))) for e in case.extenders]
        extenders = [
            HTTPExtender(fake.config(server.url()))
            for fake, server in zip(case.extenders, servers, strict=True)
        ]
        scheduler, attempts, _ = scheduler_with(case.plugins, case.points, extenders, case.nodes)
        scheduler.cluster.add(make_pod("p"))
        scheduler.schedule_one()
    (a,) = attempts
    assert (a.result, a.node, a.evaluated_nodes, a.feasible_nodes, a.message) == case.want
    for fake, server in zip(case.extenders, servers, strict=True):
        if fake.uninterested:
            assert server.requests == []


def test_an_extender_that_binds_replaces_the_bind_plugins():
    fake = FakeExtender(binder=True)
    with serving(ScriptedServer(fake.respond)) as server:
        extender = HTTPExtender(fake.config(server.url()))
        scheduler, attempts, binder = scheduler_with([], {}, [extender])
        scheduler.cluster.add(make_pod("p", uid="uid-p"))
        scheduler.schedule_one()
    assert [(a.result, a.node) for a in attempts] == [("Scheduled", "node1")]
    assert [r.body for r in server.requests] == [
        {"PodName": "p", "PodNamespace": "default", "PodUID": "uid-p", "Node": "node1"}
    ]
    assert binder.calls == []


def test_extender_scores_are_scaled_weighted_and_added_to_the_plugins_totals():
    fake = FakeExtender([true_predicate], [(node1_prioritizer, 1)], weight=3)
    with serving(ScriptedServer(fake.respond)) as server:
        extender = HTTPExtender(fake.config(server.url()))
        scheduler, attempts, _ = scheduler_with(
            [TRUE_FILTER, NODE2_PRIORITIZER],
            {**FILTER_ONLY, "score": [("Node2Prioritizer", 2)]},
            [extender],
        )
        scheduler.cluster.add(make_pod("p"))
        scheduler.schedule_one()
    # plugin: node1 10 * 2, node2 100 * 2; extender: score * weight 3 * (100 / 10)
    assert attempts[0].final_scores == {"node1": 20 + 10 * 3 * 10, "node2": 200 + 1 * 3 * 10}
    assert attempts[0].node == "node1"
