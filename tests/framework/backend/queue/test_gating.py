"""Gating: PreEnqueue plugins keep pods out of the active (and backoff) queue."""

from __future__ import annotations

import pytest

from framework.plugins.feature import Features
from framework.plugins.schedulinggates.scheduling_gates import SchedulingGates

from .helpers import (
    NODE_ADD,
    QUEUE,
    AllowlistPreEnqueue,
    gated_queue,
    hint_map,
    make_pod,
    names,
    queued,
)

ALLOW_NOTHING = [AllowlistPreEnqueue(name="first"), AllowlistPreEnqueue(name="second")]
BAR_THEN_FOO_ONLY = [
    AllowlistPreEnqueue("foo", "bar", name="first"),
    AllowlistPreEnqueue("foo", name="second"),
]
BAR_ALLOWED_BY_BOTH = [
    AllowlistPreEnqueue("foo", "bar", name="first"),
    AllowlistPreEnqueue("bar", name="second"),
]


def _add(queue, pod):
    queue.add(pod)


def _flush_from_backoff(queue, pod):
    queue.backoff_q.add(queued(pod))
    queue.flush_backoff_q_completed()


def _activate_from_unschedulable(queue, pod):
    queue.unschedulable_pods.add_or_update(queued(pod))
    queue.activate({"pod": pod})


def _activate_from_backoff(queue, pod):
    queue.backoff_q.add(queued(pod))
    queue.activate({"pod": pod})


BOTH = [True, False]


@pytest.mark.parametrize(
    ("plugins", "label", "move", "pop_from_backoff", "want_active"),
    [
        ([], "p", _add, BOTH, True),
        (ALLOW_NOTHING, "p", _add, BOTH, False),
        (BAR_THEN_FOO_ONLY, "bar", _add, BOTH, False),
        (BAR_THEN_FOO_ONLY, "bar", _flush_from_backoff, [False], False),
        (BAR_THEN_FOO_ONLY, "bar", _flush_from_backoff, [True], True),
        (BAR_THEN_FOO_ONLY, "bar", _activate_from_unschedulable, [True], False),
        (BAR_THEN_FOO_ONLY, "bar", _activate_from_backoff, [True], True),
        (BAR_ALLOWED_BY_BOTH, "bar", _add, BOTH, True),
    ],
    ids=[
        "without plugins the pod is active",
        "a plugin that allows nothing gates the pod",
        "one failing plugin of two gates the pod",
        "PreEnqueue rejects a pod leaving backoff without pop-from-backoff",
        "PreEnqueue is not rerun for a pod leaving backoff with pop-from-backoff",
        "PreEnqueue rejects a pod activated from the unschedulable pool",
        "PreEnqueue is not rerun for a pod activated from the backoff queue",
        "a pod passing every plugin is active",
    ],
)
def test_pre_enqueue_decides_whether_a_pod_may_enter_the_active_queue(
    plugins, label, move, pop_from_backoff, want_active
):
    for enabled in pop_from_backoff:
        queue, _ = gated_queue(*plugins, queueing_hint_map={}, pop_from_backoff_q=enabled)
        pod = make_pod(label, labels={label: ""})
        move(queue, pod)
        assert queue.active_q.has(pod) is want_active
        assert len(queue.unschedulable_pods) == (0 if want_active else 1)

        # An update that lifts no gate leaves a gated pod where it is.
        annotated = make_pod(label, labels={label: ""}, annotations={"foo": ""})
        queue.update(pod, annotated)
        assert len(queue.unschedulable_pods) == (0 if want_active else 1)


