"""SchedulingGates: gating by spec.schedulingGates, and the hint that lifts it."""

from __future__ import annotations

import pytest

from framework.interface.events import ActionType, ClusterEvent, EventResource, QueueingHint
from framework.interface.status import Code, Status
from framework.plugins import names
from framework.plugins.feature import Features
from framework.plugins.schedulinggates.scheduling_gates import SchedulingGates
from tests.framework.builders import make_pod
from tests.framework.plugins.in_tree import InTree
from tests.framework.runtime.helpers import framework_of


def gated_pod(*gates: str, name: str = "p", uid: str | None = None):
    return make_pod(name, uid=uid, schedulingGates=[{"name": gate} for gate in gates])


def plugin(queue_hints: bool = True) -> SchedulingGates:
    return SchedulingGates(None, None, Features(enable_scheduling_queue_hint=queue_hints))


@pytest.mark.parametrize(
    ("pod", "want"),
    [
        (make_pod("p"), None),
        (
            gated_pod("foo", "bar"),
            Status(Code.UNSCHEDULABLE_AND_UNRESOLVABLE, "waiting for scheduling gates: [foo bar]"),
        ),
    ],
    ids=["a pod without scheduling gates passes", "a pod with scheduling gates is gated"],
)
def test_it_gates_pods_that_carry_scheduling_gates(pod, want):
    assert plugin().pre_enqueue(pod) == want


@pytest.mark.parametrize(
    ("old_obj", "new_obj"),
    [(None, "not-a-pod"), ("not-a-pod", make_pod("p"))],
    ids=["the new object is not a pod", "the old object is not a pod"],
)
def test_its_hint_raises_for_objects_that_are_not_pods_so_the_pod_is_queued(old_obj, new_obj):
    with pytest.raises(TypeError, match="expected Pod, but got str"):
        plugin().is_schedulable_after_update_pod_scheduling_gates_eliminated(
            make_pod("p"), old_obj, new_obj
        )


@pytest.mark.parametrize(
    ("pod", "old_obj", "new_obj", "want"),
    [
        (
            gated_pod("foo", "bar", uid="uid0"),
            gated_pod("foo", "bar", name="p1", uid="uid1"),
            gated_pod("foo", name="p1", uid="uid1"),
            QueueingHint.QUEUE_SKIP,
        ),
        (
            gated_pod("foo"),
            gated_pod("foo"),
            gated_pod(),
            QueueingHint.QUEUE,
        ),
    ],
    ids=["another pod's update is skipped", "the gated pod's own update queues it"],
)
def test_it_queues_only_on_updates_of_the_gated_pod(pod, old_obj, new_obj, want):
    hint = plugin().is_schedulable_after_update_pod_scheduling_gates_eliminated(
        pod, old_obj, new_obj
    )
    assert hint == want


def test_it_registers_the_gates_eliminated_pod_update_when_queueing_hints_are_on():
    events = plugin(queue_hints=True).events_to_register()
    assert [e.event for e in events] == [
        ClusterEvent(EventResource.POD, ActionType.UPDATE_POD_SCHEDULING_GATES_ELIMINATED)
    ]
    assert all(e.queueing_hint_fn is not None for e in events)


def test_it_registers_no_events_when_queueing_hints_are_off():
    assert plugin(queue_hints=False).events_to_register() == []


def test_the_framework_reports_the_gate_with_the_plugin_name():
    fwk = framework_of([InTree(SchedulingGates)], points={"pre_enqueue": [names.SCHEDULING_GATES]})
    status = fwk.run_pre_enqueue_plugins(gated_pod("example.com/wait"))
    assert status.code == Code.UNSCHEDULABLE_AND_UNRESOLVABLE
    assert status.reasons == ["waiting for scheduling gates: [example.com/wait]"]
    assert status.plugin == names.SCHEDULING_GATES
    assert fwk.run_pre_enqueue_plugins(make_pod("free")) is None
