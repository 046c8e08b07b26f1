"""The queue-size chart: a time window ending at the latest sample, axes with units."""

import pytest

from playground.front.charts import BOTTOM, HEIGHT, LEFT, RIGHT, TOP, WIDTH, queue_chart

PLOT_RIGHT, PLOT_BOTTOM = WIDTH - RIGHT, HEIGHT - BOTTOM


def points(line: str) -> list[tuple[float, float]]:
    return [tuple(map(float, point.split(","))) for point in line.split()]


def test_no_samples_draw_nothing():
    chart = queue_chart([])
    assert chart.lines == {} and chart.peak == 0
    assert (chart.window, chart.window_label) == ("300", "5 min")


def test_the_window_spans_the_plot_and_ends_at_the_latest_sample():
    chart = queue_chart([[100.0, 0, 2, 4, 0], [160.0, 4, 0, 1, 2]], "60")
    assert points(chart.lines["active"]) == [(LEFT, PLOT_BOTTOM), (PLOT_RIGHT, TOP)]
    assert points(chart.lines["backoff"])[0] == (LEFT, (TOP + PLOT_BOTTOM) / 2)
    assert chart.peak == 4
    assert chart.latest == {"active": 4, "backoff": 0, "unschedulable": 1, "gated": 2}


def test_a_burst_of_seconds_spans_a_visible_part_of_a_short_window():
    """Ten minutes of samples every 2 s, 500 pods queued for 10 s near the end."""
    samples = [[float(t), 500 if 560 <= t < 570 else 0, 0, 0, 0] for t in range(0, 600, 2)]

    def burst_width(window: str) -> float:
        line = points(queue_chart(samples, window).lines["active"])
        high = min(y for _, y in line)
        xs = [x for x, y in line if y == high]
        return max(xs) - min(xs)

    assert burst_width("60") > (PLOT_RIGHT - LEFT) / 8
    assert burst_width("60") > 5 * burst_width("all")


def test_the_sample_before_the_window_draws_the_line_into_it_from_the_left():
    chart = queue_chart([[0.0, 8, 0, 0, 0], [100.0, 2, 0, 0, 0], [130.0, 4, 0, 0, 0]], "60")
    [(x0, _), (x1, _), (x2, _)] = points(chart.lines["active"])
    assert x0 < LEFT < x1 < x2 == PLOT_RIGHT  # the svg clips the line to the plot
    assert chart.peak == 4  # within the window


@pytest.mark.parametrize(
    ("window", "last", "labels"),
    [
        ("60", 60.0, ["\u221260 s", "\u221245 s", "\u221230 s", "\u221215 s", "0 s"]),
        ("300", 300.0, [f"\u2212{m} min" for m in range(5, 0, -1)] + ["0 min"]),
        ("all", 90.0, ["\u221290 s", "\u221260 s", "\u221230 s", "0 s"]),
    ],
    ids=["one minute in seconds", "five minutes in minutes", "all the samples kept"],
)
def test_time_ticks_count_back_from_the_latest_sample_in_seconds_or_minutes(window, last, labels):
    chart = queue_chart([[0.0, 1, 0, 0, 0], [last, 1, 0, 0, 0]], window)
    assert [tick.label for tick in chart.x_ticks] == labels
    assert chart.x_ticks[-1].position == PLOT_RIGHT
    assert [tick.position for tick in chart.x_ticks] == sorted(t.position for t in chart.x_ticks)


@pytest.mark.parametrize(
    ("peak", "labels"),
    [
        (0, ["0", "1"]),
        (3, ["0", "1", "2", "3"]),
        (7, ["0", "2", "4", "6", "8"]),
        (500, ["0", "200", "400", "600"]),
    ],
    ids=["empty queues", "a few pods", "between round numbers", "a burst"],
)
def test_pod_ticks_are_round_numbers_from_zero_to_at_least_the_peak(peak, labels):
    chart = queue_chart([[0.0, peak, 0, 0, 0]], "60")
    assert [tick.label for tick in chart.y_ticks] == labels
    assert chart.y_ticks[0].position == PLOT_BOTTOM and chart.y_ticks[-1].position == TOP


def test_an_unknown_window_says_so_and_shows_the_default():
    chart = queue_chart([[0.0, 1, 0, 0, 0]], "3600")
    assert chart.window == "300"
    assert chart.error == 'window: unknown value "3600": choose one of 60, 300, 600, all'


def test_samples_stored_before_gated_pods_were_counted_apart_draw_gated_as_zero():
    chart = queue_chart([[100.0, 1, 2, 3], [110.0, 1, 2, 3]])
    assert chart.latest == {"active": 1, "backoff": 2, "unschedulable": 3, "gated": 0}
    assert {y for _, y in points(chart.lines["gated"])} == {PLOT_BOTTOM}


@pytest.mark.parametrize(
    "samples",
    [[[5.0, 3, 0, 0]], [[5.0, 0, 0, 0], [6.0, 0, 0, 0]]],
    ids=["a single sample", "empty queues throughout"],
)
@pytest.mark.parametrize("window", ["60", "all"])
def test_degenerate_charts_stay_inside_the_plot(samples, window):
    for line in queue_chart(samples, window).lines.values():
        for x, y in points(line):
            assert LEFT <= x <= PLOT_RIGHT
            assert TOP <= y <= PLOT_BOTTOM
