"""The queue-size chart's geometry."""

import pytest

from playground.front.charts import HEIGHT, PAD, WIDTH, queue_chart


def test_no_samples_draw_nothing():
    chart = queue_chart([])
    assert chart.lines == {} and chart.peak == 0


def test_time_spans_the_width_and_the_peak_reaches_the_top():
    chart = queue_chart([[100.0, 0, 2, 4, 0], [110.0, 4, 0, 1, 2]])
    assert chart.lines["active"] == f"{PAD:.1f},{HEIGHT - PAD:.1f} {WIDTH - PAD:.1f},{PAD:.1f}"
    assert chart.lines["backoff"].startswith(f"{PAD:.1f},{HEIGHT / 2:.1f}")
    assert chart.peak == 4
    assert chart.seconds == 10.0
    assert chart.latest == {"active": 4, "backoff": 0, "unschedulable": 1, "gated": 2}


def test_samples_stored_before_gated_pods_were_counted_apart_draw_gated_as_zero():
    chart = queue_chart([[100.0, 1, 2, 3], [110.0, 1, 2, 3]])
    assert chart.latest == {"active": 1, "backoff": 2, "unschedulable": 3, "gated": 0}
    assert (
        chart.lines["gated"] == f"{PAD:.1f},{HEIGHT - PAD:.1f} {WIDTH - PAD:.1f},{HEIGHT - PAD:.1f}"
    )


@pytest.mark.parametrize(
    "samples",
    [[[5.0, 3, 0, 0]], [[5.0, 0, 0, 0], [6.0, 0, 0, 0]]],
    ids=["a single sample", "empty queues throughout"],
)
def test_degenerate_charts_stay_inside_the_box(samples):
    for line in queue_chart(samples).lines.values():
        for point in line.split():
            x, y = map(float, point.split(","))
            assert PAD <= x <= WIDTH - PAD
            assert PAD <= y <= HEIGHT - PAD
