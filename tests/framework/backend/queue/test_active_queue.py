"""The active queue: adding, popping in QueueSort order, and reading what is pending."""

from __future__ import annotations

import pytest

from framework.backend.queue.scheduling_queue import SchedulingQueueError
from framework.interface.cluster_events import EVENT_UNSCHEDULABLE_TIMEOUT
from framework.util.clock import FakeClock

from .helpers import (
    HIGH_PRIORITY,
    MID_PRIORITY,
    START,
    UNSCHEDULABLE_CONDITION,
    AllowlistPreEnqueue,
    gated_queue,
    high_priority_nominated_pod,
    high_priority_pod,
    make_pod,
    medium_priority_pod,
    names,
    new_queue,
    queued,
    unschedulable_pod,
)


def pop_names(queue, count):
    return [queue.pop().pod.name for _ in range(count)]


def test_added_pods_pop_by_priority_and_nominations_are_recorded():
    queue, _ = new_queue()
    for pod in (medium_priority_pod(), unschedulable_pod(), high_priority_pod()):
        queue.add(pod)
    assert queue.nominator.nominated_pod_to_node == {"mppns2": "node1", "upns1": "node1"}
    assert [ref.name for ref in queue.nominator.nominated_pods["node1"]] == ["mpp", "up"]
    assert pop_names(queue, 3) == ["hpp", "mpp", "up"]
    assert len(queue.nominator.nominated_pods["node1"]) == 2, "popping keeps nominations"


def test_pop_returns_none_when_nothing_is_queued():
    queue, _ = new_queue()
    assert queue.pop() is None
    assert queue.scheduling_cycle() == 0


def test_each_pop_starts_a_scheduling_cycle_and_counts_an_attempt():
    queue, _ = new_queue()
    queue.add(medium_priority_pod())
    queue.add(high_priority_pod())
    first = queue.pop()
    assert (first.attempts, queue.scheduling_cycle()) == (1, 1)
    assert first.initial_attempt_timestamp == START
    queue.pop()
    assert queue.scheduling_cycle() == 2


def _active_directly(queue, pod_info, clock):
    queue.active_q.add(pod_info)


def _unschedulable_with_one_failure(queue, pod_info, clock):
    pod_info.unschedulable_count += 1
    queue.unschedulable_pods.add_or_update(pod_info)


def _backoff_directly(queue, pod_info, clock):
    queue.backoff_q.add(pod_info)


def _step_and_flush_backoff(queue, pod_info, clock):
    clock.step(3)
    queue.flush_backoff_q_completed()


def _step(queue, pod_info, clock):
    clock.step(3)


def _move_all(queue, pod_info, clock):
    queue.move_all_to_active_or_backoff_queue(EVENT_UNSCHEDULABLE_TIMEOUT)


@pytest.mark.parametrize(
    "operations",
    [
        [(_active_directly, "p2"), (_active_directly, "p1")],
        [
            (_unschedulable_with_one_failure, "p2"),
            (_unschedulable_with_one_failure, "p1"),
            (_step, None),
            (_move_all, None),
        ],
        [
            (_active_directly, "p2"),
            (_backoff_directly, "p1"),
            (_step_and_flush_backoff, None),
            (_move_all, None),
        ],
    ],
    ids=[
        "two pods added to the active queue pop by timestamp",
        "two pods moved from the unschedulable pool pop by timestamp",
        "a pod flushed from the backoff queue takes its place by timestamp",
    ],
)
def test_pods_of_equal_priority_pop_by_timestamp(operations):
    clock = FakeClock(START + 0.5)
    queue, _ = new_queue(clock)
    pod_infos = {
        "p1": queued(make_pod("test-pod-1", "ns1", uid="tp-1"), timestamp=clock.now()),
        "p2": queued(make_pod("test-pod-2", "ns2", uid="tp-2"), timestamp=clock.now() + 1),
    }
    for operation, operand in operations:
        operation(queue, pod_infos.get(operand), clock)
    assert len(queue.active_q) == 2
    assert names(queue.pods_in_active_q()) == ["test-pod-1", "test-pod-2"]
    assert pop_names(queue, 2) == ["test-pod-1", "test-pod-2"]


