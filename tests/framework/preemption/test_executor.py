"""The Executor: evicting victims through the cluster (upstream TestPrepareCandidate), knowing
whether a preemptor is still preempting (TestIsPodRunningPreemption), and stopping victims that
wait in the scheduler's memory instead of deleting them."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import pytest

from framework.interface.status import Code, Status
from framework.plugins.feature import Features
from framework.preemption.executor import Executor, PendingVictim, PodPreemptor
from framework.preemption.types import Candidate, Victims
from tests.framework.preemption.builders import (
    HIGH_PRIORITY,
    MID_PRIORITY,
    VERY_LARGE,
    node,
    pod,
    pod_group,
)
from tests.framework.preemption.helpers import RecordingCluster, new_framework

CONDITION = {
    "type": "DisruptionTarget",
    "status": "True",
    "reason": "PreemptionByScheduler",
    "message": "default-scheduler: preempting to accommodate a higher priority pod",
}
PREEMPTOR = pod("preemptor", priority=HIGH_PRIORITY)


class FailingCluster(RecordingCluster):
    """Fails every write to the pod named ``fail-victim``, as upstream's reactors do."""

    def update_pod_status(self, namespace, name, condition=None, nominated_node_name=None):
        if name == "fail-victim":
            self.writes.append(("patch", name, condition))
            raise RuntimeError("patch pod status failed")
        super().update_pod_status(namespace, name, condition, nominated_node_name)

    def delete(self, obj: Any) -> None:
        if obj.name == "fail-victim":
            self.writes.append(("delete", obj.name, None))
            raise RuntimeError("delete pod failed")
        super().delete(obj)


class Activator:
    def __init__(self) -> None:
        self.activated: dict[str, Any] = {}

    def activate(self, pods: dict[str, Any]) -> None:
        self.activated.update(pods)


def victim(name: str, *, conditions: bool = False, terminating: bool = False, **kw: Any) -> Any:
    return pod(
        name,
        uid=kw.pop("uid", "victim1"),
        node="node1",
        priority=kw.pop("priority", MID_PRIORITY),
        conditions=[CONDITION] if conditions else None,
        terminating=terminating,
        **kw,
    )


@dataclass
class Case:
    id: str
    victims: list[Any]
    in_cluster: list[Any]
    deleted: list[str] = field(default_factory=list)
    patched: list[str] = field(default_factory=list)
    error: str = ""
    activated: bool = False


CASES = [
    Case("no victims", [], [victim("victim1")]),
    Case(
        "one victim without the condition is marked, then deleted",
        [victim("victim1")],
        [victim("victim1")],
        deleted=["victim1"],
        patched=["victim1"],
    ),
    Case(
        "a victim already being deleted is left alone",
        [victim("victim1-with-deletion-timestamp", uid="v-del", terminating=True)],
        [victim("victim1-with-deletion-timestamp", uid="v-del", terminating=True)],
    ),
    Case(
        "a victim already gone is not an error",
        [victim("not-found-victim")],
        [],
        patched=["not-found-victim"],
    ),
    Case(
        "a victim that already has the condition is only deleted",
        [victim("victim1", conditions=True)],
        [victim("victim1", conditions=True)],
        deleted=["victim1"],
    ),
    Case(
        "a victim gone before its deletion is not an error",
        [victim("victim1", conditions=True)],
        [],
        deleted=["victim1"],
    ),
    Case(
        "a failed deletion is an error and the preemptor is activated",
        [victim("fail-victim", conditions=True)],
        [],
        deleted=["fail-victim"],
        error="delete pod failed",
        activated=True,
    ),
    Case(
        "a failed condition patch is an error and the preemptor is activated",
        [victim("fail-victim")],
        [],
        patched=["fail-victim"],
        error="patch pod status failed",
        activated=True,
    ),
    Case(
        "after a failure the remaining victims are left alone",
        [victim("fail-victim"), victim("victim2", uid="victim2", priority=50000)],
        [victim("victim2", uid="victim2", priority=50000)],
        patched=["fail-victim"],
        error="patch pod status failed",
        activated=True,
    ),
]


