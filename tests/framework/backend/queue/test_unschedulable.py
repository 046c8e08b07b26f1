"""The unschedulable pool: cluster events and the maximum stay move pods out of it."""

from __future__ import annotations

import pytest

from framework.interface.cluster_events import (
    EVENT_ASSIGNED_POD_ADD,
    EVENT_UNSCHEDULABLE_TIMEOUT,
)
from framework.interface.events import ActionType, ClusterEvent, EventResource
from framework.plugins import names as plugin_names
from framework.util.clock import FakeClock

from .helpers import (
    HIGH_PRIORITY,
    MID_PRIORITY,
    NODE_ADD,
    PV_ADD,
    QUEUE,
    START,
    high_priority_pod,
    hint_map,
    make_pod,
    medium_priority_pod,
    names,
    new_queue,
    queued,
    unschedulable_pod,
)

MAX_STAY = 300.0


def fail_once(queue, pod, *plugins):
    """Adds, pops and hands back the pod as rejected by ``plugins``."""
    queue.add(pod)
    popped = queue.pop()
    assert popped.pod.name == pod.name
    queue.add_unschedulable_if_not_present(queued(pod, *plugins), queue.scheduling_cycle())


def test_pods_stuck_longer_than_the_maximum_are_flushed_in_priority_order():
    queue, clock = new_queue(queueing_hint_map=hint_map({NODE_ADD: [("fakePlugin", QUEUE)]}))
    high = make_pod("test-highpod", "ns1", uid="tp-high", priority=HIGH_PRIORITY)
    mid = make_pod("test-midpod", "ns1", uid="tp-mid", priority=MID_PRIORITY)
    fail_once(queue, high, "fakePlugin")
    fail_once(queue, mid, "fakePlugin")
    clock.step(MAX_STAY + 1)
    queue.flush_unschedulable_pods_leftover()
    assert [queue.pop().pod.name for _ in range(2)] == ["test-highpod", "test-midpod"]


def test_a_flushed_pod_is_marked_until_it_comes_back():
    queue, clock = new_queue(queueing_hint_map={})
    pod = make_pod("test-pod", "ns1", uid="tp-1", priority=MID_PRIORITY)
    queue.add(pod)
    assert queue.pop().was_flushed_from_unschedulable is False
    queue.add_unschedulable_if_not_present(queued(pod, "fakePlugin"), 1)
    clock.step(MAX_STAY + 1)
    queue.flush_unschedulable_pods_leftover()
    popped = queue.pop()
    assert popped.was_flushed_from_unschedulable is True
    queue.add_unschedulable_if_not_present(queued(popped.pod, "fakePlugin"), 2)
    assert queue.unschedulable_pods.get(pod).was_flushed_from_unschedulable is False


@pytest.mark.parametrize(
    "max_stay",
    [None, 30.0],
    ids=["the default maximum stay", "a maximum stay from the options"],
)
def test_the_maximum_stay_comes_from_the_options(max_stay):
    options = {} if max_stay is None else {"pod_max_in_unschedulable_pods_seconds": max_stay}
    clock = FakeClock(START + 0.5)
    queue, _ = new_queue(clock, **options)
    now = clock.now()
    first = queued(make_pod("test-pod-1", "ns1", uid="tp-1", nominated_node_name="node1"))
    second = queued(make_pod("test-pod-2", "ns2", uid="tp-2", nominated_node_name="node2"))
    first.timestamp, second.timestamp = now - 1, now - 2
    for pod_info in (first, second):
        pod_info.unschedulable_count += 1
        queue.unschedulable_pods.add_or_update(pod_info)
    clock.step(queue.pod_max_in_unschedulable_pods_seconds)
    queue.flush_unschedulable_pods_leftover()
    assert len(queue.active_q) == 2
    assert [queue.pop() for _ in range(2)] == [second, first]
    assert queue.pod_max_in_unschedulable_pods_seconds == (max_stay or MAX_STAY)


