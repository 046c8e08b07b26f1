"""NodeName: spec.nodeName pins a pod to one node."""

from __future__ import annotations

import pytest

from framework.interface.cycle_state import CycleState
from framework.interface.events import ActionType, ClusterEvent, EventResource
from framework.interface.status import Code, Status
from framework.plugins.feature import Features
from framework.plugins.nodename.node_name import ERR_REASON, NodeName
from tests.framework.builders import make_node_info, make_pod


def plugin(queue_hints: bool = True) -> NodeName:
    return NodeName(None, None, Features(enable_scheduling_queue_hint=queue_hints))


@pytest.mark.parametrize(
    ("node_name", "want"),
    [
        ("", None),
        ("foo", None),
        ("bar", Status(Code.UNSCHEDULABLE_AND_UNRESOLVABLE, ERR_REASON)),
    ],
    ids=["no host specified", "host matches", "host doesn't match"],
)
def test_it_fits_only_the_named_node(node_name, want):
    pod = make_pod(node_name=node_name)
    assert plugin().filter(CycleState(), pod, make_node_info("foo")) == want


@pytest.mark.parametrize(
    ("queue_hints", "want"),
    [
        (True, ActionType.ADD),
        (False, ActionType.ADD | ActionType.UPDATE_NODE_TAINT | ActionType.UPDATE_NODE_LABEL),
    ],
    ids=["with queueing hints only node additions", "without hints also label and taint updates"],
)
def test_it_registers_node_events_without_a_hint(queue_hints, want):
    events = plugin(queue_hints).events_to_register()
    assert [e.event for e in events] == [ClusterEvent(EventResource.NODE, want)]
    assert events[0].queueing_hint_fn is None
