"""Pods in flight: events received during an attempt decide where a failed pod goes back."""

from __future__ import annotations

import pytest

from framework.backend.queue.active_queue import InFlightEvent
from framework.interface.cluster_events import (
    EVENT_ASSIGNED_POD_ADD,
    EVENT_FORCE_ACTIVATE,
    EVENT_UNSCHEDULABLE_TIMEOUT,
    EVENT_UNSCHEDULED_POD_UPDATE,
)

from .helpers import (
    CSI_NODE_UPDATE,
    NODE_ADD,
    PV_ADD,
    PV_UPDATE,
    PVC_ADD,
    QUEUE,
    SKIP,
    high_priority_nominated_pod,
    hint_map,
    make_pod,
    medium_priority_pod,
    names,
    new_queue,
    queued,
)

POD1 = make_pod("targetpod", uid="pod1")
POD2 = make_pod("targetpod2", uid="pod2")
POD3 = make_pod("targetpod3", uid="pod3")


def describe(entries):
    """The in-flight record as names: a pod's name, an event's label."""
    return [e.event.label() if isinstance(e, InFlightEvent) else e.name for e in entries]


def foo1(*events):
    return hint_map({event: [("fooPlugin1", QUEUE)] for event in events})


def _pop_twice_bug(queue):
    # Simulates a bug: pod1 is queued again while it is still in flight.
    queue.active_q.add(queued(POD1))


def _requeue_concurrently(queue):
    first, second = queue.pop(), None
    queue.move_all_to_active_or_backoff_queue(NODE_ADD)
    second = queue.pop()
    queue.move_all_to_active_or_backoff_queue(EVENT_ASSIGNED_POD_ADD)
    queue.add_unschedulable_if_not_present(first, queue.scheduling_cycle())
    second.unschedulable_plugins = {"fooPlugin2", "fooPlugin3"}
    second.pending_plugins = {"fooPlugin1"}
    queue.add_unschedulable_if_not_present(second, queue.scheduling_cycle())


def _preserves_rejectors(queue):
    popped = queue.pop()
    popped.pending_plugins = {"fooPlugin1"}
    popped.unschedulable_plugins = {"fooPlugin2"}
    queue.add_unschedulable_if_not_present(popped, queue.scheduling_cycle())
    queue.move_all_to_active_or_backoff_queue(PV_ADD)
    popped = queue.pop()
    assert popped.unschedulable_plugins == {"fooPlugin2"}
    assert popped.pending_plugins == {"fooPlugin1"}
    queue.add_unschedulable_if_not_present(popped, queue.scheduling_cycle())


