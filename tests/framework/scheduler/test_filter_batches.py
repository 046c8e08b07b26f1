"""Finding feasible nodes in batches: the same nodes looked at, and found, as one by one."""

from __future__ import annotations

import pytest

from framework.interface.status import Code
from framework.testing.fake_plugins import FakeFilter, FakeScore
from tests.framework.builders import make_pod
from tests.framework.runtime.test_batches import BatchFilter
from tests.framework.scheduler.test_schedule_one import add_pod, build

# 200 nodes: upstream's sampling looks for 100 feasible ones (50 - 200/125 = 49 %, at least 100).
NODES = tuple(f"n{i:03d}" for i in range(200))
EVERY_THIRD = {name for i, name in enumerate(NODES) if i % 3 == 0}


def schedule_three_pods(filter_class: type[FakeFilter], fail_nodes: set[str]):
    plugin = filter_class("F", code=Code.UNSCHEDULABLE, message="no", fail_nodes=fail_nodes)
    scheduler, attempts = build(
        [plugin, FakeScore("S")], {"filter": ["F"], "score": ["S"]}, nodes=NODES
    )
    for name in ("a", "b", "c"):
        add_pod(scheduler, make_pod(name))
    scheduler.run_until_idle()
    outcome = [(a.result, a.node, a.evaluated_nodes, a.feasible_nodes) for a in attempts]
    return outcome, plugin.num_calls, scheduler.next_start_node_index


@pytest.mark.parametrize(
    "fail_nodes",
    [EVERY_THIRD, set(), set(NODES[150:])],
    ids=["every third node fails", "every node fits", "the last quarter fails"],
)
def test_batches_look_at_exactly_the_nodes_a_one_by_one_walk_looks_at(fail_nodes):
    batched = schedule_three_pods(BatchFilter, fail_nodes)
    one_by_one = schedule_three_pods(FakeFilter, fail_nodes)
    assert batched == one_by_one
    outcome, calls, _ = batched
    assert all(feasible == 100 for _, _, _, feasible in outcome)
    assert calls == sum(evaluated for _, _, evaluated, _ in outcome)
