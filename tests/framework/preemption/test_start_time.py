"""Pod start times as preemption compares them (upstream GetPodStartTime, MoreImportantPod and
GetEarliestPodStartTime)."""

from __future__ import annotations

import datetime as _dt

import pytest

from framework.preemption.start_time import StartTimes, datetime_to_nanos
from framework.util.clock import FakeClock
from tests.framework.preemption.builders import pod

NOW = 1_700_000_000.0


def test_a_pod_with_a_start_time_reads_it_in_nanoseconds() -> None:
    times = StartTimes(FakeClock(NOW))

    assert times.of(pod("p", start=5)) == 5_000


def test_pods_without_start_times_read_a_clock_that_always_moves_forward() -> None:
    times = StartTimes(FakeClock(NOW))

    readings = [times.of(pod("p")) for _ in range(3)]

    base = int(NOW * 1_000_000) * 1000
    assert readings == [base, base + 1, base + 2]


def test_the_clock_is_followed_when_it_moves_ahead() -> None:
    clock = FakeClock(NOW)
    times = StartTimes(clock)
    times.now()
    clock.set_time(NOW + 2)

    assert times.now() == int((NOW + 2) * 1_000_000) * 1000


def test_datetimes_convert_to_unix_nanoseconds() -> None:
    moment = _dt.datetime(2024, 1, 1, 0, 0, 1, 500, tzinfo=_dt.UTC)

    assert datetime_to_nanos(moment) == 1_704_067_201_000_500_000
    assert datetime_to_nanos(moment.replace(tzinfo=None)) == 1_704_067_201_000_500_000


@pytest.mark.parametrize(
    ("first", "second", "expected"),
    [
        (pod("a", priority=10), pod("b", priority=5), True),
        (pod("a", priority=5, start=1), pod("b", priority=10, start=9), False),
        (pod("a", start=1), pod("b", start=2), True),
        (pod("a", start=2), pod("b", start=1), False),
        (pod("a", start=1), pod("b", start=1), False),
        (pod("a"), pod("b"), True),
        (pod("a", start=1), pod("b"), True),
    ],
    ids=[
        "higher priority first",
        "priority before start time",
        "on equal priority the older pod",
        "a newer pod is not more important",
        "equal priority and start: neither",
        "without start times the first one compared looks older",
        "a pod that started is older than one that has not",
    ],
)
def test_more_important_pod(first, second, expected: bool) -> None:
    times = StartTimes(FakeClock(NOW))

    assert times.more_important_pod(first, second) is expected


@pytest.mark.parametrize(
    ("pods", "expected"),
    [
        ([], None),
        ([pod("a", priority=1, start=5), pod("b", priority=1, start=3)], 3_000),
        ([pod("a", priority=1, start=1), pod("b", priority=2, start=7)], 7_000),
        (
            [
                pod("a", priority=2, start=9),
                pod("b", priority=1, start=1),
                pod("c", priority=2, start=4),
            ],
            4_000,
        ),
    ],
    ids=[
        "no pods",
        "the earliest among equal priorities",
        "only the highest priority counts",
        "a lower priority in between is ignored",
    ],
)
def test_earliest_start_of_the_highest_priority_pods(pods, expected: int | None) -> None:
    assert StartTimes(FakeClock(NOW)).earliest_of_highest_priority(pods) == expected


def test_the_earliest_start_without_start_times_is_the_first_reading() -> None:
    times = StartTimes(FakeClock(NOW))

    earliest = times.earliest_of_highest_priority([pod("a"), pod("b")])

    assert earliest == int(NOW * 1_000_000) * 1000
    assert times.now() > earliest + 1