IN_FLIGHT_CASES = [
    # (hints, initial pods, actions, in flight, in-flight record, active, backoff, unschedulable)
    (
        foo1(PV_ADD),
        [POD1],
        [("event", PVC_ADD), ("pop", POD1), ("event", PV_ADD), ("event", PV_UPDATE)],
        ["targetpod"], ["targetpod", "PersistentVolumeAdd"], None, None, [],
    ),
    (
        foo1(PV_ADD, NODE_ADD, PVC_ADD),
        [POD1, POD2],
        [("event", PVC_ADD), ("pop", POD1), ("event", PV_ADD), ("pop", POD2),
         ("event", NODE_ADD), ("enqueue", lambda: queued(POD1))],
        ["targetpod2"], ["targetpod2", "NodeAdd"], None, ["targetpod"], [],
    ),
    (
        foo1(PV_ADD, NODE_ADD, PVC_ADD, CSI_NODE_UPDATE),
        [POD1, POD2],
        [("event", PVC_ADD), ("pop", POD1), ("event", PV_ADD), ("pop", POD2),
         ("event", NODE_ADD), ("enqueue", lambda: queued(POD1)), ("event", CSI_NODE_UPDATE),
         ("enqueue", lambda: queued(POD2))],
        [], [], None, ["targetpod", "targetpod2"], [],
    ),
    (
        foo1(PV_ADD, NODE_ADD, EVENT_ASSIGNED_POD_ADD),
        [POD1, POD2, POD3],
        [("event", PVC_ADD), ("pop", POD1), ("event", PV_ADD), ("pop", POD2),
         ("event", NODE_ADD), ("pop", POD3), ("event", EVENT_ASSIGNED_POD_ADD),
         ("enqueue", lambda: queued(POD2))],
        ["targetpod", "targetpod3"],
        ["targetpod", "PersistentVolumeAdd", "NodeAdd", "targetpod3", "AssignedPodAdd"],
        None, ["targetpod2"], [],
    ),
    (
        hint_map({EVENT_ASSIGNED_POD_ADD: [("fooPlugin1", SKIP)]}),
        [POD1],
        [("event", EVENT_UNSCHEDULABLE_TIMEOUT), ("pop", POD1), ("event", EVENT_ASSIGNED_POD_ADD),
         ("enqueue", lambda: queued(POD1, "fooPlugin1"))],
        [], [], None, None, ["targetpod"],
    ),
    (
        foo1(EVENT_ASSIGNED_POD_ADD),
        [POD1],
        [("pop", POD1), ("event", EVENT_ASSIGNED_POD_ADD), ("enqueue", lambda: queued(POD1))],
        [], [], None, ["targetpod"], [],
    ),
    (
        foo1(EVENT_ASSIGNED_POD_ADD),
        [POD1],
        [("pop", POD1), ("event", NODE_ADD), ("enqueue", lambda: queued(POD1, "fooPlugin1"))],
        [], [], None, None, ["targetpod"],
    ),
    (
        hint_map({EVENT_ASSIGNED_POD_ADD: [("fooPlugin1", SKIP)]}),
        [POD1],
        [("pop", POD1), ("event", EVENT_ASSIGNED_POD_ADD),
         ("enqueue", lambda: queued(POD1, "fooPlugin1"))],
        [], [], None, None, ["targetpod"],
    ),
    (
        hint_map({EVENT_ASSIGNED_POD_ADD: [("fooPlugin3", SKIP), ("fooPlugin2", QUEUE),
                                           ("fooPlugin1", QUEUE)]}),
        [POD1],
        [("pop", POD1), ("event", EVENT_ASSIGNED_POD_ADD),
         ("enqueue", lambda: queued(POD1, "fooPlugin2", "fooPlugin3",
                                    pending_plugins={"fooPlugin1"}))],
        [], [], ["targetpod"], None, [],
    ),
    (
        hint_map({EVENT_ASSIGNED_POD_ADD: [("fooPlugin2", SKIP), ("fooPlugin1", QUEUE)]}),
        [POD1],
        [("pop", POD1), ("event", EVENT_ASSIGNED_POD_ADD),
         ("enqueue", lambda: queued(POD1, "fooPlugin1", "fooPlugin2"))],
        [], [], None, ["targetpod"], [],
    ),
    (
        hint_map({EVENT_ASSIGNED_POD_ADD: [("fooPlugin3", SKIP), ("fooPlugin2", QUEUE),
                                           ("fooPlugin1", QUEUE)]}),
        [POD1, POD2],
        [("call", _requeue_concurrently)],
        [], [], ["targetpod2"], ["targetpod"], [],
    ),
    (
        foo1(PV_ADD),
        [POD1],
        [("call", _preserves_rejectors)],
        [], [], None, None, [],
    ),
    (
        foo1(PV_ADD, NODE_ADD, PVC_ADD, CSI_NODE_UPDATE),
        [POD1, POD2],
        [("event", PVC_ADD), ("pop", POD1), ("event", PV_ADD), ("pop", POD2),
         ("call", _pop_twice_bug), ("create", POD3), ("pop", POD3), ("active", []),
         ("event", NODE_ADD), ("enqueue", lambda: queued(POD1)), ("event", CSI_NODE_UPDATE),
         ("enqueue", lambda: queued(POD2)), ("enqueue", lambda: queued(POD3))],
        [], [], None, ["targetpod", "targetpod2", "targetpod3"], [],
    ),
]  # fmt: skip