def test_move_all_requeues_only_pods_the_event_may_help():
    queue, clock = new_queue(queueing_hint_map=hint_map({NODE_ADD: [("fooPlugin", QUEUE)]}))
    up, high, med = unschedulable_pod(), high_priority_pod(), medium_priority_pod()
    hpp1 = make_pod("hpp1", "ns1", uid="hpp1ns1", priority=HIGH_PRIORITY)
    hpp2 = make_pod("hpp2", "ns1", uid="hpp2ns1", priority=HIGH_PRIORITY)

    queue.add(up)
    queue.pop()
    queue.add(high)
    queue.pop()
    assert sorted(names(queue.in_flight_pods())) == ["hpp", "up"]
    queue.add_unschedulable_if_not_present(queued(up, "fooPlugin"), queue.scheduling_cycle())
    queue.add_unschedulable_if_not_present(queued(high, "fooPlugin"), queue.scheduling_cycle())
    assert queue.in_flight_pods() == []
    queue.add(hpp1)
    queue.pop()
    # No rejecting plugin: an error, so it backs off whatever happens.
    queue.add_unschedulable_if_not_present(queued(hpp1, unschedulable_count=1), 3)
    queue.add(hpp2)
    queue.pop()
    queue.add_unschedulable_if_not_present(queued(hpp2, "barPlugin"), 4)

    queue.move_all_to_active_or_backoff_queue(NODE_ADD)
    queue.add(med)
    assert len(queue.active_q) == 1
    assert queue.pop().pod.name == "mpp"
    assert sorted(names(queue.pods_in_backoff_q())) == ["hpp", "hpp1", "up"]
    assert names(queue.unschedulable_pod_list()) == ["hpp2"], "barPlugin has no NodeAdd hint"

    clock.step(queue.backoff_q.pod_max_backoff_seconds)
    queue.backoff_q.pop_all_backoff_completed()
    assert names(queue.in_flight_pods()) == ["mpp"], "leaving backoff is not a pop"

    for pod in (up, high, hpp1):
        queue.add(pod)
        queue.pop()
    up_info, high_info, hpp1_info = queued(up, "fooPlugin"), queued(high, "fooPlugin"), queued(hpp1)
    for pod_info in (up_info, high_info, hpp1_info):
        queue.add_unschedulable_if_not_present(pod_info, queue.scheduling_cycle())
    assert names(queue.in_flight_pods()) == ["mpp"]
    queue.add(med)
    assert sorted(names(queue.unschedulable_pod_list())) == ["hpp", "hpp2", "up"]
    assert names(queue.pods_in_backoff_q()) == ["hpp1"]
    assert len(queue.active_q) == 1

    clock.step(queue.backoff_q.pod_max_backoff_seconds)
    queue.flush_backoff_q_completed()
    queue.move_all_to_active_or_backoff_queue(NODE_ADD)
    assert len(queue.active_q) == 4
    assert len(queue.backoff_q) == 0
    assert names(queue.unschedulable_pod_list()) == ["hpp2"]


@pytest.mark.parametrize(
    ("event", "pre_check", "want"),
    [
        (EVENT_UNSCHEDULABLE_TIMEOUT, None, {"p0", "p1", "p2", "p3", "p4"}),
        (EVENT_UNSCHEDULABLE_TIMEOUT, lambda pod: pod.spec.priority >= 2, {"p2", "p3", "p4"}),
        (
            EVENT_UNSCHEDULABLE_TIMEOUT,
            lambda pod: pod.spec.priority % 2 == 0 and pod.spec.priority >= 2,
            {"p2", "p4"},
        ),
        (
            EVENT_UNSCHEDULABLE_TIMEOUT,
            lambda pod: pod.spec.priority % 2 == 0 and pod.spec.priority < 0,
            set(),
        ),
        (PV_ADD, lambda pod: pytest.fail("pre_check must not run"), set()),
    ],
    ids=[
        "without a pre-check every pod moves",
        "pods with priority of at least 2 move",
        "pods with an even priority of at least 2 move",
        "no pod has an even negative priority",
        "the pre-check is not run for an event no plugin is interested in",
    ],
)
def test_move_all_runs_the_pre_check(event, pre_check, want):
    queue, clock = new_queue()
    for i in range(5):
        fail_once(queue, make_pod(f"p{i}", priority=i), "plugin")
    queue.move_all_to_active_or_backoff_queue(event, pre_check=pre_check)
    clock.step(2 * queue.backoff_q.pod_max_backoff_seconds)
    assert {p.pod.name for p in queue.backoff_q.pop_all_backoff_completed()} == want


AFFINITY_POD = make_pod(
    "afp",
    "ns1",
    uid="afp",
    annotations={"annot2": "val2"},
    affinity={
        "podAffinity": {
            "requiredDuringSchedulingIgnoredDuringExecution": [
                {
                    "labelSelector": {
                        "matchExpressions": [{"key": "service", "operator": "Exists"}]
                    },
                    "topologyKey": "region",
                }
            ]
        }
    },
)
SPREAD_POD = make_pod(
    "tsp",
    "ns1",
    uid="tsp",
    topologySpreadConstraints=[
        {"maxSkew": 1, "topologyKey": "node", "whenUnsatisfiable": "DoNotSchedule"}
    ],
)
PLAIN_POD = make_pod("afp", "ns1", uid="afp", annotations={"annot2": "val2"})
RESOURCE_POD = make_pod(
    "rp",
    "ns1",
    uid="afp",
    containers=[{"name": "c", "image": "pause", "resources": {"requests": {"cpu": "1"}}}],
)
MATCHING_ASSIGNED = make_pod("lbp", "ns1", labels={"service": "securityscan"}, node_name="node1")
UNRELATED_ASSIGNED = make_pod(
    "lbp", "unrelated", labels={"unrelated": "unrelated"}, node_name="node1"
)

