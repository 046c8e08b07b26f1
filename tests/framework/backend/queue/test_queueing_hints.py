"""Queueing hints: which events may make a rejected pod schedulable, and where it goes then."""

from __future__ import annotations

import datetime as dt

import pytest

from framework.backend.queue.queueing_hints import (
    QueueingStrategy,
    build_queueing_hint_map,
    default_queueing_hint_fn,
)
from framework.interface.cluster_events import (
    EVENT_ASSIGNED_POD_ADD,
    EVENT_FORCE_ACTIVATE,
    EVENT_UNSCHEDULABLE_TIMEOUT,
    EVENT_UNSCHEDULED_POD_UPDATE,
)
from framework.interface.events import (
    ActionType,
    ClusterEvent,
    ClusterEventWithHint,
    EventResource,
    QueueingHint,
)
from framework.plugins.feature import Features
from framework.plugins.schedulinggates.scheduling_gates import SchedulingGates
from framework.util.clock import FakeClock

from .helpers import (
    NODE_ADD,
    PROFILE,
    QUEUE,
    SKIP,
    AllowlistPreEnqueue,
    failing_hint,
    gated_queue,
    high_priority_nominated_pod,
    high_priority_pod,
    hint_map,
    make_pod,
    medium_priority_pod,
    new_queue,
    queue_hint,
    queued,
)

NODE_LABEL_UPDATE = ClusterEvent(EventResource.NODE, ActionType.UPDATE_NODE_LABEL)
NODE_UPDATE = ClusterEvent(EventResource.NODE, ActionType.UPDATE)
WILDCARD_ADD = ClusterEvent(EventResource.WILDCARD, ActionType.ADD)
WILDCARD_ALL = ClusterEvent(EventResource.WILDCARD, ActionType.ALL)
POD1 = make_pod("pod1", "ns1", uid="1")


# One-letter hint makers keep the table below readable: Queue, QueueSkip, Error.
def Q(calls):
    return queue_hint(QueueingHint.QUEUE, calls)


def S(calls):
    return queue_hint(QueueingHint.QUEUE_SKIP, calls)


def E(calls):
    return failing_hint(calls)


WORTH_REQUEUING_CASES = [
    # (unschedulable, pending, event, new_obj, hints, expected, executions)
    ({"fooPlugin1"}, set(), NODE_ADD, None,
     {EVENT_ASSIGNED_POD_ADD: [("fooPlugin1", Q)]}, QueueingStrategy.QUEUE_SKIP, 0),
    ({"fooPlugin1"}, set(), NODE_ADD, None,
     {NODE_ADD: [("fooPlugin1", E)]}, QueueingStrategy.QUEUE_AFTER_BACKOFF, 1),
    ({"fooPlugin1"}, set(), EVENT_UNSCHEDULABLE_TIMEOUT, None,
     None, QueueingStrategy.QUEUE_AFTER_BACKOFF, 0),
    ({"fooPlugin1"}, set(), EVENT_FORCE_ACTIVATE, make_pod("pod1", "ns1", uid="1"),
     None, QueueingStrategy.QUEUE_AFTER_BACKOFF, 0),
    ({"fooPlugin1"}, set(), EVENT_FORCE_ACTIVATE, make_pod("pod-different", "ns2", uid="2"),
     None, QueueingStrategy.QUEUE_SKIP, 0),
    ({"fooPlugin1", "fooPlugin3"}, {"fooPlugin2"}, NODE_ADD, None,
     {NODE_ADD: [("fooPlugin1", Q), ("fooPlugin2", Q), ("fooPlugin3", Q), ("fooPlugin4", E)]},
     QueueingStrategy.QUEUE_IMMEDIATELY, 2),
    ({"fooPlugin1", "fooPlugin2"}, set(), NODE_ADD, None,
     {NODE_ADD: [("fooPlugin1", S), ("fooPlugin2", Q)]}, QueueingStrategy.QUEUE_AFTER_BACKOFF, 2),
    ({"fooPlugin1", "fooPlugin2"}, set(), NODE_ADD, None,
     {NODE_ADD: [("fooPlugin1", S), ("fooPlugin2", S), ("fooPlugin3", Q)]},
     QueueingStrategy.QUEUE_SKIP, 2),
    ({"fooPlugin1", "fooPlugin2"}, set(), NODE_LABEL_UPDATE, None,
     {NODE_LABEL_UPDATE: [("fooPlugin1", Q), ("fooPlugin2", Q)], NODE_UPDATE: [("fooPlugin1", Q)],
      NODE_ADD: [("fooPlugin1", Q)]},
     QueueingStrategy.QUEUE_AFTER_BACKOFF, 1),
    ({"fooPlugin1"}, set(), NODE_ADD, None,
     {WILDCARD_ADD: [("fooPlugin1", Q)]}, QueueingStrategy.QUEUE_AFTER_BACKOFF, 1),
    ({"fooPlugin1"}, set(),
     ClusterEvent(EventResource.NODE, ActionType.UPDATE_NODE_LABEL | ActionType.UPDATE_NODE_TAINT),
     None, {WILDCARD_ALL: [("fooPlugin1", Q)]}, QueueingStrategy.QUEUE_AFTER_BACKOFF, 1),
]  # fmt: skip