@pytest.mark.parametrize(
    ("hints", "initial", "actions", "in_flight", "record", "active", "backoff", "unschedulable"),
    IN_FLIGHT_CASES,
    ids=[
        "a popped pod and the interesting events after it are recorded",
        "a pod handed back leaves the record, the pods and events after it stay",
        "the record empties when every pod is handed back",
        "handing back a pod in the middle keeps the others' events",
        "events before the pop are ignored when the pod comes back",
        "a pod failing with an error backs off whatever the events",
        "a pod no recorded event may help goes to the unschedulable pool",
        "a pod whose rejector's hint says QueueSkip goes to the unschedulable pool",
        "Queue from a Pending plugin sends the pod straight to the active queue",
        "Queue from a rejecting plugin sends the pod to the backoff queue",
        "an event received while another pod was in flight still counts",
        "a pod popped again keeps its rejecting and pending plugins",
        "a pod popped twice by mistake is discarded and cleaned up",
    ],
)
def test_events_in_flight_decide_where_a_pod_goes_back(
    hints, initial, actions, in_flight, record, active, backoff, unschedulable
):
    queue, clock = new_queue(queueing_hint_map=hints)
    for pod in initial:
        queue.add(pod)
        clock.step(1)
    for action, arg in actions:
        if action == "event":
            queue.move_all_to_active_or_backoff_queue(arg)
        elif action == "pop":
            assert queue.pop().pod.uid == arg.uid
        elif action == "create":
            queue.add(arg)
        elif action == "enqueue":
            queue.add_unschedulable_if_not_present(arg(), queue.scheduling_cycle())
        elif action == "active":
            assert names(queue.pods_in_active_q()) == arg
        else:
            arg(queue)

    assert sorted(names(queue.in_flight_pods())) == in_flight
    assert describe(queue.in_flight_events()) == record
    if active is not None:
        assert sorted(names(queue.pods_in_active_q())) == active
    if backoff is not None:
        assert sorted(names(queue.pods_in_backoff_q())) == backoff
    for name in unschedulable:
        assert queue.unschedulable_pods.get(make_pod(name)) is not None


def test_a_pending_plugin_survives_the_pop_after_an_event_requeues_the_pod():
    queue, _ = new_queue(queueing_hint_map=foo1(PV_ADD))
    queue.add(POD1)
    popped = queue.pop()
    popped.pending_plugins = {"fooPlugin1"}
    queue.add_unschedulable_if_not_present(popped, queue.scheduling_cycle())
    queue.move_all_to_active_or_backoff_queue(PV_ADD)
    assert queue.pop().pending_plugins == {"fooPlugin1"}


def test_an_update_while_in_flight_requeues_the_pod_if_the_attempt_fails():
    queue, _ = new_queue(
        queueing_hint_map=hint_map({EVENT_UNSCHEDULED_POD_UPDATE: [("fakePlugin", QUEUE)]})
    )
    pod = make_pod("test-pod", "test-ns", uid="test-uid")
    queue.add(pod)
    assert queue.pop().pod is pod
    updated = make_pod(
        "test-pod",
        "test-ns",
        uid="test-uid",
        tolerations=[{"key": "foo", "effect": "NoSchedule"}],
    )

    queue.update(pod, updated)
    queue.add_unschedulable_if_not_present(queued(updated, "fakePlugin"), 1)

    assert queue.backoff_q.get(updated).pod is updated


@pytest.mark.parametrize(
    ("where", "in_flight", "want_active", "want_recorded"),
    [
        ("active", None, 1, False),
        (None, None, 0, False),
        (None, "same", 0, True),
        (None, "other", 0, False),
        ("unschedulable", None, 1, False),
        ("backoff", None, 1, False),
    ],
    ids=[
        "a pod already in the active queue stays there",
        "a pod in no queue is ignored",
        "a pod in flight gets a ForceActivate event",
        "a pod not in flight gets no event while another one flies",
        "a pod in the unschedulable pool is activated",
        "a pod in the backoff queue is activated",
    ],
)
def test_activate_moves_a_waiting_pod_to_the_active_queue(
    where, in_flight, want_active, want_recorded
):
    queue, _ = new_queue()
    target = high_priority_nominated_pod()
    if in_flight is not None:
        flying = target if in_flight == "same" else medium_priority_pod()
        queue.active_q.add(queued(flying))
        queue.pop()
    if where == "active":
        queue.add(target)
    elif where == "unschedulable":
        queue.unschedulable_pods.add_or_update(queued(target))
    elif where == "backoff":
        queue.backoff_q.add(queued(target))

    queue.activate({"test_pod": target})

    assert len(queue.active_q) == want_active
    assert queue.active_q.has(target) is (want_active == 1)
    recorded = [e for e in queue.in_flight_events() if isinstance(e, InFlightEvent)]
    assert recorded == (
        [InFlightEvent(EVENT_FORCE_ACTIVATE, None, target)] if want_recorded else []
    )
