"""PreEnqueue gating while a pod's asynchronous preemption runs (upstream TestPreEnqueue), and
the events the plugin registers."""

from __future__ import annotations

import pytest

from framework.interface.events import ActionType, ClusterEvent, EventResource, QueueingHint
from framework.interface.status import Code, Status
from framework.interface.types import NodeToStatus
from framework.plugins.defaultpreemption.default_preemption import DefaultPreemption
from framework.plugins.feature import Features
from framework.preemption.executor import PendingVictim
from tests.framework.preemption.builders import HIGH_PRIORITY, ONE_POD, node, pod
from tests.framework.preemption.helpers import (
    default_preemption_args,
    fit,
    new_framework,
    run_pre_filter,
)

WAITING = Status(
    Code.UNSCHEDULABLE_AND_UNRESOLVABLE, "waiting for the preemption for this pod to be finished"
)


@pytest.mark.parametrize(
    ("async_preemption", "pod_to_check", "want"),
    [
        (False, "p", None),
        (True, "p", WAITING),
        (True, "p_other", None),
    ],
    ids=[
        "without async preemption nothing is gated",
        "the preemptor is gated while its victims are being evicted",
        "another pod is not gated",
    ],
)
def test_pre_enqueue_during_preemption(
    async_preemption: bool, pod_to_check: str, want: Status | None
) -> None:
    preemptor = pod("p", priority=HIGH_PRIORITY)
    fwk = new_framework([pod("p1", node="node1")], [node("node1", ONE_POD)], [fit()])
    fwk.cluster().add(preemptor)
    plugin = DefaultPreemption(
        default_preemption_args(), fwk, Features(enable_async_preemption=async_preemption)
    )
    seen: list[Status | None] = []
    # Ask PreEnqueue from inside the eviction, where upstream's test blocks its goroutine.
    plugin.executor.preempt_pod = lambda candidate, preemptor, victim, plugin_name: seen.append(
        plugin.pre_enqueue(pod(pod_to_check, priority=HIGH_PRIORITY))
    )

    plugin.post_filter(
        run_pre_filter(fwk, preemptor),
        preemptor,
        NodeToStatus({"node1": Status(Code.UNSCHEDULABLE)}),
    )

    assert seen == [want]
    assert plugin.pre_enqueue(preemptor) is None


def test_the_preemptor_is_no_longer_gated_once_its_last_victim_is_being_deleted() -> None:
    fwk = new_framework([pod("victim1", node="node1")], [node("node1")])
    plugin = DefaultPreemption(default_preemption_args(), fwk, Features.from_gates())
    plugin.executor.preempting.add("p")
    victim = fwk.cluster().get("Pod", "victim1", "default")
    plugin.executor.last_victims_pending_preemption["p"] = PendingVictim("default", "victim1")

    assert plugin.pre_enqueue(pod("p")) == WAITING
    fwk.cluster().delete(victim)
    assert plugin.pre_enqueue(pod("p")) is None


def test_with_async_preemption_pod_deletions_are_registered_with_a_skipping_hint() -> None:
    fwk = new_framework([], [])
    plugin = DefaultPreemption(default_preemption_args(), fwk, Features.from_gates())

    (registered,) = plugin.events_to_register()

    assert registered.event == ClusterEvent(EventResource.POD, ActionType.DELETE)
    hint = registered.queueing_hint_fn(pod("p"), pod("x"), None)
    assert hint == QueueingHint.QUEUE_SKIP


def test_without_async_preemption_no_event_is_registered() -> None:
    plugin = DefaultPreemption(default_preemption_args(), new_framework([], []), Features())

    assert plugin.events_to_register() == []