WORTH_REQUEUING_IDS = [
    "no hint is registered for the event, so the pod is skipped",
    "a hint that raises counts as Queue",
    "a wildcard event requeues the pod",
    "a wildcard event aimed at this pod requeues it",
    "a wildcard event aimed at another pod skips this one",
    "Queue from a Pending plugin means queue immediately",
    "Queue from an Unschedulable plugin means queue after backoff",
    "hints of plugins that did not reject the pod are ignored",
    "a specific node update also runs hints registered for the general update",
    "hints registered for a wildcard resource run for specific resources",
    "hints registered for the wildcard event run for every event",
]


@pytest.mark.parametrize(
    ("unschedulable", "pending", "event", "new_obj", "hints", "expected", "executions"),
    WORTH_REQUEUING_CASES,
    ids=WORTH_REQUEUING_IDS,
)
def test_is_pod_worth_requeuing(
    unschedulable, pending, event, new_obj, hints, expected, executions
):
    calls: list[str] = []
    registered = (
        {}
        if hints is None
        else hint_map({e: [(plugin, make(calls)) for plugin, make in h] for e, h in hints.items()})
    )
    queue, _ = new_queue(queueing_hint_map=registered)
    pod_info = queued(POD1, *unschedulable, pending_plugins=set(pending))
    assert queue.is_pod_worth_requeuing(pod_info, event, None, new_obj) == expected
    assert len(calls) == executions


MOVE_NOW = dt.datetime(2025, 1, 1, tzinfo=dt.UTC).timestamp()
LABELLED = make_pod("pod1", "ns1", uid="1", labels={"foo": "bar"})


def _gated(plugin, events):
    pod_info = queued(LABELLED, plugin)
    pod_info.gating_plugin = plugin
    pod_info.gating_plugin_events = events
    return pod_info


@pytest.mark.parametrize(
    ("make_pod_info", "hint", "duration", "expected"),
    [
        (lambda: queued(LABELLED, pending_plugins={"foo"}), QUEUE, 0, "active"),
        (lambda: queued(LABELLED, "foo"), QUEUE, 0, "backoff"),
        (lambda: queued(LABELLED, "foo"), QUEUE, 2, "active"),
        (lambda: queued(LABELLED, "foo"), SKIP, 0, "unschedulable"),
        (
            lambda: _gated("SchedulingGates", [EVENT_UNSCHEDULED_POD_UPDATE]),
            failing_hint(),
            0,
            "unschedulable",
        ),
        (lambda: _gated("foo", [NODE_ADD]), QUEUE, 0, "backoff"),
    ],
    ids=[
        "Queue moves a pod with a Pending plugin to the active queue",
        "Queue moves a pod still backing off to the backoff queue",
        "Queue moves a pod done backing off to the active queue",
        "QueueSkip leaves the pod in the unschedulable pool",
        "the hint is not run when the gating plugin did not register the event",
        "the hint is run when the gating plugin registered the event",
    ],
)
def test_move_all_follows_the_hints(make_pod_info, hint, duration, expected):
    registered = hint_map(
        {NODE_ADD: [("foo", hint)], EVENT_UNSCHEDULED_POD_UPDATE: [("SchedulingGates", QUEUE)]}
    )
    queue, clock = gated_queue(
        SchedulingGates(None, None, Features()),
        AllowlistPreEnqueue("foo", name="foo"),
        clock=FakeClock(MOVE_NOW),
        queueing_hint_map=registered,
    )
    pod_info = make_pod_info()
    queue.add(pod_info.pod)
    assert queue.pop().pod is pod_info.pod
    queue.add_unschedulable_if_not_present(pod_info, queue.scheduling_cycle())
    clock.step(duration)

    queue.move_all_to_active_or_backoff_queue(NODE_ADD)

    where = {
        "active": queue.active_q.has(LABELLED),
        "backoff": queue.backoff_q.has(LABELLED),
        "unschedulable": queue.unschedulable_pods.get(LABELLED) is not None,
    }
    assert [name for name, found in where.items() if found] == [expected]


UPDATE_HINTS = hint_map(
    {EVENT_UNSCHEDULED_POD_UPDATE: [("queuePlugin", QUEUE), ("skipPlugin", SKIP)]}
)


