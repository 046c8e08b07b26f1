"""scheduler_plugin_evaluation_total: every plugin call at PreFilter, Filter, PreScore and
Score, as upstream's counting wrappers around those plugins see them."""

from __future__ import annotations

import pytest

from framework import metrics as m
from framework.debugger.breakpoints import parse_breakpoint
from framework.debugger.session import CONTINUE, Debugger
from framework.simulator import Simulation
from tests.framework.debugger.scenario import SCENARIOS
from tests.framework.test_metrics import node, pod, simulate


def evaluations(metrics: m.Metrics) -> dict[tuple[str, str], float]:
    return {
        (dict(k)["extension_point"], dict(k)["plugin"]): v
        for k, v in metrics.series(m.PLUGIN_EVALUATION_TOTAL).items()
    }


def test_filter_counts_a_call_per_node_and_score_per_feasible_node():
    metrics = simulate(node("n1", "2"), node("n2", "2"), node("n3", "500m"), pod("a", "1"))
    counted = evaluations(metrics)
    assert counted[("PreFilter", "NodeResourcesFit")] == 1
    assert counted[("Filter", "TaintToleration")] == 3
    assert counted[("Filter", "NodeResourcesFit")] == 3
    assert counted[("PreScore", "NodeResourcesFit")] == 1
    assert counted[("Score", "NodeResourcesFit")] == 2, "n3 is too small"
    assert all(
        dict(k)["profile"] == "default-scheduler" for k in metrics.series(m.PLUGIN_EVALUATION_TOTAL)
    )


def test_a_plugin_that_skips_is_not_counted_and_neither_is_its_filter():
    counted = evaluations(simulate(node("n1", "2"), pod("a", "1")))
    # No affinity and no ports: NodeAffinity and NodePorts return Skip at PreFilter.
    for plugin in ("NodeAffinity", "NodePorts"):
        assert ("PreFilter", plugin) not in counted
        assert ("Filter", plugin) not in counted


def test_a_pod_that_fits_nowhere_counts_its_filters_and_no_scoring():
    counted = evaluations(simulate(node("n1", "2"), node("n2", "2"), pod("big", "8")))
    assert counted[("Filter", "NodeResourcesFit")] == 2
    assert not [key for key in counted if key[0] in ("PreScore", "Score")]


@pytest.mark.parametrize("scenario", SCENARIOS, ids=lambda p: p.name)
def test_the_batch_forms_count_as_many_calls_as_the_per_node_form(scenario):
    config = (scenario / "config.yaml").read_text()
    objects = (scenario / "objects.yaml").read_text()
    batch = Simulation(config, objects)
    batch.run()
    # A breakpoint on a node that does not exist: every cycle runs node by node.
    debugger = Debugger([parse_breakpoint("filter@no-such-node")], lambda stop: CONTINUE)
    per_node = Simulation(config, objects, debugger=debugger)
    per_node.run()
    assert evaluations(batch.metrics)
    assert evaluations(per_node.metrics) == evaluations(batch.metrics)
