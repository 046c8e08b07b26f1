"""Backoff: how long a pod waits before its next attempt, and in which order pods come back."""

from __future__ import annotations

import pytest

from framework.backend.queue.backoff_queue import (
    BACKOFF_Q_ORDERING_WINDOW,
    NO_BACKOFF,
    BackoffQueue,
    backoff_duration_nanos,
)
from framework.features import FeatureGates
from framework.interface.cluster_events import EVENT_UNSCHEDULABLE_TIMEOUT
from framework.util.clock import FakeClock

from .helpers import (
    HIGH_PRIORITY,
    MID_PRIORITY,
    START,
    high_priority_pod,
    less,
    make_pod,
    medium_priority_pod,
    names,
    new_queue,
    queued,
    unschedulable_pod,
)

OCT_1_2023 = 1696118400.0  # 2023-10-01T00:00:00Z


@pytest.mark.parametrize(
    ("initial", "maximum", "fields", "want"),
    [
        (1, 32, {"unschedulable_count": 0}, NO_BACKOFF),
        (
            1,
            32,
            {"unschedulable_count": 1, "backoff_expiration": OCT_1_2023 + 0.25},
            OCT_1_2023 + 0.25,
        ),
        (1, 32, {"unschedulable_count": 16}, OCT_1_2023 + 32),
        (1, 32, {"unschedulable_count": 5, "consecutive_errors_count": 16}, OCT_1_2023 + 32),
        (0, 0, {"unschedulable_count": 16}, NO_BACKOFF),
    ],
    ids=[
        "a pod that never failed owes no backoff",
        "a computed backoff is returned from the cache",
        "the backoff grows with the unschedulable count up to the maximum",
        "errors, when there are any, count instead of rejections",
        "a zero maximum backoff disables backoff",
    ],
)
def test_it_computes_when_the_backoff_ends(initial, maximum, fields, want):
    backoff_q = BackoffQueue(FakeClock(OCT_1_2023), initial, maximum, less())
    pod_info = queued(make_pod("p"), timestamp=OCT_1_2023, **fields)
    assert backoff_q.get_backoff_time(pod_info) == want


@pytest.mark.parametrize(
    ("initial", "maximum", "count", "want"),
    [
        (1, 32, 0, 0),
        (3, 1000, 5, 48),
        (1, 32, 16, 32),
        (1, 2**31 - 1, 32, 2**31 - 1),
        (1, 2**63 - 1, 64, 2**63 - 1),
    ],
    ids=[
        "no failures means no backoff",
        "the initial backoff doubles per failure",
        "the backoff stops at the maximum",
        "a shift past 32 bits is capped at the maximum",
        "a shift past 64 bits is capped at the maximum",
    ],
)
def test_backoff_duration_is_initial_times_two_to_the_failures_capped(
    initial, maximum, count, want
):
    assert backoff_duration_nanos(count, initial, maximum) == want


def _backoff_pods(now: float) -> dict[str, object]:
    return {
        "pod0": queued(make_pod("pod0"), "plugin", timestamp=now - 2, unschedulable_count=1),
        "pod1": queued(make_pod("pod1"), "plugin", timestamp=now + 1, unschedulable_count=1),
        "pod2": queued(make_pod("pod2"), timestamp=now - 2, consecutive_errors_count=1),
        "pod3": queued(make_pod("pod3"), timestamp=now + 1, consecutive_errors_count=1),
    }


@pytest.mark.parametrize(
    "pop_from_backoff_q", [True, False], ids=["with windows", "without windows"]
)
@pytest.mark.parametrize(
    ("in_backoff", "want"),
    [
        ([], []),
        (["pod0", "pod1"], ["pod0"]),
        (["pod2", "pod3"], ["pod2"]),
        (["pod0", "pod1", "pod2", "pod3"], ["pod0", "pod2"]),
        (["pod0", "pod2"], ["pod0", "pod2"]),
        (["pod1", "pod3"], []),
    ],
    ids=[
        "both queues empty, nothing completes",
        "rejected pods only, some complete",
        "errored pods only, some complete",
        "pods in both queues, some complete",
        "pods in both queues, all complete",
        "pods in both queues, none complete",
    ],
)
def test_it_pops_the_pods_whose_backoff_is_over(pop_from_backoff_q, in_backoff, want):
    clock = FakeClock(START + 0.4)
    backoff_q = BackoffQueue(clock, 1, 10, less(), pop_from_backoff_q)
    pods = _backoff_pods(clock.now())
    for name in in_backoff:
        backoff_q.add(pods[name])
    assert [p.pod.name for p in backoff_q.pop_all_backoff_completed()] == want
    assert len(backoff_q) == len(in_backoff) - len(want)


def test_backoff_queue_ordering():
    """Upstream's table, run the same way: both cases share the pod infos, so the second case
    sees the window-aligned expiry times the first one cached (pod2 then ties pod3 and pod4)."""
    clock = FakeClock(START)
    now = clock.now()
    pod_infos = [
        queued(
            make_pod(name, priority=priority),
            "plugin",
            timestamp=timestamp,
            attempts=1,
            unschedulable_count=1,
        )
        for name, priority, timestamp in [
            ("pod0", 1, now),
            ("pod1", 1, now - 1),
            ("pod2", 2, now - 2 + 0.001),
            ("pod3", 1, now - 2),
            ("pod4", 2, now - 2),
            ("pod5", 1, now - 3),
        ]
    ]
    cases = [
        # Pods in the same window are ordered by priority with pop-from-backoff.
        (True, ["pod5", "pod4", "pod2", "pod3"]),
        # Priority does not matter without pop-from-backoff.
        (False, ["pod5", "pod3", "pod4", "pod2"]),
    ]
    for pop_from_backoff_q, want in cases:
        backoff_q = BackoffQueue(clock, 1, 10, less(), pop_from_backoff_q)
        for pod_info in pod_infos:
            backoff_q.add(pod_info)
        assert [p.pod.name for p in backoff_q.pop_all_backoff_completed()] == want