ASSIGNED_POD_CASES = [
    (AFFINITY_POD, plugin_names.INTER_POD_AFFINITY, MATCHING_ASSIGNED, True),
    (AFFINITY_POD, plugin_names.INTER_POD_AFFINITY, UNRELATED_ASSIGNED, False),
    (SPREAD_POD, plugin_names.POD_TOPOLOGY_SPREAD, MATCHING_ASSIGNED, True),
    (AFFINITY_POD, plugin_names.POD_TOPOLOGY_SPREAD, UNRELATED_ASSIGNED, False),
    (PLAIN_POD, "fakePlugin", UNRELATED_ASSIGNED, False),
]
ASSIGNED_POD_IDS = [
    "a pod rejected by pod affinity is requeued by a matching pod",
    "a pod rejected by pod affinity is not requeued by an unrelated pod",
    "a pod rejected by topology spread is requeued by a pod in its namespace",
    "a pod rejected by topology spread is not requeued by a pod elsewhere",
    "a pod rejected by another plugin is not requeued by any pod",
]


@pytest.mark.parametrize(
    ("pending", "plugin", "assigned", "want_requeued"), ASSIGNED_POD_CASES, ids=ASSIGNED_POD_IDS
)
def test_an_added_assigned_pod_requeues_pods_whose_cross_pod_terms_it_may_satisfy(
    pending, plugin, assigned, want_requeued
):
    hints = [
        (name, QUEUE)
        for name in (
            "fakePlugin",
            plugin_names.INTER_POD_AFFINITY,
            plugin_names.POD_TOPOLOGY_SPREAD,
        )
    ]
    queue, clock = new_queue(queueing_hint_map=hint_map({EVENT_ASSIGNED_POD_ADD: hints}))
    fail_once(queue, pending, plugin)
    clock.step(queue.backoff_q.pod_initial_backoff_seconds + 1)
    queue.assigned_pod_added(assigned)
    assert queue.active_q.has(pending) is want_requeued


POD_LABEL_UPDATE = ClusterEvent(EventResource.POD, ActionType.UPDATE_POD_LABEL)


@pytest.mark.parametrize(
    ("pending", "plugin", "event", "assigned", "want_requeued"),
    [
        (pending, plugin, POD_LABEL_UPDATE, assigned, want)
        for pending, plugin, assigned, want in ASSIGNED_POD_CASES[:4]
    ]
    + [
        (
            RESOURCE_POD,
            plugin_names.NODE_RESOURCES_FIT,
            ClusterEvent(EventResource.ASSIGNED_POD, ActionType.UPDATE_POD_SCALE_DOWN),
            make_pod("lbp", "ns2", node_name="node1"),
            True,
        ),
        (PLAIN_POD, "fakePlugin", POD_LABEL_UPDATE, UNRELATED_ASSIGNED, False),
    ],
    ids=[
        *ASSIGNED_POD_IDS[:4],
        "a pod rejected by resource fit is requeued by a scale down",
        ASSIGNED_POD_IDS[4],
    ],
)
def test_an_updated_assigned_pod_requeues_pods_it_may_help(
    pending, plugin, event, assigned, want_requeued
):
    label_hints = [
        (name, QUEUE)
        for name in (
            "fakePlugin",
            plugin_names.INTER_POD_AFFINITY,
            plugin_names.POD_TOPOLOGY_SPREAD,
        )
    ]
    queue, clock = new_queue(
        queueing_hint_map=hint_map(
            {
                POD_LABEL_UPDATE: label_hints,
                ClusterEvent(EventResource.POD, ActionType.UPDATE_POD_SCALE_DOWN): [
                    (plugin_names.NODE_RESOURCES_FIT, QUEUE)
                ],
            }
        )
    )
    fail_once(queue, pending, plugin)
    clock.step(queue.backoff_q.pod_initial_backoff_seconds + 1)
    queue.assigned_pod_updated(None, assigned, event)
    assert queue.active_q.has(pending) is want_requeued


def test_run_periodic_flushes_backoff_every_second_and_leftovers_every_thirty():
    queue, clock = new_queue(FakeClock(START + 0.5), queueing_hint_map={})
    queue.run()
    assert queue.next_periodic_deadline() == START + 1
    fail_once(queue, make_pod("rejected"), "plugin")
    queue.add(make_pod("errored"))
    errored = queue.pop()
    queue.add_unschedulable_if_not_present(errored, queue.scheduling_cycle())
    assert names(queue.pods_in_backoff_q()) == ["errored"]

    clock.step(1)  # START + 1.5: the errored pod's backoff ends in this window
    queue.run_periodic()
    assert names(queue.pods_in_backoff_q()) == ["errored"]
    clock.step(1)
    queue.run_periodic()
    assert names(queue.pods_in_active_q()) == ["errored"]

    clock.set_time(START + 30.5)
    queue.run_periodic()
    assert names(queue.unschedulable_pod_list()) == ["rejected"], "not stuck for long enough"
    clock.set_time(START + MAX_STAY + 30.5)
    queue.run_periodic()
    assert names(queue.pods_in_active_q()) == ["errored", "rejected"]
    assert queue.next_periodic_deadline() == START + MAX_STAY + 31