@pytest.mark.parametrize("async_preemption", [True, False], ids=["async", "sync"])
@pytest.mark.parametrize("case", CASES, ids=[c.id for c in CASES])
def test_prepare_candidate_evicts_through_the_cluster(case: Case, async_preemption: bool) -> None:
    activator = Activator()
    fwk = new_framework(
        [],
        [node("node1", VERY_LARGE)],
        objects=case.in_cluster,
        cluster=FailingCluster(),
        pod_activator=activator,
    )
    cluster = fwk.cluster()
    cluster.writes.clear()
    executor = Executor(fwk, Features(enable_async_preemption=async_preemption))
    candidate = Candidate("node1", Victims(list(case.victims)))

    if async_preemption:
        executor.prepare_candidate_async(candidate, PodPreemptor(PREEMPTOR), "test-plugin")
        assert executor.preempting == set()
        assert executor.last_victims_pending_preemption == {}
        assert activator.activated == ({"preemptor": PREEMPTOR} if case.activated else {})
    else:
        status = executor.prepare_candidate(candidate, PodPreemptor(PREEMPTOR), "test-plugin")
        assert status == (Status.as_status(RuntimeError(case.error)) if case.error else None)
        if case.error:
            assert status.message() == case.error

    assert [name for op, name, _ in cluster.writes if op == "delete"] == case.deleted
    assert [name for op, name, _ in cluster.writes if op == "patch"] == case.patched
    for op, _, change in cluster.writes:
        if op == "patch":
            assert change == CONDITION


def test_async_preemption_marks_the_preemptor_and_then_its_last_victim() -> None:
    victims = [victim("v1", uid="v1"), victim("v2", uid="v2")]
    fwk = new_framework([], [node("node1")], objects=victims)
    executor = Executor(fwk, Features(enable_async_preemption=True))
    seen = []

    def record(candidate: Any, preemptor: Any, victim: Any, plugin_name: str) -> None:
        seen.append(
            (
                victim.name,
                set(executor.preempting),
                dict(executor.last_victims_pending_preemption),
                executor.is_pod_running_preemption("preemptor"),
            )
        )

    executor.preempt_pod = record
    executor.prepare_candidate_async(
        Candidate("node1", Victims(victims)), PodPreemptor(PREEMPTOR), "test-plugin"
    )

    assert seen == [
        ("v1", {"preemptor"}, {}, True),
        ("v2", {"preemptor"}, {"preemptor": PendingVictim("default", "v2")}, True),
    ]
    assert executor.is_pod_running_preemption("preemptor") is False


# -- is_pod_running_preemption (upstream TestIsPodRunningPreemption) -------------------------


@pytest.mark.parametrize(
    ("preempting", "last_victims", "in_cluster", "expected"),
    [
        (set(), {}, [], False),
        (set(), {"preemptor": PendingVictim("ns", "victim1")}, [], False),
        ({"preemptor"}, {"otherPod": PendingVictim("ns", "victim1")}, [], True),
        ({"preemptor"}, {"preemptor": PendingVictim("ns", "victim1")}, [], False),
        (
            {"preemptor"},
            {"preemptor": PendingVictim("ns", "victim1")},
            [
                pod("victim1", namespace="ns", node="node"),
                pod("victim2", namespace="ns", node="node"),
            ],
            True,
        ),
        (
            {"preemptor"},
            {"preemptor": PendingVictim("ns", "victim-deleted")},
            [
                pod("victim1", namespace="ns", node="node"),
                pod("victim-deleted", namespace="ns", node="node", terminating=True),
            ],
            False,
        ),
    ],
    ids=[
        "a preemptor not preempting",
        "a preemptor not preempting, with another's last victim pending",
        "a preemptor preempting, its last victim not yet reached",
        "a preemptor whose last victim is already gone",
        "a preemptor whose last victim still exists",
        "a preemptor whose last victim is already being deleted",
    ],
)
def test_is_pod_running_preemption(preempting, last_victims, in_cluster, expected) -> None:
    fwk = new_framework([], [], objects=in_cluster)
    executor = Executor(fwk, Features(enable_async_preemption=True))
    executor.preempting = set(preempting)
    executor.last_victims_pending_preemption = dict(last_victims)

    assert executor.is_pod_running_preemption("preemptor") is expected


