"""The explain panels' charts: the reasons histogram's bars and a closest node's usage bars
with the missing part marked, as shapes the templates draw."""

from playground.front.explain_charts import MAX_REASON_BARS, reasons_histogram, usage_bar


def reason(plugin: str, text: str, nodes: int) -> dict:
    return {"plugin": plugin, "reason": text, "nodes": nodes}


def test_bars_are_shares_of_the_nodes_most_nodes_first_the_most_rejecting_plugin_marked():
    histogram = reasons_histogram(
        [reason("TaintToleration", "untolerated taint", 1), reason("NodeResourcesFit", "cpu", 3)],
        nodes=4,
        most_rejecting="NodeResourcesFit",
    )
    assert [(b.plugin, b.nodes, b.percent, b.most_rejecting) for b in histogram.bars] == [
        ("NodeResourcesFit", 3, 75.0, True),
        ("TaintToleration", 1, 25.0, False),
    ]
    assert (histogram.hidden, histogram.hidden_nodes) == (0, 0)


def test_many_reasons_are_cut_and_the_rest_counted():
    reasons = [reason("NodeAffinity", f"node-{i}", 1) for i in range(MAX_REASON_BARS + 3)]
    histogram = reasons_histogram(reasons, nodes=len(reasons), most_rejecting="NodeAffinity")
    assert len(histogram.bars) == MAX_REASON_BARS
    assert (histogram.hidden, histogram.hidden_nodes) == (3, 3)


def test_a_histogram_without_nodes_draws_no_bar_wider_than_the_chart():
    histogram = reasons_histogram([reason("A", "r", 2)], nodes=0, most_rejecting=None)
    assert histogram.bars[0].percent == 100.0


def test_the_missing_cpu_is_drawn_past_the_allocatable_mark():
    # needs 4 CPU, 2.5 free of 4: others use 1.5, 2.5 of the pod fits, 1.5 is missing.
    bar = usage_bar(
        {"name": "cpu", "requested": 4000, "free": 2500, "allocatable": 4000, "unit": "m"}
    )
    scale = 5.5  # the node's 4 CPU do not hold the others' 1.5 and the pod's 4
    assert bar.used == (0.0, round(100 * 1.5 / scale, 2))
    assert bar.fits == (round(100 * 1.5 / scale, 2), round(100 * 2.5 / scale, 2))
    assert bar.missing == (round(100 * 4 / scale, 2), round(100 * 1.5 / scale, 2))
    assert bar.allocatable_at == round(100 * 4 / scale, 2) == bar.missing[0]
    assert (bar.missing_amount, bar.others) == (1500, 1500)


def test_a_request_that_fits_has_no_missing_part():
    bar = usage_bar(
        {"name": "memory", "requested": 1 << 30, "free": 4 << 30, "allocatable": 8 << 30}
    )
    assert bar.missing[1] == 0.0
    assert bar.missing_amount == 0
    assert bar.allocatable_at == 100.0


def test_an_overcommitted_node_has_no_room_and_misses_the_whole_request():
    bar = usage_bar({"name": "pods", "requested": 1, "free": -2, "allocatable": 110})
    assert bar.fits[1] == 0.0
    assert bar.missing_amount == 1
    assert bar.missing[0] == bar.allocatable_at