def test_a_recently_tried_pod_goes_behind_pods_of_the_same_priority():
    queue, clock = new_queue()
    for i in range(5):
        queue.add(
            make_pod(
                f"test-pod-{i}",
                "ns1",
                uid=f"tp00{i}",
                priority=HIGH_PRIORITY,
                node_name="node1",
                nominated_node_name="node1",
            )
        )
    clock.step(0.000001)
    tried = queue.pop()
    tried.unschedulable_plugins = {"plugin"}
    queue.add_unschedulable_if_not_present(tried, queue.scheduling_cycle())
    clock.step(queue.backoff_q.pod_max_backoff_seconds)
    queue.move_all_to_active_or_backoff_queue(EVENT_UNSCHEDULABLE_TIMEOUT)
    popped = [queue.pop() for _ in range(5)]
    assert popped[-1] is tried
    assert tried not in popped[:-1]


def test_a_pod_failing_again_and_again_does_not_block_a_newer_pod():
    queue, clock = new_queue()
    failing = make_pod(
        "test-pod-unscheduled",
        "ns1",
        uid="tp001",
        priority=HIGH_PRIORITY,
        nominated_node_name="node1",
        status=UNSCHEDULABLE_CONDITION,
    )
    queue.add(failing)
    assert queue.pop().pod.name == failing.name
    queue.add_unschedulable_if_not_present(queued(failing, "plugin"), queue.scheduling_cycle())
    clock.step(queue.backoff_q.pod_initial_backoff_seconds + 1)
    queue.move_all_to_active_or_backoff_queue(EVENT_UNSCHEDULABLE_TIMEOUT)
    assert queue.pop().pod.name == failing.name

    newer = make_pod(
        "test-newer-pod", "ns1", uid="tp002", priority=HIGH_PRIORITY, nominated_node_name="node1"
    )
    queue.add(newer)
    queue.add_unschedulable_if_not_present(queued(failing, "plugin"), queue.scheduling_cycle())
    clock.step(queue.backoff_q.pod_initial_backoff_seconds + 1)
    queue.move_all_to_active_or_backoff_queue(EVENT_UNSCHEDULABLE_TIMEOUT)
    assert queue.pop().pod.name == "test-newer-pod"


def test_pending_pods_lists_every_queue_with_a_summary():
    queue, _ = new_queue()
    queue.add(unschedulable_pod())
    queue.pop()
    queue.add(high_priority_pod())
    queue.pop()
    queue.add(medium_priority_pod())
    queue.add_unschedulable_if_not_present(queued(unschedulable_pod(), "plugin"), 2)
    queue.add_unschedulable_if_not_present(queued(high_priority_pod(), "plugin"), 2)

    pods, summary = queue.pending_pods()
    assert sorted(names(pods)) == ["hpp", "mpp", "up"]
    assert summary == "activeQ:1; backoffQ:0; unschedulablePods:2"

    queue.move_all_to_active_or_backoff_queue(EVENT_UNSCHEDULABLE_TIMEOUT)
    pods, summary = queue.pending_pods()
    assert sorted(names(pods)) == ["hpp", "mpp", "up"]
    assert summary == "activeQ:1; backoffQ:2; unschedulablePods:0"


@pytest.fixture
def queue_with_one_pod_everywhere():
    queue, _ = new_queue()
    queue.active_q.add(queued(make_pod("pod1")))
    queue.backoff_q.add(queued(make_pod("pod2")))
    queue.unschedulable_pods.add_or_update(queued(make_pod("pod3")))
    return queue


@pytest.mark.parametrize(
    ("name", "found"),
    [("pod1", True), ("pod2", True), ("pod3", True), ("pod4", False)],
    ids=[
        "a pod is found in the active queue",
        "a pod is found in the backoff queue",
        "a pod is found in the unschedulable pool",
        "an unknown pod is not found",
    ],
)
def test_get_pod_looks_in_every_queue(queue_with_one_pod_everywhere, name, found):
    pod_info = queue_with_one_pod_everywhere.get_pod(name, "default")
    assert (pod_info.pod.name if pod_info else None) == (name if found else None)


