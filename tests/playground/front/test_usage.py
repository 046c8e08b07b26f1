"""Node usage: requested against allocatable, counted as the scheduler's cache counts it."""

import pytest

from playground.front.usage import Usage, node_rows
from tests.playground.front.rows import node, pod, store


def test_requests_of_bound_pods_add_up_per_node(workspace):
    n1 = store(workspace, node("n1", cpu="4", memory="8Gi", pods="10"))
    n2 = store(workspace, node("n2"))
    pods = [
        store(workspace, pod("a", cpu="1500m", memory="1Gi", nodeName="n1")),
        store(workspace, pod("b", cpu="500m", memory="3Gi", nodeName="n1")),
    ]
    first, second = node_rows([n1, n2], pods)
    assert (first.cpu.requested, first.cpu.allocatable) == (2000, 4000)
    assert (first.memory.requested, first.memory.allocatable) == (4 << 30, 8 << 30)
    assert (first.pods.requested, first.pods.allocatable) == (2, 10)
    assert first.cpu.percent == 50
    assert second.cpu.requested == 0


def test_finished_pods_hold_nothing(workspace):
    n1 = store(workspace, node("n1"))
    done = pod("done", cpu="3", nodeName="n1")
    done["status"] = {"phase": "Succeeded"}
    (row,) = node_rows([n1], [store(workspace, done)])
    assert row.cpu.requested == 0


def test_labels_taints_and_cordons_are_shown(workspace):
    taints = [{"key": "dedicated", "value": "gpu", "effect": "NoSchedule"}]
    n1 = store(workspace, node("n1", taints=taints, unschedulable=True))
    (row,) = node_rows([n1], [])
    assert row.taints == ["dedicated=gpu:NoSchedule"]
    assert row.unschedulable
    assert row.labels == {"kubernetes.io/hostname": "n1"}


@pytest.mark.parametrize(
    ("requested", "allocatable", "percent", "level"),
    [
        (0, 4000, 0, ""),
        (3000, 4000, 75, ""),
        (3400, 4000, 85, "high"),
        (4000, 4000, 100, "full"),
        (5000, 4000, 100, "full"),
        (1, 0, 100, "full"),
        (0, 0, 0, ""),
    ],
    ids=[
        "idle",
        "below the warning line",
        "above the warning line",
        "exactly full",
        "overcommitted",
        "requests on nothing allocatable",
        "nothing either way",
    ],
)
def test_bars_are_sized_and_coloured_by_how_full_the_node_is(
    requested, allocatable, percent, level
):
    usage = Usage("cpu", requested, allocatable)
    assert (usage.percent, usage.level) == (percent, level)
