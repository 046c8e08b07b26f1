"""GangScheduling: the facts of upstream's gangscheduling_test.go (hints, PreEnqueue, Permit),
with the cache's pod-group states and a snapshot underneath, as upstream's test sets them up."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import pytest

from framework.api.pod_group import PodGroup
from framework.backend.cache.cache import Cache
from framework.backend.cache.snapshot import Snapshot
from framework.cluster.memory import InMemoryCluster
from framework.features import FeatureGates
from framework.interface.cycle_state import CycleState
from framework.interface.events import ActionType, ClusterEvent, EventResource, QueueingHint
from framework.interface.node_info import PodInfo
from framework.interface.status import Code, Status
from framework.plugins.feature import Features
from framework.plugins.gangscheduling.gang_scheduling import PERMIT_TIMEOUT_SECONDS, GangScheduling
from framework.plugins.registry import in_tree_registry
from framework.runtime.framework import Framework
from framework.runtime.registry import Registry, plugin_type
from framework.util.clock import FakeClock
from tests.framework.builders import make_pod

GATES_ON = Features(enable_gang_scheduling=True, enable_generic_workload=True)


def member(name: str, group: str | None, namespace: str = "ns1"):
    spec = {"schedulingGroup": {"podGroupName": group}} if group is not None else {}
    return make_pod(name, namespace, uid=name, **spec)


def pod_group(name: str, min_count: int | None, namespace: str = "ns1") -> PodGroup:
    """A gang of ``min_count``, or a basic group when None."""
    policy = {"basic": {}} if min_count is None else {"gang": {"minCount": min_count}}
    return PodGroup.from_dict(
        {
            "apiVersion": "scheduling.k8s.io/v1alpha2",
            "kind": "PodGroup",
            "metadata": {"name": name, "namespace": namespace},
            "spec": {"schedulingPolicy": policy},
        }
    )


def on_node(pod, node_name: str = "some-node"):
    copy = pod.deep_copy()
    copy.spec.node_name = node_name
    return copy


class RecordingActivator:
    def __init__(self) -> None:
        self.activated: list[str] = []

    def activate(self, pods: dict[str, Any]) -> None:
        self.activated.extend(sorted(pods))


# -- queueing hints ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("pod", "added", "want"),
    [
        (member("p", "pg"), member("new", "pg"), QueueingHint.QUEUE),
        (member("p", "pg"), member("new", "pg", namespace="foo"), QueueingHint.QUEUE_SKIP),
        (member("p", "pg1"), member("new", "pg2"), QueueingHint.QUEUE_SKIP),
    ],
    ids=[
        "add a pod which matches the pod's scheduling group",
        "add a pod which doesn't match the pod's namespace",
        "add a pod which doesn't match the pod's pod group name",
    ],
)
def test_a_new_pod_requeues_only_members_of_its_group(pod, added, want):
    plugin = GangScheduling(None, None, GATES_ON)
    assert plugin.is_schedulable_after_pod_added(pod, None, added) == want


@pytest.mark.parametrize(
    ("pod", "added", "want"),
    [
        (member("p", "pg"), pod_group("pg", 1), QueueingHint.QUEUE),
        (member("p", "pg1"), pod_group("pg2", 1), QueueingHint.QUEUE_SKIP),
        (member("p", "pg"), pod_group("pg", 1, namespace="ns2"), QueueingHint.QUEUE_SKIP),
    ],
    ids=[
        "add a pod group which matches the pod's pod group name",
        "add a pod group which doesn't match the pod's scheduling group name",
        "add a pod group which doesn't match the pod's scheduling group namespace",
    ],
)
def test_a_new_pod_group_requeues_only_its_own_members(pod, added, want):
    plugin = GangScheduling(None, None, GATES_ON)
    assert plugin.is_schedulable_after_pod_group_added(pod, None, added) == want


def test_it_registers_pod_and_pod_group_additions_only():
    events = GangScheduling(None, None, GATES_ON).events_to_register()
    assert [e.event for e in events] == [
        ClusterEvent(EventResource.POD, ActionType.ADD),
        ClusterEvent(EventResource.POD_GROUP, ActionType.ADD),
    ]


def test_the_in_tree_registry_has_it_whatever_the_gates_as_upstream():
    for gates in (FeatureGates(), FeatureGates({"GenericWorkload": True, "GangScheduling": True})):
        assert plugin_type(in_tree_registry(gates)["GangScheduling"]) is GangScheduling


def test_pods_outside_groups_pass_it_with_the_gates_off():
    handle = Framework(Registry(), None, pod_group_manager=Cache(), clock=FakeClock())
    plugin = GangScheduling(None, handle, Features())
    pod = member("plain", None)
    assert plugin.pre_enqueue(pod) is None
    assert plugin.permit(CycleState(), on_node(pod), "some-node") == (None, 0)


# -- PreEnqueue and Permit (upstream TestGangSchedulingFlow) ---------------------------------

GANG_1 = pod_group("pg1", 3)
GANG_2 = pod_group("pg2", 4)
BASIC = pod_group("pg3", None)
P1, P2, P3 = member("p1", "pg1"), member("p2", "pg1"), member("p3", "pg1")
P4, P5 = member("p4", "pg2"), member("p5", "pg2")


@dataclass
class Case:
    name: str
    pod: Any
    initial_pods: list[Any] = field(default_factory=list)
    pod_groups: list[PodGroup] = field(default_factory=lambda: [GANG_1, GANG_2])
    waiting_on_permit: list[Any] = field(default_factory=list)
    in_pod_group_cycle: bool = False
    want_pre_enqueue: Status | None = None
    want_permit: Status | None = None
    want_activated: list[str] = field(default_factory=list)
    want_allowed: list[str] = field(default_factory=list)


CASES = [
    Case(
        "non-gang pod succeeds immediately",
        member("non-gang", None),
        pod_groups=[GANG_1, GANG_2, BASIC],
    ),
    Case(
        "basic policy pod succeeds immediately",
        member("basic-pod", "pg3"),
        pod_groups=[GANG_1, GANG_2, BASIC],
    ),
    Case(
        "gang pod fails PreEnqueue when pod group is not yet created",
        P1,
        initial_pods=[P2, P3, P4, P5],
        pod_groups=[],
        want_pre_enqueue=Status(
            Code.UNSCHEDULABLE_AND_UNRESOLVABLE,
            'waiting for pods\'s pod group "pg1" to appear in scheduling queue',
        ),
    ),
    Case(
        "gang pod fails PreEnqueue when quorum is not met",
        P1,
        initial_pods=[P2, P4, P5],
        want_pre_enqueue=Status(
            Code.UNSCHEDULABLE_AND_UNRESOLVABLE,
            "waiting for minCount pods from a gang to appear in scheduling queue",
        ),
    ),
    Case(
        "gang pod passes PreEnqueue, but waits at Permit",
        P1,
        initial_pods=[P2, P3, P4, P5],
        waiting_on_permit=[P2, P4, P5],
        want_permit=Status(Code.WAIT, "waiting for minCount pods from a gang to be scheduled"),
        want_activated=["p3"],
    ),
    Case(
        "final gang pod arrives at Permit and allows all waiting pods from a gang",
        P1,
        initial_pods=[P2, P3, P4, P5],
        waiting_on_permit=[P2, P3, P4, P5],
        want_allowed=["p2", "p3"],
    ),
    Case(
        "final gang pod arrives at Permit during pod group scheduling cycle",
        P1,
        initial_pods=[P2, P3, P4, P5],
        waiting_on_permit=[P2, P3, P4, P5],
        in_pod_group_cycle=True,
        want_allowed=["p2", "p3"],
    ),
]


@pytest.mark.parametrize("case", CASES, ids=[c.name for c in CASES])
def test_gang_scheduling_flow(case: Case):
    cache = Cache(generic_workload_enabled=True)
    snapshot = Snapshot()
    activator = RecordingActivator()
    handle = Framework(
        Registry(),
        None,
        pod_group_manager=cache,
        pod_activator=activator,
        snapshot_shared_lister=snapshot,
        cluster=InMemoryCluster(case.pod_groups),
        clock=FakeClock(),
    )
    for pod in [*case.initial_pods, case.pod]:
        cache.add_pod_group_member(pod)
    plugin = GangScheduling(None, handle, GATES_ON)

    assert plugin.pre_enqueue(case.pod) == case.want_pre_enqueue
    if case.want_pre_enqueue is not None:
        return

    # The others reached Permit first: assumed, and each told to wait.
    waiting = {}
    for pod in case.waiting_on_permit:
        assumed = on_node(pod)
        cache.assume_pod(assumed)
        status, timeout = plugin.permit(CycleState(), assumed, "some-node")
        assert (status.code, timeout) == (Code.WAIT, PERMIT_TIMEOUT_SECONDS)
        waiting[pod.uid] = handle.add_waiting_pod(assumed, {plugin.name: timeout})
    activator.activated.clear()

    state = CycleState()
    pod = on_node(case.pod)
    if case.in_pod_group_cycle:
        # The cycle assumes its members in the snapshot alone; Permit must read it there.
        state.set_pod_group_scheduling_cycle(object())
        cache.update_snapshot(snapshot)
        snapshot.assume_pod(PodInfo(pod))
    else:
        cache.assume_pod(pod)

    status, timeout = plugin.permit(state, pod, "some-node")
    assert status == case.want_permit
    assert timeout == (PERMIT_TIMEOUT_SECONDS if status is not None else 0)
    assert activator.activated == case.want_activated
    allowed = sorted(uid for uid, w in waiting.items() if w.outcome() is not None)
    assert allowed == case.want_allowed
    for uid in allowed:
        assert waiting[uid].outcome().is_success()


def test_permit_fails_with_an_error_once_the_pod_group_is_gone():
    handle = Framework(Registry(), None, cluster=InMemoryCluster(), clock=FakeClock())
    status, _ = GangScheduling(None, handle, GATES_ON).permit(CycleState(), on_node(P1), "n")
    assert status.code == Code.ERROR
    assert status.message() == (
        'failed to get podGroup ns1/pg1: podgroup.scheduling.k8s.io "pg1" not found'
    )


def test_pre_enqueue_errors_when_the_cache_knows_no_member_of_an_existing_gang():
    handle = Framework(
        Registry(),
        None,
        pod_group_manager=Cache(generic_workload_enabled=True),
        cluster=InMemoryCluster([GANG_1]),
        clock=FakeClock(),
    )
    status = GangScheduling(None, handle, GATES_ON).pre_enqueue(P1)
    assert status.code == Code.ERROR
    assert status.message() == "pod group state not found for pod group ns1/pg1"
