"""Window arithmetic against hand-computed values and Prometheus's documented edge cases."""

from __future__ import annotations

import math

import pytest

from playground.metrics.window import (
    Step,
    histogram_quantile,
    increase,
    rate,
    steps,
    time_average,
)

INF = math.inf
TYPICAL = [(0.1, 10), (0.5, 30), (1.0, 40), (INF, 40)]
"""10 observations up to 0.1 s, 20 more up to 0.5 s, 10 more up to 1 s."""


@pytest.mark.parametrize(
    ("values", "want"),
    [
        ([], 0),
        ([4], 0),
        ([1, 3, 7], 6),
        ([5, 8, 2, 4], 3 + 2 + 2),  # 8 -> 2 is a reset: the counter counted 2 since
        ([5, 0, 0], 0),
        ([3, 3, 3], 0),
    ],
)
def test_a_counter_increases_through_resets(values, want):
    assert increase(values) == want


def test_rate_is_the_increase_per_second_between_the_first_and_last_point():
    assert rate([(0, 0), (10, 5)]) == 0.5
    assert rate([(0, 10), (10, 2), (20, 6)]) == pytest.approx((2 + 4) / 20)


@pytest.mark.parametrize("points", [[], [(5, 3)], [(5, 3), (5, 4)]])
def test_rate_needs_two_points_apart_in_time(points):
    assert rate(points) is None


def test_time_average_holds_each_value_until_the_next_point():
    assert time_average([(0, 2), (10, 4), (30, 0)]) == pytest.approx((2 * 10 + 4 * 20) / 30)
    assert time_average([(7, 3)]) == 3
    assert time_average([]) is None


@pytest.mark.parametrize(
    ("q", "want"),
    [
        (0.5, 0.1 + 0.4 * (10 / 20)),  # rank 20: the 10th of 20 in (0.1, 0.5]
        (0.99, 0.5 + 0.5 * (9.6 / 10)),  # rank 39.6: the 9.6th of 10 in (0.5, 1]
        (0.1, 0.1 * (4 / 10)),  # rank 4 in the first bucket: from 0
        (0, 0),
        (1, 1.0),
    ],
)
def test_quantiles_interpolate_linearly_inside_the_bucket(q, want):
    assert histogram_quantile(q, TYPICAL) == pytest.approx(want)


def test_a_rank_in_the_inf_bucket_gives_the_highest_finite_bound():
    assert histogram_quantile(0.9, [(0.5, 2), (1.0, 5), (INF, 10)]) == 1.0


def test_a_first_bucket_bounded_at_or_below_zero_gives_its_bound():
    assert histogram_quantile(0.2, [(-1.0, 5), (1.0, 10), (INF, 10)]) == -1.0
    assert histogram_quantile(0.2, [(0.0, 5), (1.0, 10), (INF, 10)]) == 0.0


@pytest.mark.parametrize(
    "buckets",
    [
        [(0.1, 0), (1.0, 0), (INF, 0)],  # no observations
        [(INF, 5)],  # fewer than two buckets
        [(0.1, 2), (1.0, 5)],  # no +Inf bucket
        [],
    ],
)
def test_no_quantile_without_observations_or_a_proper_histogram(buckets):
    assert histogram_quantile(0.5, buckets) is None


def test_a_quantile_out_of_range_is_infinite_and_nan_has_none():
    assert histogram_quantile(-0.1, TYPICAL) == -INF
    assert histogram_quantile(1.1, TYPICAL) == INF
    assert histogram_quantile(math.nan, TYPICAL) is None


def test_counts_falling_from_one_bucket_to_the_next_are_raised_to_the_highest_so_far():
    # (2.0, 4) is read as (2.0, 5): the rank 5 is then reached in the first bucket.
    assert histogram_quantile(0.5, [(1.0, 5), (2.0, 4), (INF, 10)]) == 1.0


def test_buckets_of_several_series_are_added_by_bound_in_any_order():
    one = [(INF, 20), (0.1, 5), (0.5, 15), (1.0, 20)]
    other = [(0.1, 5), (0.5, 15), (1.0, 20), (INF, 20)]
    assert histogram_quantile(0.5, one + other) == histogram_quantile(0.5, TYPICAL)


def test_steps_share_their_edge_reading_so_no_increase_falls_between_them():
    times = [0, 10, 20, 30, 40]
    assert steps(times, end=40, span=40, step=20) == [Step(20, 0, 3), Step(40, 2, 5)]


def test_steps_before_the_first_reading_are_empty():
    assert steps([100, 110], end=110, span=40, step=20) == [Step(90, 0, 0), Step(110, 0, 2)]