def _annotated(pod, value):
    return make_pod(
        pod.name,
        pod.namespace,
        uid=pod.uid,
        priority=pod.spec.priority,
        nominated_node_name=pod.status.nominated_node_name,
        annotations={**pod.metadata.annotations, "foo": value},
    )


def _not_queued(queue, clock):
    medium = medium_priority_pod()
    return medium, _annotated(medium, "test")


def _adds_nomination(queue, clock):
    return high_priority_pod(), high_priority_nominated_pod()


def _in_active(queue, clock):
    queue.add(high_priority_pod())
    return high_priority_pod(), high_priority_pod()


def _in_backoff(queue, clock):
    pod_info = queued(medium_priority_pod(), timestamp=clock.now())
    queue.backoff_q.add(pod_info)
    return pod_info.pod, pod_info.pod


def _unschedulable(plugin, wait=0.0):
    def prepare(queue, clock):
        pod_info = queued(medium_priority_pod(), plugin, timestamp=clock.now())
        pod_info.unschedulable_count += 1
        queue.unschedulable_pods.add_or_update(pod_info)
        clock.step(wait)
        return pod_info.pod, _annotated(pod_info.pod, "test1")

    return prepare


def _in_flight(queue, clock):
    queue.add(medium_priority_pod())
    queue.pop()
    return medium_priority_pod(), _annotated(medium_priority_pod(), "bar")


@pytest.mark.parametrize(
    ("prepare", "want", "want_nominated"),
    [
        (_not_queued, "active", False),
        (_adds_nomination, "active", True),
        (_in_active, "active", False),
        (_in_backoff, "backoff", False),
        (_unschedulable("queuePlugin"), "backoff", False),
        (_unschedulable("queuePlugin", wait=10), "active", False),
        (_unschedulable("skipPlugin"), "unschedulable", False),
        (_in_flight, None, False),
    ],
    ids=[
        "an update of a pod the queue does not hold adds it to the active queue",
        "an update adding a nominated node nominates the pod",
        "a pod in the active queue stays there",
        "a pod in the backoff queue is updated there",
        "an unschedulable pod still backing off moves to the backoff queue",
        "an unschedulable pod done backing off moves to the active queue",
        "an unschedulable pod stays when the hint says QueueSkip",
        "a pod in flight is not queued anywhere",
    ],
)
def test_update_moves_the_pod_where_the_hints_say(prepare, want, want_nominated):
    queue, clock = new_queue(queueing_hint_map=UPDATE_HINTS)
    old_pod, new_pod = prepare(queue, clock)

    queue.update(old_pod, new_pod)

    found = {
        "active": queue.active_q.get(new_pod),
        "backoff": queue.backoff_q.get(new_pod),
        "unschedulable": queue.unschedulable_pods.get(new_pod),
    }
    assert [name for name, pod_info in found.items() if pod_info is not None] == (
        [want] if want else []
    )
    if want:
        assert found[want].pod is new_pod
    if want_nominated:
        assert len(queue.nominator.nominated_pods) == 1


class _Registers:
    def __init__(self, name, events):
        self.name = name
        self._events = events

    def events_to_register(self):
        return self._events


def test_the_hint_map_adds_node_taint_updates_for_plugins_that_watch_node_adds():
    hint_fn = queue_hint(QueueingHint.QUEUE_SKIP)
    built = build_queueing_hint_map(
        [
            _Registers("AddsNodes", [ClusterEventWithHint(NODE_ADD, hint_fn)]),
            _Registers(
                "WatchesTaints",
                [
                    ClusterEventWithHint(
                        ClusterEvent(
                            EventResource.NODE, ActionType.ADD | ActionType.UPDATE_NODE_TAINT
                        )
                    )
                ],
            ),
            _Registers("NoEvents", []),
        ]
    )
    taint_update = ClusterEvent(EventResource.NODE, ActionType.UPDATE_NODE_TAINT)
    assert [(h.plugin_name, h.queueing_hint_fn) for h in built[NODE_ADD]] == [
        ("AddsNodes", hint_fn)
    ]
    assert [(h.plugin_name, h.queueing_hint_fn) for h in built[taint_update]] == [
        ("AddsNodes", default_queueing_hint_fn)
    ]
    both = ClusterEvent(EventResource.NODE, ActionType.ADD | ActionType.UPDATE_NODE_TAINT)
    assert [(h.plugin_name, h.queueing_hint_fn) for h in built[both]] == [
        ("WatchesTaints", default_queueing_hint_fn)
    ]
    assert len(built) == 3


def test_the_queue_takes_its_hints_from_the_profiles_frameworks():
    queue, _ = gated_queue(SchedulingGates(None, None, Features.from_gates()))
    registered = queue.hints.hint_map[PROFILE]
    assert [event.label() for event in registered] == ["PodUpdatePodSchedulingGatesEliminated"]
    assert [h.plugin_name for h in next(iter(registered.values()))] == ["SchedulingGates"]
