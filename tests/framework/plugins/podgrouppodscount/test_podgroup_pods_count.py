"""PodGroupPodsCount: the facts of upstream's podgroup_pods_count_test.go (TestScorePlacement,
TestNormalizePlacementScore), with the cache's pod-group states and a snapshot underneath."""

from __future__ import annotations

import pytest

from framework.backend.cache.cache import Cache
from framework.backend.cache.snapshot import Snapshot
from framework.interface.cycle_state import CycleState
from framework.interface.placement import Placement, PlacementScore, PodGroupAssignments
from framework.interface.pod_group_info import PodGroupInfo
from framework.plugins.feature import Features
from framework.plugins.podgrouppodscount.podgroup_pods_count import PodGroupPodsCount
from framework.runtime.framework import Framework
from framework.runtime.registry import Registry
from framework.testing.fake_plugins import FakeProposedAssignment
from tests.framework.builders import make_pod

GROUP = PodGroupInfo("default", "pg1")


def member(name: str, node_name: str = ""):
    pod = make_pod(name, "default", uid=name, schedulingGroup={"podGroupName": "pg1"})
    pod.spec.node_name = node_name
    return pod


PROPOSED = [
    FakeProposedAssignment(member("proposed-pod-1"), "node1"),
    FakeProposedAssignment(member("proposed-pod-2"), "node2"),
]


@pytest.mark.parametrize(
    ("assigned", "assumed", "want"),
    [
        ([member("p2", "node2"), member("p3", "node3")], [member("p1", "node1")], 5),
        ([member("p1", "node1")], [], 3),
        ([], [member("p1", "node1")], 3),
        ([], [], 2),
    ],
    ids=[
        "existing assigned and assumed pods",
        "no assumed pods",
        "no assigned pods",
        "no assigned pods, no assumed pods",
    ],
)
def test_a_placement_scores_the_scheduled_members_and_those_proposed_there(assigned, assumed, want):
    cache = Cache(generic_workload_enabled=True)
    for pod in assigned:
        cache.add_pod(pod)
    for pod in assumed:
        cache.add_pod_group_member(pod)
        cache.assume_pod(pod)
    for proposed in PROPOSED:
        cache.add_pod_group_member(proposed.pod)
    snapshot = Snapshot()
    cache.update_snapshot(snapshot)
    handle = Framework(Registry(), None, snapshot_shared_lister=snapshot)
    plugin = PodGroupPodsCount(None, handle, Features())

    score, status = plugin.score_placement(
        CycleState(), GROUP, PodGroupAssignments(Placement(), list(PROPOSED))
    )
    assert (score, status) == (want, None)


@pytest.mark.parametrize(
    ("scores", "want"),
    [
        ([10, 50, 110], [9, 45, 100]),
        ([50, 50], [100, 100]),
        ([50], [100]),
        ([11, 100, 101, 102], [10, 98, 99, 100]),
    ],
    ids=[
        "distinct scores",
        "equal scores",
        "single score",
        "some minimal score that is far from a group of scores located closely",
    ],
)
def test_scores_are_normalized_against_the_highest_count_only(scores, want):
    placement_scores = [PlacementScore(None, score) for score in scores]
    status = PodGroupPodsCount(None, None, Features()).normalize_placement_score(
        CycleState(), GROUP, placement_scores
    )
    assert status is None
    assert [s.score for s in placement_scores] == want


def test_no_member_anywhere_cannot_be_normalized():
    status = PodGroupPodsCount(None, None, Features()).normalize_placement_score(
        CycleState(), GROUP, [PlacementScore(None, 0), PlacementScore(None, 0)]
    )
    assert status.message() == (
        "no pods from pod group are assigned to any of the candidate placements"
    )
