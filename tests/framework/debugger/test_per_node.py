"""A breakpoint on one node makes each node's call a stop, with the batch form's results."""

from __future__ import annotations

import pytest

from framework.debugger.breakpoints import parse_breakpoint
from framework.debugger.session import CONTINUE, Debugger
from framework.simulator import Simulation
from tests.framework.debugger.scenario import NODES, SCENARIOS, WEB, simulate


def test_a_filter_breakpoint_on_one_node_stops_at_that_node():
    _, stops, _ = simulate(NODES + WEB, "filter@n2")
    assert [(s.point, s.node, s.kind, s.plugin) for s in stops] == [
        ("filter", "n2", "plugin", "NodeUnschedulable")
    ]


def test_a_score_breakpoint_on_one_plugin_and_node_stops_there_with_the_raw_score():
    _, stops, _ = simulate(NODES + WEB, "score:NodeResourcesFit@n2")
    [stop] = stops
    assert (stop.point, stop.plugin, stop.node, stop.event.score) == (
        "score",
        "NodeResourcesFit",
        "n2",
        stop.state["results"]["scores"]["NodeResourcesFit"]["n2"]["raw"],
    )
    # LeastAllocated: CPU (2000-500)*100/2000 = 75; memory counts the 200Mi a pod without a
    # memory request is taken to use: (8192-200)*100/8192 = 97; (75+97)/2 = 86.
    assert stop.event.score == 86


@pytest.mark.parametrize("scenario", SCENARIOS, ids=lambda p: p.name)
def test_the_per_node_form_gives_every_result_the_batch_form_gives(scenario):
    config = (scenario / "config.yaml").read_text()
    objects = (scenario / "objects.yaml").read_text()
    batch = Simulation(config, objects).run()
    # A node that does not exist: no stop, but every cycle runs node by node.
    debugger = Debugger([parse_breakpoint("filter@no-such-node")], lambda stop: CONTINUE)
    per_node_simulation = Simulation(config, objects, debugger=debugger)
    per_node = per_node_simulation.run()

    assert [r.to_dict() for r in per_node] == [r.to_dict() for r in batch]
    assert debugger.stops == 0
    assert all(f.per_node for f in per_node_simulation.scheduler.profiles.values())
