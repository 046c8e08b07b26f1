"""Pod group states: the facts of upstream's podgroupstate_test.go, and the cache and snapshot
keeping them (cache.go, snapshot.go with the GenericWorkload gate)."""

from __future__ import annotations

import pytest

from framework.backend.cache.cache import Cache
from framework.backend.cache.pod_group_state import (
    PodGroupState,
    PodGroupStateNotFoundError,
    next_pod_group_generation,
)
from framework.backend.cache.snapshot import Snapshot, new_snapshot
from framework.interface.node_info import PodInfo
from tests.framework.backend.cache.helpers import pod as make_pod
from tests.framework.builders import make_node


def member(name: str, node_name: str = "", group: str = "pg", namespace: str = "ns1"):
    return make_pod(name, node_name, namespace=namespace, schedulingGroup={"podGroupName": group})


def on(pod, node_name: str):
    """The pod as the scheduler assumes it: with the node it picked."""
    copy = pod.deep_copy()
    copy.spec.node_name = node_name
    return copy


def test_assuming_and_forgetting_moves_a_pod_between_unscheduled_and_assumed():
    state = PodGroupState()
    pod = member("p1")
    state.add_pod(pod)
    assert (state.assumed_pod_uids(), state.unscheduled_pods) == ([], {"p1"})
    state.assume_pod(pod)
    assert (state.assumed_pod_uids(), state.unscheduled_pods) == (["p1"], set())
    state.forget_pod(pod.uid)
    assert (state.assumed_pod_uids(), state.unscheduled_pods) == ([], {"p1"})


def test_a_snapshot_is_a_copy_neither_side_sees_the_others_changes():
    state = PodGroupState()
    p1, p2, p3 = member("p1"), member("p2"), member("p3")
    state.add_pod(p1)
    state.add_pod(p2)
    state.assume_pod(p2)

    copy = state.snapshot()
    assert copy.generation == state.generation
    assert copy.all_pod_uids() == ["p1", "p2"]
    assert set(copy.unscheduled()) == {"p1"}
    assert copy.assumed_pod_uids() == ["p2"]

    copy.assume_pod(p1)
    assert "p1" not in state.assumed_pods
    state.add_pod(p3)
    assert "p3" not in copy.all_pod_uids()


# Each step of upstream's TestPodGroupState_PodCounts: (operation, pod, all, scheduled).
COUNT_STEPS = [
    ("assume", "p1", 3, 2),  # unscheduled -> assumed
    ("assume", "p3", 3, 2),  # already assigned: unchanged
    ("assume", "p4", 3, 2),  # not a known member: ignored
    ("forget", "p3", 3, 2),  # assigned stays assigned
    ("forget", "p1", 3, 1),  # assumed -> unscheduled
    ("forget", "p1", 3, 1),  # not assumed: unchanged
    ("assume", "p2", 3, 2),
    ("forget", "p4", 3, 2),  # not a known member: ignored
]


def test_counts_follow_assume_and_forget_as_upstreams_table_says():
    state = PodGroupState()
    pods = {
        "p1": member("p1"),
        "p2": member("p2"),
        "p3": member("p3", node_name="node1"),
        "p4": member("p4"),
    }
    assert (state.all_pods_count(), state.scheduled_pods_count()) == (0, 0)
    for name in ("p1", "p2", "p3"):
        state.add_pod(pods[name])
    assert (state.all_pods_count(), state.scheduled_pods_count()) == (3, 1)
    for operation, name, want_all, want_scheduled in COUNT_STEPS:
        if operation == "assume":
            state.assume_pod(pods[name])
        else:
            state.forget_pod(pods[name].uid)
        got = (state.all_pods_count(), state.scheduled_pods_count())
        assert got == (want_all, want_scheduled), f"after {operation} {name}"


def test_scheduled_pods_are_the_assigned_then_the_assumed_versions_of_assumed_pods():
    state = PodGroupState()
    unscheduled, assumed, assigned = member("p1"), member("p2"), member("p3", "node1")
    for pod in (assigned, unscheduled, assumed):
        state.add_pod(pod)
    assumed_on_node2 = on(assumed, "node2")
    state.assume_pod(assumed_on_node2)

    scheduled = state.scheduled_pods()
    copy = state.snapshot()
    state.assume_pod(unscheduled)

    assert scheduled == [assigned, assumed_on_node2]
    assert copy.scheduled_pods() == [assigned, assumed_on_node2]


def test_binding_moves_a_member_to_assigned_and_deleting_forgets_it():
    state = PodGroupState()
    pod = member("p1")
    state.add_pod(pod)
    state.assume_pod(on(pod, "n1"))
    state.update_pod(pod, on(pod, "n1"))
    assert (state.assigned_pod_uids(), state.assumed_pod_uids()) == (["p1"], [])
    state.delete_pod(pod.uid)
    assert state.empty()