# -- events and victims held in memory --------------------------------------------------------


def test_a_deleted_victim_gets_a_preempted_event_naming_the_preemptor_and_node() -> None:
    target = victim("victim1")
    fwk = new_framework([], [node("node1")], objects=[target])
    executor = Executor(fwk, Features())

    executor.preempt_pod(
        Candidate("node1", Victims([target])), PodPreemptor(PREEMPTOR), target, "DefaultPreemption"
    )

    (event,) = fwk.cluster().events
    assert event["regarding"] == {"kind": "Pod", "namespace": "default", "name": "victim1"}
    assert event["related"] == {"kind": "Pod", "namespace": "default", "name": "preemptor"}
    assert (event["type"], event["reason"], event["action"]) == (
        "Normal",
        "Preempted",
        "Preempting",
    )
    assert event["note"] == "Preempted by pod preemptor on node node1"


def test_a_victim_waiting_at_permit_is_preempted_in_memory_not_deleted() -> None:
    target = victim("victim1")
    fwk = new_framework([], [node("node1")], objects=[target])
    waiting = fwk.add_waiting_pod(target, {"Approval": 60.0})
    executor = Executor(fwk, Features())

    executor.preempt_pod(
        Candidate("node1", Victims([target])), PodPreemptor(PREEMPTOR), target, "DefaultPreemption"
    )

    assert [op for op, _, _ in fwk.cluster().writes if op in ("patch", "delete")] == []
    assert fwk.cluster().get("Pod", "victim1", "default") is not None
    outcome = waiting.outcome()
    assert (outcome.code, outcome.message(), outcome.plugin) == (
        Code.ERROR,
        "preempted",
        "DefaultPreemption",
    )
    (event,) = fwk.cluster().events
    assert event["note"] == ("Preempted by pod preemptor on node node1 (in kube-scheduler memory).")


GROUP_CONDITION = {
    **CONDITION,
    "message": "default-scheduler: preempting to accommodate a higher priority podgroup",
}


@pytest.mark.parametrize("async_preemption", [True, False], ids=["async", "sync"])
@pytest.mark.parametrize(
    ("victim_name", "deleted", "activated"),
    [("victim1", ["victim1"], False), ("fail-victim", ["fail-victim"], True)],
    ids=["podgroup preemptor, one victim", "podgroup preemptor, one victim whose deletion fails"],
)
def test_a_pod_groups_preemption_names_the_group(
    victim_name: str, deleted: list[str], activated: bool, async_preemption: bool
) -> None:
    """The pod-group rows of upstream's TestPrepareCandidate and TestPreemptPod: the victim's
    condition and event name the ``podgroup`` and its UID, the candidate is the cluster, and
    after a failure every member of the group is activated."""
    activator = Activator()
    target = victim(victim_name, conditions=False)
    fwk = new_framework(
        [], [node("node1")], objects=[target], cluster=FailingCluster(), pod_activator=activator
    )
    cluster = fwk.cluster()
    cluster.writes.clear()
    executor = Executor(fwk, Features(enable_async_preemption=async_preemption))
    members = [pod("m1", priority=HIGH_PRIORITY), pod("m2", priority=HIGH_PRIORITY)]

    executor.actuate_pod_group_preemption(
        Victims([target]), members, pod_group("pg1", priority=HIGH_PRIORITY), "test-plugin"
    )

    assert cluster.writes[0] == ("patch", victim_name, GROUP_CONDITION)
    if not activated:
        assert cluster.deleted() == deleted
        (event,) = [e for e in cluster.events if e["reason"] == "Preempted"]
        assert event["note"] == "Preempted by podgroup pg1 on node cluster"
    if async_preemption:
        assert activator.activated == ({"m1": members[0], "m2": members[1]} if activated else {})
        assert not executor.is_pod_group_running_preemption("pg1")