def test_without_windows_pods_leave_by_expiry_time_alone():
    clock = FakeClock(START)
    now = clock.now()
    backoff_q = BackoffQueue(clock, 1, 10, less(), pop_from_backoff_q_enabled=False)
    for name, timestamp in [("a", now - 2), ("b", now - 3), ("c", now - 2.5)]:
        backoff_q.add(queued(make_pod(name), "plugin", timestamp=timestamp, unschedulable_count=1))
    assert [p.pod.name for p in backoff_q.pop_all_backoff_completed()] == ["b", "c", "a"]


@pytest.mark.parametrize(
    "pop_from_backoff_q", [True, False], ids=["with windows", "without windows"]
)
def test_backoff_doubles_with_each_failure_up_to_the_maximum(pop_from_backoff_q):
    queue, clock = new_queue(FakeClock(START + 0.3), pop_from_backoff_q=pop_from_backoff_q)
    queue.add(make_pod("test-pod", "test-ns", uid="test-uid"))
    for attempt, want_backoff in enumerate([1, 2, 4, 8, 10, 10, 10], start=1):
        timestamp = clock.now()
        pod_info = queue.pop()
        assert pod_info.attempts == attempt
        pod_info.unschedulable_plugins.add("unsched-plugin")
        queue.add_unschedulable_if_not_present(pod_info, attempt - 1)
        queue.move_all_to_active_or_backoff_queue(EVENT_UNSCHEDULABLE_TIMEOUT)
        assert queue.backoff_q.has(pod_info.pod)

        backoff = pod_info.backoff_expiration - timestamp
        if pop_from_backoff_q:
            # The expiry is rounded down to its window; the real wait ends with the window.
            backoff = backoff // BACKOFF_Q_ORDERING_WINDOW + BACKOFF_Q_ORDERING_WINDOW
        assert backoff == pytest.approx(want_backoff)

        clock.step(BACKOFF_Q_ORDERING_WINDOW)
        queue.flush_backoff_q_completed()
        assert queue.backoff_q.has(pod_info.pod), "still backing off after an early flush"
        clock.step(backoff)
        queue.flush_backoff_q_completed()
        assert not queue.backoff_q.has(pod_info.pod)


@pytest.mark.parametrize(
    ("pop_from_backoff_q", "want"),
    [(True, ["mpp", "hpp"]), (False, ["mpp"])],
    ids=[
        "an empty active queue is refilled from the backoff queue with pop-from-backoff",
        "only the active queue is popped without pop-from-backoff",
    ],
)
def test_pop_falls_back_to_the_backoff_queue(pop_from_backoff_q, want):
    queue, _ = new_queue(pop_from_backoff_q=pop_from_backoff_q)
    queue.add(medium_priority_pod())
    queue.backoff_q.add(queued(high_priority_pod(), "plugin"))
    queue.backoff_q.add(queued(make_pod("hpp2", "ns1", uid="hpp2ns1", priority=HIGH_PRIORITY)))
    queue.unschedulable_pods.add_or_update(queued(unschedulable_pod(), "plugin"))
    popped = []
    while (pod_info := queue.pop()) is not None:
        popped.append(pod_info.pod.name)
    assert popped == want


def test_a_popped_backoff_pod_is_reported_as_coming_from_the_backoff_queue():
    changes = []
    queue, _ = new_queue(on_change=lambda event, pod_info: changes.append(event))
    queue.backoff_q.add(queued(high_priority_pod(), "plugin"))
    queue.pop()
    assert changes == ["InFlight:PopFromBackoffQ"]


def test_a_rejected_high_priority_pod_does_not_block_lower_ones():
    queue, _ = new_queue(pop_from_backoff_q=False)
    mid = make_pod("test-midpod", "ns1", uid="tp-mid", priority=MID_PRIORITY)
    high = make_pod("test-highpod", "ns1", uid="tp-high", priority=HIGH_PRIORITY)
    queue.add(mid)
    queue.add(high)
    popped = queue.pop()
    assert popped.pod.name == "test-highpod"
    popped.unschedulable_plugins = {"fooPlugin"}
    queue.add_unschedulable_if_not_present(popped, queue.scheduling_cycle())
    queue.move_all_to_active_or_backoff_queue(EVENT_UNSCHEDULABLE_TIMEOUT)
    assert queue.pop().pod.name == "test-midpod"
    assert names(queue.pods_in_backoff_q()) == ["test-highpod"]


def test_backoff_durations_are_taken_from_the_options():
    queue, _ = new_queue(pod_initial_backoff_seconds=2, pod_max_backoff_seconds=20)
    assert queue.backoff_q.pod_initial_backoff_seconds == 2
    assert queue.backoff_q.pod_max_backoff_seconds == 20
    assert queue.backoff_q.calculate_backoff_duration(3) == 8


@pytest.mark.parametrize(
    ("gate", "want"),
    [(True, "hpp"), (False, None)],
    ids=[
        "the SchedulerPopFromBackoffQ gate on lets pop take backoff pods",
        "the SchedulerPopFromBackoffQ gate off keeps pop to the active queue",
    ],
)
def test_pop_from_backoff_follows_the_feature_gate(gate, want):
    queue, _ = new_queue(feature_gates=FeatureGates({"SchedulerPopFromBackoffQ": gate}))
    queue.backoff_q.add(queued(high_priority_pod(), "plugin"))
    popped = queue.pop()
    assert (popped.pod.name if popped else None) == want