def test_generations_never_repeat_across_groups():
    first, second = PodGroupState(), PodGroupState()
    first.add_pod(member("p1"))
    second.add_pod(member("p2", group="other"))
    assert first.generation < second.generation < next_pod_group_generation()


# -- the cache --------------------------------------------------------------------------------


def test_the_cache_tracks_members_only_with_the_generic_workload_gate():
    off, on_ = Cache(), Cache(generic_workload_enabled=True)
    for cache in (off, on_):
        cache.add_pod_group_member(member("p1"))
    with pytest.raises(PodGroupStateNotFoundError, match="pod group state not found for pod"):
        off.pod_group_states().get("ns1", "pg")
    assert on_.pod_group_states().get("ns1", "pg").all_pods_count() == 1


def test_the_cache_moves_members_through_assume_forget_bind_and_delete():
    cache = Cache(generic_workload_enabled=True)
    cache.add_node(make_node("n1"))
    p1, p2 = member("p1"), member("p2")
    cache.add_pod_group_member(p1)
    cache.add_pod_group_member(p2)
    states = cache.pod_group_states()

    cache.assume_pod(on(p1, "n1"))
    assert states.get("ns1", "pg").assumed_pod_uids() == ["p1"]
    cache.forget_pod(on(p1, "n1"))
    assert states.get("ns1", "pg").unscheduled_pods == {"p1", "p2"}

    cache.assume_pod(on(p1, "n1"))
    cache.add_pod(on(p1, "n1"))  # the bound pod's Add event confirms it
    state = states.get("ns1", "pg")
    assert (state.assigned_pod_uids(), state.assumed_pod_uids()) == (["p1"], [])

    cache.remove_pod(on(p1, "n1"))
    cache.remove_pod_group_member(p2)
    with pytest.raises(PodGroupStateNotFoundError, match=r"for pod group ns1/pg$"):
        states.get("ns1", "pg")


def test_a_member_assumed_before_the_cache_knew_it_counts_as_scheduled():
    # Upstream stores the assumed version, which names its node, so it reads as assigned.
    cache = Cache(generic_workload_enabled=True)
    cache.add_node(make_node("n1"))
    cache.assume_pod(on(member("p1"), "n1"))
    state = cache.pod_group_states().get("ns1", "pg")
    assert (state.all_pods_count(), state.scheduled_pods_count()) == (1, 1)
    assert state.assigned_pod_uids() == ["p1"]


def test_the_snapshot_copies_changed_groups_and_drops_deleted_ones():
    cache = Cache(generic_workload_enabled=True)
    cache.add_node(make_node("n1"))
    p1, p2 = member("p1"), member("p2", group="other")
    cache.add_pod_group_member(p1)
    cache.add_pod_group_member(p2)
    snapshot = Snapshot()
    cache.update_snapshot(snapshot)
    kept = snapshot.pod_group_states().get("ns1", "other")

    cache.remove_pod_group_member(p1)
    cache.update_snapshot(snapshot)
    with pytest.raises(PodGroupStateNotFoundError):
        snapshot.pod_group_states().get("ns1", "pg")
    assert snapshot.pod_group_states().get("ns1", "other") is kept  # unchanged: not copied


def test_assuming_in_the_snapshot_leaves_the_cache_alone_and_forgetting_undoes_it():
    cache = Cache(generic_workload_enabled=True)
    cache.add_node(make_node("n1"))
    pod = member("p1")
    cache.add_pod_group_member(pod)
    snapshot = Snapshot()
    cache.update_snapshot(snapshot)

    snapshot.assume_pod(PodInfo(on(pod, "n1")))
    assert snapshot.pod_group_states().get("ns1", "pg").scheduled_pods_count() == 1
    assert cache.pod_group_states().get("ns1", "pg").scheduled_pods_count() == 0
    snapshot.forget_pod(on(pod, "n1"))
    assert snapshot.pod_group_states().get("ns1", "pg").scheduled_pods_count() == 0


def test_new_snapshot_builds_group_states_from_the_pods_with_the_gate_only():
    pods = [member("p1", "n1"), member("p2"), make_pod("plain")]
    gated = new_snapshot(pods, [make_node("n1")], generic_workload_enabled=True)
    state = gated.pod_group_states().get("ns1", "pg")
    assert (state.all_pods_count(), state.scheduled_pods_count()) == (2, 1)
    assert new_snapshot(pods, [make_node("n1")]).pod_group_state_snapshots == {}