@pytest.mark.parametrize(
    ("plugins", "pop_from_backoff", "want_backoff"),
    [
        ([], BOTH, True),
        (ALLOW_NOTHING, [False], True),
        (ALLOW_NOTHING, [True], False),
        (BAR_THEN_FOO_ONLY, [False], True),
        (BAR_THEN_FOO_ONLY, [True], False),
        (BAR_ALLOWED_BY_BOTH, BOTH, True),
    ],
    ids=[
        "without plugins the pod backs off",
        "PreEnqueue is not run on the way into backoff without pop-from-backoff",
        "a gating plugin keeps the pod out of backoff with pop-from-backoff",
        "a failing plugin is not run on the way into backoff without pop-from-backoff",
        "one failing plugin of two keeps the pod out of backoff with pop-from-backoff",
        "a pod passing every plugin backs off",
    ],
)
def test_pre_enqueue_runs_on_the_way_into_backoff_with_pop_from_backoff(
    plugins, pop_from_backoff, want_backoff
):
    for enabled in pop_from_backoff:
        queue, _ = gated_queue(
            *plugins,
            queueing_hint_map={},
            pop_from_backoff_q=enabled,
            pod_initial_backoff_seconds=30,
            pod_max_backoff_seconds=60,
        )
        pod = make_pod("bar", labels={"bar": ""})
        # Failed with an error: it must back off before the next attempt.
        queue.add_unschedulable_if_not_present(queued(pod), 0)
        assert queue.backoff_q.has(pod) is want_backoff
        assert (queue.unschedulable_pods.get(pod) is None) is want_backoff


def test_a_gated_pod_records_its_gating_plugin_and_the_events_it_listens_to():
    queue, _ = gated_queue(SchedulingGates(None, None, Features.from_gates()))
    pod = make_pod("gated", schedulingGates=[{"name": "example.com/wait"}])
    queue.add(pod)
    pod_info = queue.unschedulable_pods.get(pod)
    assert pod_info.gated
    assert pod_info.gating_plugin == "SchedulingGates"
    assert pod_info.unschedulable_plugins == {"SchedulingGates"}
    assert [event.label() for event in pod_info.gating_plugin_events] == [
        "PodUpdatePodSchedulingGatesEliminated"
    ]


def test_removing_the_scheduling_gates_ungates_the_pod():
    queue, _ = gated_queue(SchedulingGates(None, None, Features.from_gates()))
    gated = make_pod("p", uid="p", schedulingGates=[{"name": "hello world"}])
    queue.add(gated)
    assert queue.unschedulable_pods.get(gated).gated

    queue.update(gated, make_pod("p", uid="p"))

    popped = queue.pop()
    assert popped.pod.name == "p"
    assert not popped.gated


def test_a_gated_pod_is_checked_again_on_an_event_its_gating_plugin_registered():
    # Without EnqueueExtensions the plugin registers every resource, Node/Add included.
    plugin = AllowlistPreEnqueue("ok")
    queue, _ = gated_queue(plugin)
    pod = make_pod("p", labels={"later": ""})
    queue.add(pod)
    assert names(queue.unschedulable_pod_list()) == ["p"]

    plugin.allowlist = ["later"]
    queue.move_all_to_active_or_backoff_queue(NODE_ADD)

    assert names(queue.pods_in_active_q()) == ["p"]
    assert queue.unschedulable_pod_list() == []


def test_a_gated_pod_that_stays_gated_stays_in_the_unschedulable_pool():
    queue, _ = gated_queue(AllowlistPreEnqueue("never"))
    pod = make_pod("p")
    queue.add(pod)
    queue.move_all_to_active_or_backoff_queue(NODE_ADD)
    assert queue.unschedulable_pods.get(pod).gating_plugin == "preEnqueuePlugin"
    assert queue.pods_in_active_q() == []


class CountingPreEnqueue(AllowlistPreEnqueue):
    def __init__(self, *allowlist: str) -> None:
        super().__init__(*allowlist)
        self.calls = 0

    def pre_enqueue(self, pod):
        self.calls += 1
        return super().pre_enqueue(pod)


def test_a_gated_pod_is_left_alone_by_events_its_gating_plugin_did_not_register():
    plugin = CountingPreEnqueue("never")
    queue, clock = gated_queue(
        plugin, queueing_hint_map=hint_map({NODE_ADD: [("preEnqueuePlugin", QUEUE)]})
    )
    pod = make_pod("p")
    queue.add(pod)
    assert plugin.calls == 1
    clock.step(queue.pod_max_in_unschedulable_pods_seconds + 1)

    queue.flush_unschedulable_pods_leftover()  # the timeout is a wildcard event
    assert plugin.calls == 1, "PreEnqueue is not rerun for an event the gate ignores"
    queue.move_all_to_active_or_backoff_queue(NODE_ADD)
    assert plugin.calls == 2, "an event the gating plugin registered checks the gate again"
    assert names(queue.unschedulable_pod_list()) == ["p"]