@pytest.mark.parametrize(
    ("pod_name", "want_popped"),
    [
        ("pod-active", True),
        ("pod-backoff", True),
        ("pod-unschedulable", True),
        ("pod-gated", False),
        ("pod-temporarily-gated", True),
        ("pod-other", False),
    ],
    ids=[
        "a pod in the active queue is popped",
        "a pod in the backoff queue is popped",
        "a pod in the unschedulable pool is popped",
        "a pod still gated stays in the unschedulable pool",
        "a pod no longer gated is popped",
        "a pod in no queue is not popped",
    ],
)
def test_pop_specific_pod_takes_that_pod_out(pod_name, want_popped):
    plugin = AllowlistPreEnqueue("foo")
    queue, _ = gated_queue(plugin, queueing_hint_map={})
    pods = {
        "pod-active": make_pod("pod-active", "ns1", uid="pod-active", labels={"foo": ""}),
        "pod-backoff": make_pod("pod-backoff", "ns1", uid="pod-backoff", labels={"foo": ""}),
        "pod-unschedulable": make_pod(
            "pod-unschedulable", "ns1", uid="pod-unschedulable", labels={"foo": ""}
        ),
        "pod-gated": make_pod("pod-gated", "ns1", uid="pod-gated"),
        "pod-temporarily-gated": make_pod(
            "pod-temporarily-gated", "ns1", uid="pod-temporarily-gated", labels={"bar": ""}
        ),
        "pod-other": make_pod("pod-other", "ns1", uid="pod-other", labels={"foo": ""}),
    }
    queue.add(pods["pod-active"])
    queue.backoff_q.add(queued(pods["pod-backoff"]))
    queue.unschedulable_pods.add_or_update(queued(pods["pod-unschedulable"]))
    queue.add(pods["pod-gated"])
    queue.add(pods["pod-temporarily-gated"])
    plugin.allowlist = ["foo", "bar"]

    pod = pods[pod_name]
    popped = queue.pop_specific_pod(pod)

    assert (popped.pod.name if popped else None) == (pod_name if want_popped else None)
    still_queued = queue.get_pod(pod.name, pod.namespace) is not None
    assert still_queued is (not want_popped and pod_name != "pod-other")
    assert (pod_name in names(queue.in_flight_pods())) is want_popped


def test_a_pod_already_queued_cannot_be_handed_back():
    queue, _ = new_queue()
    pod = medium_priority_pod()
    queue.add(pod)
    with pytest.raises(
        SchedulingQueueError, match="Pod ns2/mpp is already present in the active queue"
    ):
        queue.add_unschedulable_if_not_present(queued(pod, "plugin"), 0)
    queue.unschedulable_pods.add_or_update(queued(unschedulable_pod(), "plugin"))
    with pytest.raises(SchedulingQueueError, match="already present in unschedulable queue"):
        queue.add_unschedulable_if_not_present(queued(unschedulable_pod(), "plugin"), 0)


def test_a_pod_handed_back_without_events_waits_in_the_unschedulable_pool():
    queue, _ = new_queue()
    queue.add(unschedulable_pod())
    assert queue.pop().pod.name == "up"
    nominated = high_priority_nominated_pod()
    queue.add(nominated)
    queue.add_unschedulable_if_not_present(queued(unschedulable_pod(), "plugin"), 1)
    assert queue.pop().pod is nominated
    assert len(queue.nominator.nominated_pods) == 1
    assert names(queue.unschedulable_pod_list()) == ["up"]


def test_delete_forgets_the_pod_and_its_nomination():
    queue, _ = new_queue()
    queue.update(high_priority_pod(), high_priority_nominated_pod())
    queue.add(unschedulable_pod())
    queue.delete(high_priority_pod())
    assert names(queue.pods_in_active_q()) == ["up"]
    assert list(queue.nominator.nominated_pods) == ["node1"]
    assert [ref.name for ref in queue.nominator.nominated_pods["node1"]] == ["up"]
    queue.delete(unschedulable_pod())
    assert queue.nominator.nominated_pods == {}
    assert queue.pods_in_active_q() == []


def test_listing_groups_pods_for_the_queue_board():
    plugin = AllowlistPreEnqueue("ok")
    queue, clock = gated_queue(plugin, queueing_hint_map={})
    queue.add(make_pod("active-low", priority=1, labels={"ok": ""}))
    queue.add(make_pod("active-high", priority=MID_PRIORITY, labels={"ok": ""}))
    queue.add(make_pod("gated"))
    queue.add(make_pod("flying", priority=HIGH_PRIORITY, labels={"ok": ""}))
    flying = queue.pop()
    queue.backoff_q.add(
        queued(
            make_pod("backing-off", labels={"ok": ""}),
            "X",
            timestamp=clock.now(),
            unschedulable_count=2,
        )
    )
    queue.unschedulable_pods.add_or_update(queued(make_pod("rejected"), "NodeAffinity"))

    listing = queue.listing()

    assert names(p.pod for p in listing.active) == ["active-high", "active-low"]
    assert names(p.pod for p in listing.backoff) == ["backing-off"]
    assert listing.backoff[0].backoff_expiration == clock.now() + 2
    assert [(p.pod.name, p.unschedulable_plugins) for p in listing.unschedulable] == [
        ("rejected", {"NodeAffinity"})
    ]
    assert [(p.pod.name, p.gating_plugin) for p in listing.gated] == [("gated", "preEnqueuePlugin")]
    assert listing.in_flight == [flying]
